"""A stopped clock while the tester thinks: a game's processes are stopped between actions.

A real-time game keeps running while a model takes seconds to decide — the
bird falls.  With the clock stopped, the target's processes get SIGSTOP while
the tester decides and SIGCONT to act; after each action the game runs for a
declared slice of time before the next observation, so a slow tester plays
the same game as a fast one.  The clock is always left running on close.
"""

from __future__ import annotations

import signal
from typing import Protocol


class _Signalled(Protocol):
    def signal_program(self, sig: int) -> None: ...


class GameClock:
    """Stops and continues a target's processes; a no-op when ``enabled`` is False."""

    def __init__(self, program: _Signalled, enabled: bool) -> None:
        self.program = program
        self.enabled = enabled
        self.stopped = False

    def stop(self) -> None:
        if self.enabled and not self.stopped:
            self.program.signal_program(signal.SIGSTOP)
            self.stopped = True

    def run(self) -> None:
        if self.stopped:
            self.program.signal_program(signal.SIGCONT)
            self.stopped = False

    close = run
