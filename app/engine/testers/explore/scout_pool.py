"""Warm scouts: copies of the game that start and replay its inputs in the background.

A scout's start is the survival search's cost (seconds on a busy machine,
more than a step of the game).  The pool keeps a few scouts, each a gated
copy of the game on a private display of its own: while the game plays a
step, every scout that cannot reach the game's inputs any more (it played
another branch) restarts on a thread of its own and replays them up to the
frame of the next look.  At the look, a plan is played on a scout that can
reach it (the one furthest along); while none can and one is still warming,
the game waits for it (:data:`WAIT_S`; its frames stand still meanwhile).  Only when no scout
is warming at all does one restart while the game waits (``restarts``).
"""

from __future__ import annotations

import contextlib
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Callable

from app.engine.play.targetspec import TargetSpec
from app.engine.testers.explore.archive import Step
from app.engine.testers.explore.scouts import PlayerScout, Scout, Scouts, Seat

WAIT_S = 5.0
"""A look waits this long at most for a warming scout to finish (a start and a replay on a busy machine).  The
game is on its frame gate meanwhile, so waiting costs wall time only; a step of the explorer's own instead
(keys pressed blind) puts every scout out of step and often ends the game."""
POOL_SIZE = 2
"""Scouts kept: the one that holds the plan being followed, and one warming for the next look (more
starting at once slow the game itself on a 2-core machine)."""


class ScoutPool(Scouts):
    """Scouts of one game, warmed in the background."""

    def __init__(self, spec: TargetSpec | None, seed: int, size: int = POOL_SIZE,
                 make: Callable[[], Scout] | None = None) -> None:
        """``make``: how a scout is made (a gated :class:`PlayerScout` of ``spec`` unless given; tests give a
        simulated game)."""
        if make is None:
            assert spec is not None, "a scout pool needs the game's spec or a way to make scouts"
            make = lambda: PlayerScout(spec, seed)  # noqa: E731
        self.scouts: list[Scout] = [make() for _ in range(size)]
        self.seats = [Seat(s) for s in self.scouts]
        self.busy: dict[int, Future[None]] = {}
        self.threads = ThreadPoolExecutor(max_workers=size, thread_name_prefix="playcoder-scout")
        self.restarts = 0
        """Restarts the game waited for."""
        self.warm_starts = 0
        """Restarts done in the background."""
        self.failed = 0

    @property
    def gated(self) -> bool:
        """Were the scouts started on the frame gate (else their futures are not the game's)?"""
        return any(s.gated for s in self.scouts)

    def seat(self, inputs: list[Step], frame: int) -> Seat | None:
        """A scout that can reach ``inputs``; None while the others are still warming after :data:`WAIT_S`
        (the game does not wait for a start); a restart the game waits for only when no scout is warming."""
        found = self._reaching(inputs, self._idle())
        if found is None and self.busy:
            done, _ = wait(list(self.busy.values()), timeout=WAIT_S, return_when=FIRST_COMPLETED)
            found = self._reaching(inputs, self._idle()) if done else None
        if found is not None or self.busy:
            return found
        seat = min(self.seats, key=lambda s: s.scout.frames)
        self.restarts += 1
        seat.restart()
        return seat

    def warm(self, inputs: list[Step], frame: int) -> None:
        kept = self._reaching(inputs, self._idle())
        for i, seat in enumerate(self.seats):
            if i in self.busy or seat is kept and seat.scout.frames >= frame:
                continue
            self.busy[i] = self.threads.submit(self._prepare, seat, list(inputs), frame)

    def ready(self, inputs: list[Step]) -> bool:
        return self._reaching(inputs, self._idle()) is not None

    def fps(self) -> float:
        return max((s.fps() for s in self.scouts), default=0.0)

    def close(self) -> None:
        for i in list(self.busy):
            self._settle(i)
        self.threads.shutdown(wait=True)
        for scout in self.scouts:
            scout.close()

    def _prepare(self, seat: Seat, inputs: list[Step], frame: int) -> None:
        if not seat.can_reach(inputs):
            self.warm_starts += 1
            seat.restart()
        seat.play_to(inputs, frame)

    def _idle(self) -> list[Seat]:
        return [s for i, s in enumerate(self.seats) if i not in self.busy or self.busy[i].done() and self._settle(i)]

    def _settle(self, i: int) -> bool:
        """Wait for a scout's background work; one that failed is restarted when next needed."""
        future = self.busy.pop(i, None)
        if future is not None:
            try:
                future.result()
            except Exception:
                self.failed += 1
                with contextlib.suppress(Exception):
                    self.scouts[i].close()
                self.seats[i] = Seat(self.scouts[i])
        return True

    @staticmethod
    def _reaching(inputs: list[Step], seats: list[Seat]) -> Seat | None:
        """The scout furthest along that can play on into ``inputs``."""
        reach = [s for s in seats if s.can_reach(inputs)]
        return max(reach, key=lambda s: s.scout.frames) if reach else None
