"""A little disk space held beside the database while a run writes, given back when the disk fills.

SQLite in WAL mode needs fresh space in the -wal file for every commit, even
for the one-row update that closes a run.  When the disk fills, that closing
update would fail too and leave the run 'running'.  So a writing store holds
:data:`RESERVE_BYTES` in a hidden file next to the database, and lets it go
the moment a write finds the disk full: the run row can then be closed.  The
reserve is best effort (a disk already full, a folder that refuses it: no
reserve) and is removed on close; one left by a killed process is removed by
the next writer.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

import psutil

RESERVE_BYTES = 256 * 1024
"""Far more than closing a run needs (a few 4 KiB pages) and little enough to hold per writer."""
_CHUNK = 16 * 1024
_SHARE = 4
"""On a nearly full disk the reserve takes at most a quarter of what is free."""


class DiskReserve:
    def __init__(self, db: Path) -> None:
        self.db = db
        self.path = db.with_name(f".{db.name}.reserve-{os.getpid()}")
        self.held = False

    def hold(self) -> None:
        """Write the reserve file (once); never fails."""
        if self.held:
            return
        self._sweep()
        try:
            free = shutil.disk_usage(self.path.parent).free
            chunks = min(RESERVE_BYTES, free // _SHARE) // _CHUNK
            if chunks < 1:
                return
            with open(self.path, "wb") as fh:
                for _ in range(chunks):
                    fh.write(bytes(_CHUNK))
            self.held = True
        except OSError:
            self.held = True  # a partial file: remove it
            self.release()

    def release(self) -> bool:
        """Give the space back; True when there was some to give.

        Only a reserve this object holds: a second store on the same file in the same process
        (the film's) shares the file's name and must not take the run's reserve away."""
        had = self.held
        self.held = False
        if had:
            with contextlib.suppress(OSError):
                self.path.unlink(missing_ok=True)
        return had

    def _sweep(self) -> None:
        """Remove reserves of writers that are gone (killed before they could)."""
        for stale in self.db.parent.glob(f".{self.db.name}.reserve-*"):
            pid = stale.name.rpartition("-")[2]
            if pid.isdigit() and int(pid) != os.getpid() and not psutil.pid_exists(int(pid)):
                with contextlib.suppress(OSError):
                    stale.unlink()
