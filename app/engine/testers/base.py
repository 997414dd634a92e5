"""The tester protocol the session loop talks to.

``Verdict`` is the verdict rule's outcome (:mod:`app.engine.judge.verdict`), re-exported here.
"""

from __future__ import annotations

import random
from dataclasses import InitVar, dataclass
from typing import Callable, Protocol

from app.engine.play.actions import Action
from app.engine.play.observer import Frame, Observation
from app.engine.judge.oracles import Finding
from app.engine.judge.verdict import Verdict
from app.engine.play.targetspec import TargetSpec
from app.engine.play.xwidgets import TargetLike, TargetWindows, Widget


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
    target: InitVar[TargetLike | None] = None
    """Given the running target, ``widgets`` and ``windows`` are read from its X tree."""

    def __post_init__(self, target: TargetLike | None) -> None:
        self.player = target
        """The running target itself (a Player for the session's candidate), for testers that look again."""
        if target is not None:
            self.windows = self.windows or TargetWindows(target)
            self.widgets = self.widgets or self.windows.widgets


class Tester(Protocol):
    name: str

    def begin(self, ctx: TesterContext, first: Observation) -> None: ...

    def decide(self, step: int, obs: Observation) -> Decision: ...

    def observe(self, step: int, before: Frame, decision: Decision, after: Observation, outcome: str) -> None: ...

    def verdict(self, findings: list[Finding], steps: int) -> Verdict:
        """The run's verdict: the tester's findings and criterion judgments through
        :func:`app.engine.judge.verdict.decide`, never its own arithmetic."""
        ...
