"""A run's line coverage: the lines each step ran, recorded with the step.

Beside ``session.py`` as ``run_film.py`` is: the session calls it when the
program starts (the start-up's lines, each own file's executable lines, what
the run sees the program through) and at each step commit; it asks the
program's :class:`~app.engine.play.inside.Inside` and writes through the
store.  A program that is not Python has no coverage: nothing is recorded and
the run says it saw the program through its pixels.
"""

from __future__ import annotations

from typing import Any

from app.engine.play.inside import Inside
from app.engine.trace.coverage import START_STEP
from app.engine.trace.store import TrajectoryStore

HELLO_S = 0.1
"""How long after its window appears a program has to have said hello (it says it at start-up)."""
READER = "run"
"""This module's reader of :meth:`Inside.coverage` (an explorer reads the same lines as its own)."""
STEP_COVERAGE_S = 0.25
"""How long a step commit waits for the program's new lines (a busy or stopped program's come later)."""


class RunCoverage:
    """The coverage of one run, over all its program starts (a restarted program counts once)."""

    def __init__(self, store: TrajectoryStore, run_id: int) -> None:
        self.store = store
        self.run_id = run_id
        self.hit: set[tuple[str, int]] = set()
        self.total: dict[str, frozenset[int]] | None = None
        self.inside = False
        """Did any start of the program answer from inside?"""

    def started(self, inside: Inside) -> None:
        """The program's window is up: record what its start-up ran and what the run sees it through."""
        if inside.available or inside.wait_hello(HELLO_S):
            self.inside = True
            if self.total is None:
                self.total = inside.lines_by_file()
                self.store.set_coverage_files(self.run_id, self.total)
        self.store.update_run(self.run_id, seen_through="inside" if self.inside else "pixels")
        self.step(START_STEP, inside)

    def lines(self, inside: Inside | None) -> dict[str, list[int]]:
        """The lines the run reached for the first time since the last call (asked before a step's transaction)."""
        delta = inside.coverage(STEP_COVERAGE_S, reader=READER) if inside is not None and inside.available else None
        if delta is None:
            return {}
        total = self.total or {}
        # New to the run: a restarted program (an episode, an explorer's return) runs its start-up again.
        by_file = {file: [n for n in lines if n in total.get(file, ()) and (file, n) not in self.hit]
                   for file, lines in delta.by_file().items()}
        by_file = {file: lines for file, lines in by_file.items() if lines}
        self.hit.update((file, n) for file, lines in by_file.items() for n in lines)
        return by_file

    def record(self, step: int, by_file: dict[str, list[int]]) -> None:
        """Write a step's lines (inside the step's transaction)."""
        if by_file:
            self.store.add_coverage(self.run_id, step, by_file)

    def step(self, step: int, inside: Inside | None) -> None:
        self.record(step, self.lines(inside))

    def summary(self) -> dict[str, Any] | None:
        """``{"lines": H, "total": N}`` for a program that answered from inside, else None."""
        if not self.inside or self.total is None:
            return None
        return {"lines": len(self.hit), "total": sum(len(lines) for lines in self.total.values())}
