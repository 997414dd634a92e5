"""RunTransfer: File › Export run…, Import bundle… and Export HTML report….

The work is the engine's (:mod:`app.engine.trace.bundle`, :mod:`app.engine.trace.report`);
each function is imported when its menu entry is used, so the workbench still
opens when one of them is missing, and every error a user can cause (a corrupt
bundle, an unwritable folder) ends in one message with the error's sentence.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QStatusBar, QWidget

from app.engine.errors import UserError
from app.engine.trace.store import TrajectoryStore


class TransferHost(Protocol):
    """What RunTransfer needs of the window that owns it (the main window), without importing it."""

    store: TrajectoryStore | None

    def current_run_id(self) -> int | None: ...

    def show_message(self, text: str) -> None: ...

    def statusBar(self) -> QStatusBar: ...

STATUS_MS = 8000
BUNDLE_FILTER = "PlayCoder bundle (*.zip)"


class RunTransfer(QObject):
    sig_run_imported = Signal(int)
    """Emitted with the new run id after a bundle was imported."""

    def __init__(self, window: TransferHost) -> None:
        super().__init__(window if isinstance(window, QObject) else None)
        self.window = window

    def _parent(self) -> QWidget | None:
        return self.window if isinstance(self.window, QWidget) else None

    def export_run(self) -> None:
        run_id = self.window.current_run_id()
        if self.window.store is None or run_id is None:
            self.window.show_message("Select a run to export first.")
            return
        path, _ = QFileDialog.getSaveFileName(self._parent(), "Export run", f"run-{run_id}.zip", BUNDLE_FILTER)
        if path:
            self._call("app.engine.trace.bundle", "export_bundle", "export runs", self.window.store, run_id, Path(path),
                       done=f"Exported run {run_id} to {path}")

    def import_bundle(self) -> None:
        if self.window.store is None:
            self.window.show_message("Open a database first (File › Open database…).")
            return
        path, _ = QFileDialog.getOpenFileName(self._parent(), "Import bundle", "", BUNDLE_FILTER)
        if not path:
            return
        new_id = self._call("app.engine.trace.bundle", "import_bundle", "import bundles", self.window.store, Path(path),
                            done=f"Imported {path}")
        if isinstance(new_id, int):
            self.sig_run_imported.emit(new_id)

    def export_report(self) -> None:
        run_id = self.window.current_run_id()
        if self.window.store is None or run_id is None:
            self.window.show_message("Select a run to write a report for first.")
            return
        path, _ = QFileDialog.getSaveFileName(self._parent(), "Export HTML report", f"run-{run_id}.html", "HTML (*.html)")
        if path:
            self._call("app.engine.trace.report", "write_html_report", "write reports", self.window.store, run_id,
                       Path(path), done=f"Wrote the report of run {run_id} to {path}")

    def _call(self, module: str, name: str, what: str, *args: Any, done: str) -> Any:
        """Call ``module.name(*args)``; None (after one message) when it is missing or fails for the user."""
        try:
            func = getattr(importlib.import_module(module), name)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise  # a bug inside the module: the error reporter shows it
            self.window.show_message(f"This version of PlayCoder cannot {what} yet ({module} is missing).")
            return None
        try:
            result = func(*args)
        except UserError as exc:
            self.window.show_message(str(exc))
            return None
        except OSError as exc:
            self.window.show_message(f"{exc.strerror or exc}: {exc.filename or ''}; choose another file.")
            return None
        self.window.statusBar().showMessage(done, STATUS_MS)
        return result
