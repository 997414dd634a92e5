"""SQLite failures a user can cause, turned into one sentence at the connection.

A full disk, a read-only file or folder, a damaged file, another program's
database, a lock held too long: each surfaces as a :class:`StoreFault`, which
is both a :class:`~app.engine.errors.StoreError` (so the command line and the
session end with its sentence) and a :class:`sqlite3.OperationalError` (so the
views that already tolerate a busy or closed store keep doing so).  The store
opens every connection with :class:`GuardedConnection`; statements, fetches and
commits all pass through it, so no query anywhere needs its own handler.
Integrity errors (a constraint a caller broke) pass through unchanged.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Iterable

from app.engine.errors import StoreError

FULL = "full"
READONLY = "readonly"
DAMAGED = "damaged"
FOREIGN = "foreign"
CANTOPEN = "cantopen"
IO = "io"
BUSY = "busy"


class StoreFault(StoreError, sqlite3.OperationalError):
    """A database failure with a user-facing sentence; ``kind`` is one of the constants above."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def fault_for(exc: sqlite3.Error, path: Path, busy_s: float = 10.0) -> StoreFault | None:
    """The sentence for ``exc`` on the database at ``path``, or None when it is not the user's to fix."""
    if isinstance(exc, StoreFault):
        return exc
    if isinstance(exc, (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError)):
        return None
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    text = str(exc)
    low = text.lower()
    if name == "SQLITE_FULL" or "disk is full" in low:
        return StoreFault(f"the disk holding {path} is full; free some space and run again.", FULL)
    if name.startswith("SQLITE_READONLY") or "readonly database" in low or "read-only" in low:
        return StoreFault(f"the database {path} is read-only (the file or its folder cannot be written); make both "
                          "writable or choose another file with --db.", READONLY)
    if name == "SQLITE_NOTADB" or "file is not a database" in low:
        return StoreFault(f"{path} is not a readable PlayCoder database (it is not an SQLite file, or it is "
                          "encrypted or damaged); choose another file with --db.", DAMAGED)
    if name.startswith("SQLITE_CORRUPT") or "malformed" in low:
        return StoreFault(f"the database {path} is damaged ({_detail(text)}); restore a backup of it or choose "
                          "another file with --db.", DAMAGED)
    if name.startswith("SQLITE_CANTOPEN") or "unable to open database" in low:
        return StoreFault(f"the database {path} cannot be opened (its folder is missing or cannot be written); "
                          "choose another file with --db.", CANTOPEN)
    if name.startswith("SQLITE_IOERR") or "disk i/o error" in low:
        return StoreFault(f"the database {path} could not be read or written (disk I/O error: the disk may be full, "
                          "removed or failing); check it and run again.", IO)
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "database is locked" in low:
        return StoreFault(f"the database {path} stayed locked by another program for more than {busy_s:g} s; try "
                          "again when it is done.", BUSY)
    if "no such table" in low or "no such column" in low:
        return StoreFault(f"{path} is an SQLite file but not a PlayCoder database ({_detail(text)}); choose another "
                          "file with --db.", FOREIGN)
    return None


def _detail(text: str) -> str:
    return (text.strip().rstrip(".").splitlines() or ["?"])[0][:120]


class GuardedCursor(sqlite3.Cursor):
    """A cursor whose failures are :class:`StoreFault` sentences when the user can fix them."""

    def _fault(self, exc: sqlite3.Error) -> BaseException:
        conn = self.connection
        path = conn.store_path if isinstance(conn, GuardedConnection) else Path("?")
        return fault_for(exc, path) or exc

    def execute(self, sql: str, parameters: Any = (), /) -> GuardedCursor:
        try:
            super().execute(sql, parameters)
        except sqlite3.Error as exc:
            raise self._fault(exc) from exc
        return self

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> GuardedCursor:
        try:
            super().executemany(sql, seq_of_parameters)
        except sqlite3.Error as exc:
            raise self._fault(exc) from exc
        return self

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.Error as exc:
            raise self._fault(exc) from exc

    def fetchmany(self, size: int | None = 1) -> list[Any]:
        try:
            return super().fetchmany(size if size is not None else self.arraysize)
        except sqlite3.Error as exc:
            raise self._fault(exc) from exc

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.Error as exc:
            raise self._fault(exc) from exc

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.Error as exc:
            raise self._fault(exc) from exc


class GuardedConnection(sqlite3.Connection):
    """``sqlite3.connect(..., factory=GuardedConnection)``; set :attr:`store_path` for the sentences."""

    store_path: Path = Path("?")

    def cursor(self, factory: Any = None) -> Any:
        return super().cursor(factory or GuardedCursor)

    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> Any:
        return self.cursor().executemany(sql, parameters)

    def commit(self) -> None:
        try:
            super().commit()
        except sqlite3.Error as exc:
            raise (fault_for(exc, self.store_path) or exc) from exc
