"""DatabaseChangeProbe: notice, for microseconds a look, that another connection committed to the database.

SQLite's ``PRAGMA data_version`` changes on a connection when any *other*
connection (any process: the command line, a bench, a live run, the
workbench's own main connection) committed since it last looked.  The probe
keeps one connection of its own for that and looks every :data:`POLL_MS`;
views that follow the database (the run list, the repair sessions) re-read
only when it says something changed.

The probe must never stop following: a file it cannot open now (another
process migrating it, a moment of BUSY) is opened again at the next look, a
look that fails drops the connection for a fresh one, and its connection
never sits inside a read transaction (``data_version`` would stand still).
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from app.views.model.database import READ_ERRORS, Database

log = logging.getLogger(__name__)

POLL_MS = 500
"""How often the probe looks (a view following it lags at most this)."""


class DatabaseChangeProbe(QObject):
    sig_changed = Signal()
    """Emitted when another connection committed to the database since the last look."""

    def __init__(self, parent: QObject | None = None, *, interval_ms: int = POLL_MS) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.check_now)
        self._database: Database | None = None
        self._seen: int | None = None
        self.path: Path | None = None

    def watch(self, path: Path | None) -> bool:
        """Look at the database at ``path`` from now on (None: nothing); False when it cannot be opened now
        (it is tried again at every look)."""
        self.stop()
        self.path = Path(path) if path is not None else None
        if self.path is None:
            return False
        self._timer.start()
        if not self._open():
            return False
        assert self._database is not None
        try:
            self._seen = self._database.data_version()
        except READ_ERRORS as exc:
            log.warning("cannot watch %s for changes yet: %s", self.path, exc)
            self._drop()
            return False
        return True

    def _open(self) -> bool:
        if self._database is None and self.path is not None:
            try:
                self._database = Database.open(self.path, readonly=True)
            except READ_ERRORS as exc:
                log.warning("cannot watch %s for changes yet: %s", self.path, exc)
                return False
        return self._database is not None

    def _drop(self) -> None:
        """Close the connection; the next look opens a fresh one and reports a change."""
        if self._database is not None:
            try:
                self._database.close()
            except READ_ERRORS:
                log.debug("closing the probe's connection failed", exc_info=True)
        self._database = None
        self._seen = None

    def stop(self) -> None:
        self._timer.stop()
        self._drop()

    @property
    def following(self) -> bool:
        """True while the probe looks at a database (its timer runs, whether or not the file opened yet)."""
        return self._timer.isActive()

    def forget(self) -> None:
        """Report a change at the next look (a read that failed must be done again)."""
        self._seen = None

    def check_now(self) -> bool:
        """Look now; True (and :attr:`sig_changed`) when the database changed."""
        if not self._open():
            return False
        assert self._database is not None
        try:
            self._database.end_read()
            version = self._database.data_version()
        except READ_ERRORS as exc:
            log.debug("data_version failed: %s", exc)
            self._drop()
            return False
        if version == self._seen:
            return False
        self._seen = version
        self.sig_changed.emit()
        return True
