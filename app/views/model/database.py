"""Database: the workbench's one owner of an open database file, with the reads and writes views need.

Views never hold a store or write SQL (STYLE rule 14, issue 28): they call the
named methods here.  Each method is the store's, or the engine function that
reads the store (validation sets, repair records, the film index), bound to
this connection.  A read may raise one of :data:`READ_ERRORS` (a writer
holding the file, a database from before a table): views that must not fail a
paint catch exactly those.  Writes return :class:`~app.views.model.changes.Changes`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Callable

from app.engine.errors import StoreError
from app.engine.repair import records
from app.engine.study import validation
from app.engine.trace.film_reader import FilmReader
from app.engine.trace.store import RunListMark, StoredFrame, TrajectoryStore
from app.views.model.changes import Changes

READ_ERRORS: tuple[type[BaseException], ...] = (sqlite3.Error, StoreError)
"""What a read of a busy, closed or older database raises."""


class Database:
    """One open connection (``readonly`` for second views) and the reads and writes of the workbench."""

    def __init__(self, store: TrajectoryStore) -> None:
        self._store = store

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
        return self._store.run(run_id)

    def runs(self) -> list[dict[str, Any]]:
        return self._store.runs()

    def target_path(self, run_id: int) -> str | None:
        return self._store.target_path(run_id)

    def repair_play(self, run_id: int) -> Any:
        return self._store.repair_play(run_id)

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

    def data_version(self) -> int:
        return self._store.data_version()

    # -- steps, frames, film ----------------------------------------------------------------
    def step_count(self, run_id: int) -> int:
        return self._store.step_count(run_id)

    def steps(self, run_id: int, offset: int = 0, limit: int = -1) -> list[dict[str, Any]]:
        return self._store.steps(run_id, offset, limit)

    def step(self, run_id: int, idx: int) -> dict[str, Any] | None:
        return self._store.step(run_id, idx)

    def frame(self, sha256: str) -> StoredFrame | None:
        return self._store.frame(sha256)

    def has_reference_frames(self, run_id: int) -> bool:
        return bool(self._store.has_reference_frames(run_id))

    def film(self, run_id: int) -> FilmReader | None:
        return FilmReader.open(self._store, run_id)

    def step_times(self, run_id: int) -> list[tuple[int, float, float, bool]]:
        return self._store.step_times(run_id)

    def findings(self, run_id: int) -> list[dict[str, Any]]:
        return self._store.findings(run_id)

    def logs(self, run_id: int, t0: float | None = None, t1: float | None = None) -> list[dict[str, Any]]:
        return self._store.logs(run_id, t0, t1)

    def llm_calls(self, run_id: int, step: int | None = None) -> list[dict[str, Any]]:
        return self._store.llm_calls(run_id, step)

    def llm_usage(self, run_id: int) -> dict[str, Any]:
        return self._store.llm_usage(run_id)

    def run_coverage(self, run_id: int) -> list[Any]:
        return self._store.run_coverage(run_id)

    def coverage_steps(self, run_id: int) -> dict[int, dict[str, list[int]]]:
        return self._store.coverage_steps(run_id)

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

    # -- validation sets --------------------------------------------------------------------
    def validation_sets(self) -> list[validation.ValidationSet]:
        return validation.list_sets(self._store)

    def validation_set(self, name: str) -> validation.ValidationSet:
        return validation.get_set(self._store, name)

    def candidate_choices(self) -> dict[str, list[str]]:
        return validation.candidate_choices(self._store)

    def candidate_counts(self, **filters: Any) -> dict[str, int]:
        return validation.candidate_counts(self._store, **filters)

    def sample_validation_set(self, name: str, **options: Any) -> validation.ValidationSet:
        return validation.sample_set(self._store, name, **options)

    def annotator_order(self, vset: validation.ValidationSet, annotator: str) -> list[validation.BlindItem]:
        return validation.annotator_order(self._store, vset, annotator)

    def labels_of(self, vset: validation.ValidationSet, annotator: str) -> dict[int, validation.Label]:
        return validation.labels_of(self._store, vset, annotator)

    def blinded_run(self, run_id: int) -> validation.BlindedRun:
        return validation.blinded_run(self._store, run_id)

    def set_label(self, vset: validation.ValidationSet, annotator: str, run_id: int, label: str, note: str,
                  seconds: float | None) -> Any:
        return validation.set_label(self._store, vset, annotator, run_id, label, note, seconds)

    def promote_label(self, vset: validation.ValidationSet, annotator: str, run_id: int) -> tuple[int, Changes]:
        """Turn a label into a human judgment of the run; its id and what changed."""
        judgment = validation.promote(self._store, vset, annotator, run_id)
        return judgment, Changes(runs=frozenset({run_id}), verdict=True, labels=True)

    def add_label_time(self, vset: validation.ValidationSet, annotator: str, run_id: int, seconds: float) -> bool:
        return validation.add_time(self._store, vset, annotator, run_id, seconds)

    def agreement_units(self, name: str) -> tuple[validation.ValidationSet, list[Any]]:
        vset = validation.get_set(self._store, name)
        return vset, validation.units(self._store, vset)

    # -- repairs ----------------------------------------------------------------------------
    def repair_sessions(self) -> list[records.RepairSession]:
        return records.repair_sessions(self._store)

    def repair_cycles(self, session_run: int) -> list[records.CycleRecord]:
        return records.cycles(self._store, session_run)

    def trigger_findings(self, record: records.CycleRecord) -> list[dict[str, Any]]:
        return records.trigger_findings(self._store, record)

    def failure_step(self, record: records.CycleRecord, trigger: list[dict[str, Any]] | None = None) -> int:
        return records.failure_step(self._store, record, trigger)

    # -- work on this connection ------------------------------------------------------------
    def abort_when(self, stop: Callable[[], bool], every: int) -> None:
        """Abort every statement once ``stop()`` is true (checked each ``every`` SQLite steps)."""
        self._store.abort_when(stop, every)

    def call(self, func: Callable[..., Any], *args: Any) -> Any:
        """``func(store, *args)``: an engine function of a long task (export, import, a report) on this
        connection."""
        return func(self._store, *args)
