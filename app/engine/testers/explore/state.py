"""What the explorer's strategies share: one small typed record, read and written by all of them.

Each strategy (:mod:`.strategies`, :mod:`.survive`, :mod:`.least_tried`) keeps the state it alone needs;
what several of them read lives here: the run's context and the program played, what the program's code
reads, the keys on offer, the archive of cells and the returner, the inputs since the program's last start,
the queue of planned inputs, and the novelty counters that decide when to return to a cell.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.engine.play.actions import Action, Hotkey, Press
from app.engine.testers.base import TesterContext
from app.engine.testers.explore.archive import Archive, Step
from app.engine.testers.explore.keys_from_code import ReadInputs
from app.engine.testers.explore.returns import Returner
from app.engine.testers.explore.values import CodeValues

if TYPE_CHECKING:
    from app.engine.play.inside import Inside
    from app.engine.play.target import TargetProcess
    from app.engine.testers.base import RunningProgram

SILENT_PRESSES = 2
"""A key pressed this often without changing anything is tried after a selection first (its plans go first)."""


@dataclass
class Explored:
    """The explorer's shared state: set up by :meth:`Explorer.begin`, one per run."""

    ctx: TesterContext | None = None
    reads: ReadInputs = field(default_factory=ReadInputs)
    values: CodeValues = field(default_factory=CodeValues)
    """Constants the program's code compares with and the formats it parses: values worth typing."""
    keys: list[Action] = field(default_factory=list)
    """The keys on offer (the least-tried choice's own list: hinted, read from the code, menu shortcuts)."""
    buttons: list[tuple[tuple[int, int, int, int], str]] = field(default_factory=list)
    """The enabled buttons the toolkit showed at the last look (box, text): what a selected row is acted on by."""
    archive: Archive = field(default_factory=Archive)
    returner: Returner = field(default_factory=Returner)
    prefix: list[Step] = field(default_factory=list)
    """The inputs since the program's last start (what a return to here would replay)."""
    queue: deque[tuple[Action, str]] = field(default_factory=deque)
    """Inputs planned ahead, each with its reason (a tester plan's next actions, keys a screen names)."""
    pressed: Counter[Action] = field(default_factory=Counter)
    """How often each key was pressed (the least-tried choice's ``responses`` counts how often it answered)."""
    responses: dict[Action, int] = field(default_factory=lambda: defaultdict(int))
    """How often each input changed the window (the least-tried choice's own count, shared)."""
    quitting: set[Action] = field(default_factory=set)
    """Keys read from the code (or menu shortcuts) that end the program: pressed once, then no more."""
    quit_used: set[Action] = field(default_factory=set)
    played: int = 0
    began: float = field(default_factory=time.monotonic)
    since_new: int = 0
    """Steps without a new cell, new code or a new text (a return comes after :data:`RETURN_AFTER`)."""
    found: int = 0
    """What was found since the last return (credited to the cell returned to)."""
    in_play: bool = False
    """This step is the explorer's own while the survival search keeps a moving game alive."""
    standing: bool = True
    """Did the picture stand still before the step being played (a menu, a GAME OVER)?"""

    # -- the program played ---------------------------------------------------------------------
    def player(self) -> RunningProgram | None:
        return self.ctx.player if self.ctx is not None else None

    def target(self) -> TargetProcess | None:
        player = self.player()
        return player.target if player is not None else None

    def inside(self) -> Inside | None:
        """The program's own channel when it answers (exact widgets, lines of code run), else None."""
        target = self.target()
        inside = target.inside if target is not None else None
        return inside if inside is not None and inside.available else None

    def lockstep(self) -> bool:
        player = self.player()
        return player is not None and player.lockstep

    def frame_count(self) -> int:
        player = self.player()
        return int(player.frames) if player is not None and player.lockstep else 0

    def dialog_open(self) -> bool:
        """Another top-level window of the program is up (a dialog, a message box): the X tree tells."""
        windows = self.ctx.windows if self.ctx is not None else None
        return windows is not None and any(t.kind != "main" for t in windows.toplevels())

    def spent(self) -> float:
        """The share of the run's budget spent: its wall-clock time under ``--duration``, else its steps."""
        assert self.ctx is not None
        if self.ctx.duration_s:
            return (time.monotonic() - self.began) / self.ctx.duration_s
        return self.played / max(1, int(self.ctx.max_steps or 0))

    def silent_key(self, action: Action) -> bool:
        """A key pressed at least :data:`SILENT_PRESSES` times that never changed the window."""
        return isinstance(action, (Press, Hotkey)) and self.pressed[action] >= SILENT_PRESSES \
            and not self.responses[action]
