"""Returns for the LLM tester: the model may ask to go back to a screen it reached before (``return_to(N)``).

A model that played itself into a corner (a dialog it cannot leave, a game
lost) wastes the rest of its steps there.  The explorer's archive
(:mod:`app.engine.testers.explore.archive`) keeps each screen reached with the
shortest input prefix from the program's start, and its
:class:`~app.engine.testers.explore.returns.Returner` replays a prefix after a
restart the session makes (exact on the frame gate; checked against the
picture off it).  This module gives the LLM tester the same: cells numbered
in the order found, listed in the prompt, and a reply ``return_to(N)`` that
restarts the program and replays N's inputs — one input per step, with no
model call — before the model decides again.
"""

from __future__ import annotations

import re
from typing import Any

from app.engine.play.actions import Action
from app.engine.play.observer import Frame
from app.engine.testers.explore.archive import Archive, Step, cell_key, picture_key
from app.engine.testers.explore.returns import Gated, Returner
from app.engine.testers.base import RunningProgram

MAX_LISTED = 12
"""Cells listed in a prompt (the most recently found ones, the start always): more cost tokens, rarely help."""
MAX_PREFIX = 60
"""A cell whose shortest known prefix is longer is not offered (its return would eat the step budget)."""
_CALL = re.compile(r"return_to\s*\(\s*c?(\d+)\s*\)", re.IGNORECASE)


class LLMReturns:
    def __init__(self) -> None:
        self.archive = Archive()
        self.returner = Returner()
        self.prefix: list[Step] = []
        """The inputs sent since the program's start (frame count when sent, action)."""
        self.numbers: dict[str, int] = {}
        self.found_at: dict[str, int] = {}
        self.program: Any = None
        self.news = ""
        """What the last return did, for the next prompt."""

    def see(self, step: int, frame: Frame, program: Any) -> None:
        """The tester looks at ``frame`` before deciding ``step``: archive the screen with its prefix."""
        if program is not self.program and not self.returner.replaying:
            self.prefix, self.program = [], program  # the session restarted the program (a new episode)
        key = cell_key(frame)
        self.archive.visit(key, tuple(self.prefix), picture_key(frame))
        if key not in self.numbers:
            self.numbers[key] = len(self.numbers) + 1
            self.found_at[key] = step

    def sent(self, frames: int, action: Action) -> None:
        """An input went to the program (by the model, a replay or the human) after ``frames`` frames."""
        self.prefix.append((frames, action))

    def replay(self, frame: Frame, player: Gated | None) -> tuple[Action, str] | None:
        """While returning: the next input of the prefix and a rationale; None when there is nothing to replay
        (the arrival, if one was due, is noted in :attr:`news`)."""
        if not self.returner.replaying:
            return None
        target = self.returner.pending.cell if self.returner.pending is not None else None
        nxt = self.returner.next_input(player)
        if nxt is not None:
            action, i, n = nxt
            return action, f"return to screen {self.numbers.get(target.key, '?') if target else '?'}: input {i} of {n}"
        cell = self.returner.arrive(frame)
        number = self.numbers.get(target.key, 0) if target is not None else 0
        self.news = (f"You are back on screen {number} (the program was restarted and its inputs replayed)."
                     if cell is not None else f"The return to screen {number} did not reach the same picture; "
                     "that screen is no longer offered.")
        return None

    def wants_restart(self) -> bool:
        return self.returner.wants_restart()

    def restarted(self, program: Any) -> None:
        self.returner.restarted()
        self.prefix, self.program = [], program

    def ask(self, number: int) -> None:
        """Return to screen ``number`` (a ValueError names the screens on offer when it is not one)."""
        for cell in self._offered():
            if self.numbers[cell.key] == number:
                self.returner.ask(cell)
                return
        offered = ", ".join(str(self.numbers[c.key]) for c in self._offered()) or "none"
        raise ValueError(f"there is no screen {number} to return to (screens on offer: {offered})")

    def _offered(self) -> list[Any]:
        cells = [c for c in self.archive.cells.values() if not c.unreliable and len(c.prefix) <= MAX_PREFIX]
        cells.sort(key=lambda c: self.numbers[c.key])
        return cells[:1] + cells[1:][-(MAX_LISTED - 1):]

    def listing(self, current: Frame) -> str:
        """The screens on offer, one a line (empty: only one screen known, nothing to return to)."""
        here = cell_key(current)
        cells = self._offered()
        if len(cells) < 2:
            return ""
        lines = []
        for c in cells:
            where = " (the screen now)" if c.key == here else ""
            lines.append(f"screen {self.numbers[c.key]}: first seen before step {self.found_at[c.key]}, "
                         f"{len(c.prefix)} inputs from the start, seen {c.visits} times{where}")
        return "\n".join(lines)


def on_gate(player: RunningProgram | None) -> Gated | None:
    """The player when it plays its program in lockstep on the frame gate (a return replays at frame counts)."""
    return player if player is not None and player.lockstep else None


def chosen_return(text: str, obj: dict[str, Any] | None) -> int | None:
    """The screen a reply asks to return to (``return_to(N)`` or ``"action": "return_to", "screen": N``)."""
    if obj is not None:
        action = obj.get("action")
        if not isinstance(action, str):
            return None
        call = _CALL.fullmatch(action.strip())
        if call:
            return int(call.group(1))
        if action.strip().lower() != "return_to":
            return None
        value = next((obj[k] for k in ("screen", "cell", "number", "n") if k in obj), None)
        try:
            return int(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise ValueError('"return_to" needs "screen": the number of a screen listed') from None
    call = _CALL.search(text)
    return int(call.group(1)) if call else None
