"""Database: the workbench's one owner of an open database file, with the reads and writes views need.

Views never hold a store or write SQL: they call the named methods here (the
runs, their steps and verdicts) and on the small read services it hands out:
``database.validation`` (:class:`ValidationSets`), ``database.repairs``
(:class:`RepairRecords`) and, through the workbench model, a run's logs, model
calls, film and coverage (:class:`~app.views.model.run_reads.RunReads`).  A read may raise one of :data:`READ_ERRORS` (a writer
holding the file, a database from before a table): views that must not fail a
paint catch exactly those.  Writes return :class:`~app.views.model.changes.Changes`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Callable

from app.engine.errors import StoreError
from app.engine.trace.store import RunListMark, StoredFrame, TrajectoryStore
from app.views.model.changes import Changes
from app.views.model.repair_records import RepairRecords
from app.views.model.validation_sets import ValidationSets

READ_ERRORS: tuple[type[BaseException], ...] = (sqlite3.Error, StoreError)
"""What a read of a busy, closed or older database raises."""
REOPEN_SHIFT = 40
""":meth:`Database.data_version` counts reopenings above SQLite's own counter (which never gets near it)."""


class Database:
    """One open connection (``readonly`` for second views) and the reads and writes of the workbench."""

    def __init__(self, store: TrajectoryStore) -> None:
        self._store = store
        self._reopens = 0
        self.validation = ValidationSets(store)
        """The blinded validation sets (draw, label, promote, agreement)."""
        self.repairs = RepairRecords(store)
        """The repair sessions, cycle by cycle."""

    @classmethod
    def open(cls, path: Path, *, readonly: bool = False) -> Database:
        """Open ``path`` (created when missing, unless ``readonly``); raises StoreError or OSError."""
        return cls(TrajectoryStore(path, readonly=readonly))

    @property
    def store(self) -> TrajectoryStore:
        """The engine's store under this database (for engine code and tests; views never use it)."""
        return self._store

    @property
    def path(self) -> Path | None:
        path = getattr(self._store, "path", None)
        return Path(path) if path is not None else None

    def close(self) -> None:
        self._store.close()

    # -- runs -----------------------------------------------------------------------------
    def run(self, run_id: int) -> dict[str, Any]:
        self._follow()  # a run is read when it is shown: a file moved over this one counts
        return self._store.run(run_id)

    def runs(self) -> list[dict[str, Any]]:
        self._follow()
        return self._store.runs()

    def target_path(self, run_id: int) -> str | None:
        return self._store.target_path(run_id)

    def repair_play(self, run_id: int) -> Any:
        return self._store.repair_play(run_id)

    def sibling_plays(self, run_id: int) -> list[int]:
        """Every play of the same repair session and program version as ``run_id`` (itself included), the
        failing ones first, then the uncertain, then the rest, each group oldest first; ``[run_id]`` for a run
        that is no repair's play."""
        play = self._store.repair_play(run_id)
        if play is None:
            return [run_id]
        runs = [rid for rid, other in self._store.repair_plays(play.session_run) if other.iteration == play.iteration]
        order = {"fail": 0, "uncertain": 1}
        verdicts = {rid: self._store.run(rid).get("verdict") for rid in runs}
        return sorted(runs, key=lambda rid: (order.get(str(verdicts[rid]), 2), rid)) or [run_id]

    def run_list_changes(self, since: RunListMark | None) -> tuple[list[dict[str, Any]], RunListMark]:
        return self._store.run_list_changes(since)

    def fresh_run_list(self) -> tuple[list[dict[str, Any]], RunListMark]:
        """The whole run list on a fresh connection (F5): no connection left inside an old read transaction
        is read from.  A database without a file reads on its own connection and leaves the snapshot."""
        path = self.path
        if path is None:
            try:
                return self._store.run_list_changes(None)
            finally:
                self._store.end_read()
        fresh = TrajectoryStore(path, readonly=True)
        try:
            return fresh.run_list_changes(None)
        finally:
            fresh.close()

    def end_read(self) -> None:
        self._store.end_read()
        self._follow()  # the change probe ends each look here: it follows a replaced file

    def data_version(self) -> int:
        """SQLite's ``data_version``, changed too when the file was replaced and opened again."""
        return self._store.data_version() + (self._reopens << REOPEN_SHIFT)

    def _follow(self) -> None:
        if self._store.follow_replaced_file():
            self._reopens += 1

    # -- steps, frames, film ----------------------------------------------------------------
    def step_count(self, run_id: int) -> int:
        return self._store.step_count(run_id)

    def steps(self, run_id: int, offset: int = 0, limit: int = -1) -> list[dict[str, Any]]:
        return self._store.steps(run_id, offset, limit)

    def step(self, run_id: int, idx: int) -> dict[str, Any] | None:
        return self._store.step(run_id, idx)

    def frame(self, sha256: str) -> StoredFrame | None:
        return self._store.frame(sha256)

    def findings(self, run_id: int) -> list[dict[str, Any]]:
        return self._store.findings(run_id)

    # -- verdicts ---------------------------------------------------------------------------
    def judgments(self, run_id: int) -> list[dict[str, Any]]:
        return self._store.judgments(run_id)

    def active_judgments(self, run_id: int, criterion: str | None = None) -> list[dict[str, Any]]:
        return self._store.active_judgments(run_id, criterion)

    def effective_verdict(self, run_id: int, criterion: str | None = None,
                          tester_verdict: str | None = None) -> str | None:
        return self._store.effective_verdict(run_id, criterion=criterion, tester_verdict=tester_verdict)

    def add_override(self, run_id: int, *, author: str, verdict: str, note: str) -> tuple[int, Changes]:
        """Append a human judgment of the whole run; its id and what changed."""
        jid = self._store.add_judgment(run_id, source="human", author=author, verdict=verdict, note=note)
        return int(jid), Changes(runs=frozenset({run_id}), verdict=True)

    def undo_override(self, run_id: int, author: str) -> tuple[int | None, Changes]:
        """Append an undo of the newest human override in force (None, nothing changed, when there is none)."""
        jid = self._store.undo_last_override(run_id, author)
        return jid, (Changes(runs=frozenset({run_id}), verdict=True) if jid is not None else Changes())

    # -- work on this connection ------------------------------------------------------------
    def abort_when(self, stop: Callable[[], bool], every: int) -> None:
        """Abort every statement once ``stop()`` is true (checked each ``every`` SQLite steps)."""
        self._store.abort_when(stop, every)
