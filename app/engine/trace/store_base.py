"""What every repository of the store stands on: one connection, its owner's path, and transactions.

:class:`~app.engine.trace.store.TrajectoryStore` owns the connection (it opens
the file, checks and migrates the schema); the repositories — runs in
``store.py``, steps and frames (:mod:`.store_steps`), films, logs and model
calls (:mod:`.store_media`), judgments (:mod:`.store_judgments`) — each hold
the statements of their group of tables and use the one connection through
this base, so every write that belongs together still commits together.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import sqlite_utils

from app.engine.errors import StoreError
from app.engine.trace.sqlite_faults import GuardedConnection


class StoreCore:
    """The connection a repository works on (set by the owner, :class:`~app.engine.trace.store.TrajectoryStore`)."""

    path: Path
    conn: GuardedConnection
    db: sqlite_utils.Database

    def transaction(self) -> Any:
        """Context manager: BEGIN IMMEDIATE … COMMIT, or ROLLBACK on error."""
        return _Transaction(self.conn)

    def run(self, run_id: int) -> dict[str, Any]:
        """One run's row (the runs repository, in the owner); raises StoreError for a run not there."""
        raise NotImplementedError


def _pk(value: Any) -> int:
    if value is None:
        raise StoreError("the database did not return a row id; check that the file is writable.")
    return int(value)



class _Transaction:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.outer = False

    def __enter__(self) -> sqlite3.Connection:
        self.outer = not self.conn.in_transaction
        if self.outer:
            self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if not self.outer:
            return
        if exc_type is None:
            try:
                self.conn.execute("COMMIT")
            except BaseException:
                self._rollback()  # a failed COMMIT (full disk) leaves the transaction open
                raise
        else:
            self._rollback()

    def _rollback(self) -> None:
        """Roll back if SQLite has not already (it does by itself on a full disk); never mask the first error."""
        if self.conn.in_transaction:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
