"""What the session loop asks of a tester: :class:`TesterBase`, which every tester inherits.

A tester *declares* what it can do (class attributes: :attr:`TesterBase.lockstep`,
:attr:`TesterBase.gated`, :attr:`TesterBase.from_first_frame`) and overrides the hooks it
needs; the others are no-ops here, so the session calls every hook and reads every
declaration directly instead of probing a tester for them.  What a tester offers a person
(take-over, a model, script cases) is declared as data in :mod:`app.engine.testers.registry`
and read through :attr:`TesterBase.abilities` (a test says the two declarations agree).

``Verdict`` is the verdict rule's outcome (:mod:`app.engine.judge.verdict`), re-exported here.
"""

from __future__ import annotations

import random
from dataclasses import InitVar, dataclass
from typing import TYPE_CHECKING, Callable, Protocol

from app.engine.play.actions import Action
from app.engine.play.observer import Frame, Observation
from app.engine.judge.oracles import Finding
from app.engine.judge.verdict import Verdict
from app.engine.play.targetspec import TargetSpec
from app.engine.play.xwidgets import TargetLike, TargetWindows, Widget

from app.engine.testers.spec import TesterSpec

if TYPE_CHECKING:
    from app.engine.play.control import RunControl
    from app.engine.play.gate import FrameGate
    from app.engine.play.observer import VisualObserver
    from app.engine.play.target import TargetProcess
    from app.engine.trace.store import TrajectoryStore


@dataclass(frozen=True)
class Decision:
    action: Action
    rationale: str
    tokens_in: int | None = None
    tokens_out: int | None = None
    control: str | None = None
    """The control the input reaches, when the tester knows that several inputs reach one (the points of a grid
    clicked over one drawing surface): the oracles judge them together, so one of them answering makes the
    others' later silence a spent control (a full board), not dead input.  None: the input is its own control."""


class RunningProgram(TargetLike, Protocol):
    """What a tester may ask of the running program it plays (a :class:`~app.engine.play.player.Player`):
    declared here once, so a tester reads these directly instead of probing for them."""

    target: TargetProcess | None
    """The program's process (its Inside channel: the widgets the toolkit knows, the lines of code run)."""
    gate: FrameGate | None
    """Its frame gate and clock, when it plays on one (a pygame game, a web page); None off the gate."""
    observer: VisualObserver | None
    """What captures its window (None while it is not running)."""

    @property
    def lockstep(self) -> bool:
        """The program stands on a frame gate: it plays only the frames the engine grants."""
        ...

    @property
    def frames(self) -> int:
        """Frames the program has played on its gate since its start."""
        ...

    def catch_up(self, frames: int) -> None:
        """Let the program play until it has played ``frames`` frames (on the gate)."""
        ...

    def look_s(self) -> float:
        """How long one look at the window lets the program play."""
        ...


@dataclass
class TesterContext:
    spec: TargetSpec
    seed: int
    max_steps: int
    rng: random.Random
    window_size: tuple[int, int]
    widgets: Callable[[], list[Widget]] | None = None
    """The target's widgets read from the X window tree, main-window-relative (play/xwidgets.py);
    an empty list for toolkits that draw into one window (then testers look at images)."""
    windows: TargetWindows | None = None
    """The target's other top-level windows (dialogs, popups) and a window manager's close for them."""
    duration_s: float | None = None
    """The run is bounded by wall-clock time (``--duration``): a soak of one program.  Explorers that
    restart the program to return to a state keep it running instead: what builds up with time (a
    counter, a leak, a timer) is reset by every restart."""
    target: InitVar[RunningProgram | None] = None
    """Given the running target, ``widgets`` and ``windows`` are read from its X tree."""

    def __post_init__(self, target: RunningProgram | None) -> None:
        self.player: RunningProgram | None = target
        """The running target itself (a Player for the session's candidate), for testers that look again."""
        if target is not None:
            self.windows = self.windows or TargetWindows(target)
            self.widgets = self.widgets or self.windows.widgets


class TesterBase:
    """A tester: it decides each step's action from what the window shows, and gives the run's verdict.

    Subclasses implement :meth:`begin`, :meth:`decide`, :meth:`observe` and :meth:`verdict`, set
    :attr:`name`, declare what they do (the class attributes below) and override the hooks they use."""

    name: str
    """The tester's name, as ``--tester`` and :data:`app.engine.testers.TESTERS` spell it."""
    lockstep: bool = False
    """Plays a reference program beside the candidate, input for input: the session puts the candidate on a
    frame gate, and episodes that end alike are not a finding (the reference says what the inputs change)."""
    gated: bool = False
    """Needs a game on the frame gate for itself (a scout that replays inputs at the same frames)."""
    from_first_frame: bool = False
    """Plays a game from its first frame: a game is put on the frame gate when its target asks for one, and
    stands still there during the oracles' start-up watch."""

    registered: TesterSpec | None = None
    """What the registry declares for this tester (set by :func:`~app.engine.testers.registry.make_tester`)."""

    @property
    def abilities(self) -> TesterSpec:
        """What this tester can do: its registry declaration, or for a tester built without the registry what
        its class declares (one that plays a reference beside the candidate cannot be taken over)."""
        if self.registered is not None:
            return self.registered
        return TesterSpec(self.name, "a tester built without the registry", takes_over=not self.lockstep,
                          plays_reference=self.lockstep,
                          no_take_over="Take-over is off: the tester plays a reference that would never see your "
                                       "inputs" if self.lockstep else "")

    def begin(self, ctx: TesterContext, first: Observation) -> None:
        raise NotImplementedError

    def decide(self, step: int, obs: Observation) -> Decision:
        raise NotImplementedError

    def observe(self, step: int, before: Frame, decision: Decision, after: Observation, outcome: str) -> None:
        raise NotImplementedError

    def verdict(self, findings: list[Finding], steps: int) -> Verdict:
        """The run's verdict: the tester's findings and criterion judgments through
        :func:`app.engine.judge.verdict.decide`, never its own arithmetic."""
        raise NotImplementedError

    # -- hooks: no-ops unless a tester needs them ---------------------------------
    def attach(self, store: TrajectoryStore, run_id: int, control: RunControl | None = None) -> None:
        """Called once the run row exists: a tester that records (model calls, evidence frames) or cancels
        (retries, with the run's control) keeps them."""

    def prepare(self, spec: TargetSpec, seed: int) -> None:
        """Called before the candidate starts: a tester with programs of its own starts them meanwhile."""

    def wants_restart(self) -> bool:
        """Asked before each decision: restart the program first (a return to a state, a case that restarts)."""
        return False

    def restarted(self, obs: Observation) -> None:
        """Called after the session restarted the program for :meth:`wants_restart`; ``obs`` is its first look."""

    def step_recorded(self, step: int) -> None:
        """Called once step ``step`` is committed: a tester that adds to its row (a reference's frame) does."""

    def take_findings(self) -> list[Finding]:
        """Findings the tester raised itself since the last call (differential play's ``diverged``)."""
        return []

    def close(self) -> None:
        """Called at the end of every run, whatever ended it: stop what the tester started."""


Tester = TesterBase
"""The name type hints use for a tester."""
