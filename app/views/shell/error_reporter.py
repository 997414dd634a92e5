"""ErrorReporter: the workbench's ``sys.excepthook``: log, then one dialog, never a crash.

Qt calls Python slots and virtual methods from C++; an exception escaping
one lands in ``sys.excepthook``.  A :class:`~app.engine.errors.UserError`
is shown as its one sentence; anything else is an unexpected error, logged
with its traceback (to the log file) and summarised in a dialog whose
details hold the traceback.  Only one dialog is shown at a time; errors that
happen while it is open are logged only.
"""

from __future__ import annotations

import logging
import sys
import traceback
from pathlib import Path
from types import TracebackType
from typing import Any

import platformdirs
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from app.engine.errors import UserError

log = logging.getLogger("playcoder.workbench")
LOGGERS = ("playcoder", "app")
"""Loggers whose records also go to the workbench log file."""


def default_log_file() -> Path:
    return Path(platformdirs.user_log_dir("playcoder", appauthor=False)) / "workbench.log"


class ErrorReporter:
    def __init__(self, log_file: Path | None = None, *, show_dialogs: bool = True) -> None:
        self.log_file = log_file
        self.show_dialogs = show_dialogs
        self.parent: QWidget | None = None
        self.reported: list[BaseException] = []
        self._showing = False
        self._previous: Any = None
        self._handler: logging.Handler | None = None

    def install(self) -> None:
        """Become ``sys.excepthook`` and start logging to the log file (best effort)."""
        if self.log_file is not None:
            try:
                self.log_file.parent.mkdir(parents=True, exist_ok=True)
                self._handler = logging.FileHandler(self.log_file, encoding="utf-8")
            except OSError:
                self.log_file = None
            else:
                self._handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
                for name in LOGGERS:
                    logging.getLogger(name).addHandler(self._handler)
        self._previous = sys.excepthook
        sys.excepthook = self.hook

    def uninstall(self) -> None:
        if sys.excepthook == self.hook:
            sys.excepthook = self._previous or sys.__excepthook__
        if self._handler is not None:
            for name in LOGGERS:
                logging.getLogger(name).removeHandler(self._handler)
            self._handler.close()
            self._handler = None

    def hook(self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            app = QApplication.instance()
            if app is not None:
                app.quit()
            return
        self.reported.append(exc)
        if isinstance(exc, UserError):
            log.warning("%s", exc)
            self._show(QMessageBox.Icon.Warning, "PlayCoder", str(exc), "")
            return
        details = "".join(traceback.format_exception(exc_type, exc, tb))
        log.error("unexpected error\n%s", details)
        where = f" Details were written to {self.log_file}." if self.log_file else ""
        self._show(QMessageBox.Icon.Critical, "Unexpected error",
                   f"Something went wrong: {exc_type.__name__}: {exc}.{where} "
                   "The workbench keeps running; your runs are safe in the database.", details)

    def _show(self, icon: QMessageBox.Icon, title: str, text: str, details: str) -> None:
        if not self.show_dialogs or self._showing or QApplication.instance() is None:
            return
        self._showing = True
        try:
            box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self.parent)
            if details:
                box.setDetailedText(details)
            box.exec()
        finally:
            self._showing = False
