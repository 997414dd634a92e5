"""TaskDatabases: the connections a piece of long work opens for itself, stopped by its cancel flag.

Long work (export, import, reports, statistics, the run list's reads) never
shares the GUI's connection: each piece opens its own here, every statement
of it aborts once the work is cancelled (a write transaction rolls back
whole), and all are closed when the work ends."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Callable

from app.views.model.database import Database

log = logging.getLogger(__name__)

CHECK_OPS = 2000
"""A connection opened for work checks the cancel flag every this many SQLite VM steps."""


class TaskDatabases:
    def __init__(self, cancelled: Callable[[], bool]) -> None:
        self._cancelled = cancelled
        self._open: list[Database] = []

    def open(self, path: Path, *, readonly: bool = False) -> Database:
        database = Database.open(path, readonly=readonly)
        database.abort_when(self._cancelled, CHECK_OPS)
        self._open.append(database)
        return database

    def close_all(self) -> None:
        for database in self._open:
            try:
                database.close()
            except Exception:  # noqa: BLE001 - closing must not hide the work's own outcome
                log.debug("closing a task connection failed", exc_info=True)
        self._open.clear()
