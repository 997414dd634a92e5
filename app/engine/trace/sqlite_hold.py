"""The connection policy every store keeps: the database stays "in use" in the eyes of other processes.

SQLite tells other processes that a WAL database is open by POSIX locks: a
read lock on the database file's shared-lock bytes and one on the ``-shm``
file's "dead man switch" byte.  A process closing its last connection
checkpoints and deletes the ``-wal`` and ``-shm`` files when it can take
those bytes for itself; a process opening the ``-shm`` re-initialises it
when it can.  POSIX locks belong to a *process*, and closing *any* file
descriptor of the file in that process drops them all: a file dialog of the
workbench that glances at ``runs.db`` (its icon, its type) or at
``runs.db-shm`` silently took the workbench's locks away, and the next
command-line run deleted the files the workbench still had open.  From then
on the workbench read a database nobody wrote to, and saw "malformed" and
"disk I/O error" where there was nothing wrong.

So each open store also holds the same two bytes with *open file
description* locks (Linux ``F_OFD_SETLK``): they conflict with other
processes' POSIX locks exactly as SQLite's own do, but no other descriptor's
close can drop them.  One :class:`Hold` per database file and process, shared
by the process's stores (counted); the last store to close lets go before its
connection closes, so the last connection anywhere still tidies up as
SQLite intends.  Where the locks are not available (not Linux) there is no
hold and SQLite's own locking is all there is.
"""

from __future__ import annotations

import fcntl
import logging
import os
import struct
import threading
from pathlib import Path

log = logging.getLogger(__name__)

PENDING_BYTE = 0x40000000
SHARED_FIRST = PENDING_BYTE + 2
SHARED_SIZE = 510
"""SQLite's unix VFS: the bytes a connection read-locks while the database is open in WAL mode."""
SHM_DMS_BYTE = 128
"""SQLite's unix VFS: the ``-shm`` byte every process using the wal-index holds a read lock on."""

_OFD_SETLK: int | None = getattr(fcntl, "F_OFD_SETLK", None)
_FLOCK = "@hhqqi4x"
"""struct flock on Linux (l_type, l_whence, l_start, l_len, l_pid; padded to its C size)."""

_lock = threading.Lock()
_holds: dict[tuple[int, int], Hold] = {}


class Hold:
    """Read locks on the database's in-use bytes, for as long as some store of this process has it open."""

    def __init__(self, key: tuple[int, int], fds: list[int]) -> None:
        self.key = key
        self.fds = fds
        self.users = 0

    def _let_go(self) -> None:
        for fd in self.fds:
            try:
                _ofd_lock(fd, fcntl.F_UNLCK, 0, 0)
            except OSError:
                log.debug("unlocking a hold failed", exc_info=True)

    def close_files(self) -> None:
        """Close the descriptors; only once no connection of this process has the file open any more
        (closing one drops the process's POSIX locks on the file)."""
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds = []


def hold(db: Path) -> Hold | None:
    """Hold ``db`` (a WAL database a connection of this process has just opened) as in use; None when it
    cannot be held here (no OFD locks, the file or its ``-shm`` cannot be opened: SQLite's locks remain)."""
    if _OFD_SETLK is None:
        return None
    shm = Path(f"{db}-shm")
    if not shm.exists():
        return None  # not in WAL mode: nothing to tidy away behind the workbench's back
    try:
        key = _key(db)
    except OSError:
        return None
    with _lock:
        held = _holds.get(key)
        if held is None:
            held = _take(db, shm, key)
            _holds[key] = held
        held.users += 1
        return held


def let_go(held: Hold | None) -> None:
    """One store of this process no longer holds the file; the last one unlocks (before its connection
    closes, so that closing the last connection anywhere still checkpoints and removes ``-wal``)."""
    if held is None:
        return
    with _lock:
        held.users -= 1
        if held.users > 0:
            return
        held._let_go()
        _holds.pop(held.key, None)


def after_close(held: Hold | None) -> None:
    """The store's connection is closed: the descriptors of a hold nobody uses any more are closed too."""
    if held is None:
        return
    with _lock:
        if held.users <= 0 and held.key not in _holds:
            held.close_files()


def _take(db: Path, shm: Path, key: tuple[int, int]) -> Hold:
    """Open and lock what can be; what was opened stays open until :func:`after_close` either way (closing a
    descriptor now would drop the locks the caller's fresh connection holds)."""
    held = Hold(key, [])
    try:
        held.fds.append(os.open(db, os.O_RDONLY | os.O_CLOEXEC))
        _ofd_lock(held.fds[0], fcntl.F_RDLCK, SHARED_FIRST, SHARED_SIZE)
        held.fds.append(os.open(shm, os.O_RDONLY | os.O_CLOEXEC))
        _ofd_lock(held.fds[1], fcntl.F_RDLCK, SHM_DMS_BYTE, 1)
    except OSError as exc:
        log.debug("cannot hold %s open: %s", db, exc)
    return held


def _key(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


def _ofd_lock(fd: int, kind: int, start: int, length: int) -> None:
    assert _OFD_SETLK is not None
    fcntl.fcntl(fd, _OFD_SETLK, struct.pack(_FLOCK, kind, os.SEEK_SET, start, length, 0))
