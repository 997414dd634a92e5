"""RepairRecords: the repair sessions of an open database, cycle by cycle, and their report.

Handed out as ``database.repairs``; each method is the engine's
(:mod:`app.engine.repair.records`, :mod:`app.engine.repair.report`) on this
connection."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from app.engine.repair import records
from app.engine.trace.store import TrajectoryStore


class RepairRecords:
    def __init__(self, store: TrajectoryStore) -> None:
        self._store = store

    def sessions(self) -> list[records.RepairSession]:
        return records.repair_sessions(self._store)

    def cycles(self, session_run: int) -> list[records.CycleRecord]:
        return records.cycles(self._store, session_run)

    def trigger_findings(self, record: records.CycleRecord) -> list[dict[str, Any]]:
        return records.trigger_findings(self._store, record)

    def failure_step(self, record: records.CycleRecord, trigger: list[dict[str, Any]] | None = None) -> int:
        return records.failure_step(self._store, record, trigger)

    def write_report(self, write: Callable[..., Path], session_run: int, path: Path,
                     progress: Callable[..., Any]) -> Path:
        """Write session ``session_run``'s report to ``path`` with the engine's ``write`` (a file; the database
        is not changed)."""
        return write(self._store, session_run, path, progress)
