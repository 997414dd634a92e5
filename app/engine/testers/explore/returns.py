"""Returning to an archived cell: restart the program and replay the inputs that reached it.

The engine seeds every played program and, for a pygame game on the frame
gate, decides how many frames it plays between inputs: the same inputs at the
same frame counts reach the same state, exactly.  So a return is a restart
(the session does it when the tester's ``wants_restart`` says so) followed by
the prefix, each input sent when the program has played as many frames as it
had the first time (:meth:`Player.catch_up`).  A program off the gate (Tk, Qt,
a game that paces itself) is replayed as well, and the picture at the end is
compared with the one the cell was found with (its thumbnail: a caret's blink
does not count): when they differ the return is unreliable and the cell is not
chosen again.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Protocol

from app.engine.play.actions import Action
from app.engine.play.observer import Frame
from app.engine.testers.explore.archive import Cell, Step, picture_key


class Gated(Protocol):
    """What a return needs of the running program (a :class:`~app.engine.play.player.Player`)."""

    @property
    def lockstep(self) -> bool: ...

    @property
    def frames(self) -> int: ...

    def catch_up(self, frames: int) -> None: ...


@dataclass
class Return:
    cell: Cell
    steps: deque[Step] = field(default_factory=deque)
    restarted: bool = False
    exact: bool = True
    """Every input went out at its recorded frame (on the gate); off the gate, the picture decides."""


class Returner:
    """The tester's side of returns: asks for a restart, then hands out the prefix's inputs one by one."""

    def __init__(self) -> None:
        self.pending: Return | None = None
        self.done = 0
        self.failed = 0

    def ask(self, cell: Cell) -> None:
        self.pending = Return(cell, deque(cell.prefix))

    @property
    def replaying(self) -> bool:
        return self.pending is not None and self.pending.restarted

    def wants_restart(self) -> bool:
        return self.pending is not None and not self.pending.restarted

    def restarted(self) -> None:
        if self.pending is not None:
            self.pending.restarted = True

    def next_input(self, program: Gated | None) -> tuple[Action, int, int] | None:
        """The next input to replay (with its index and the prefix's length), the program first played
        up to the frame it was sent at the first time; None once the prefix is replayed."""
        ret = self.pending
        if ret is None or not ret.restarted or not ret.steps:
            return None
        at, action = ret.steps.popleft()
        if program is not None and program.lockstep:
            if program.frames > at:
                ret.exact = False  # the oracles let this run play further: no longer the same frames
            program.catch_up(at)
        return action, len(ret.cell.prefix) - len(ret.steps), len(ret.cell.prefix)

    def arrive(self, frame: Frame) -> Cell | None:
        """The prefix is replayed: the cell returned to, or None (and the cell marked unreliable) when
        the picture is not the one it was found with."""
        ret, self.pending = self.pending, None
        if ret is None:
            return None
        same = picture_key(frame) == ret.cell.picture
        if same:
            self.done += 1
            return ret.cell
        self.failed += 1
        ret.cell.unreliable = True
        return None
