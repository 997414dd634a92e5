"""RunTransfer: File › Export run…, Import bundle… and Export HTML report….

The work is the engine's (:mod:`app.engine.trace.bundle`, :mod:`app.engine.trace.report`);
each function is imported when its menu entry is used, so the workbench still
opens when one of them is missing.  It runs through the long-work helper
(:mod:`app.views.widgets.long_task`): off the GUI thread, on a database
connection of its own, with a progress dialog that can cancel it (an import
cancelled mid-way rolls back whole).  Every error a user can cause (a corrupt
bundle, an unwritable folder) ends in one message with the error's sentence.
One transfer runs at a time.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Callable, Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QStatusBar, QWidget

from app.views.model.changes import Changes
from app.views.model.database import Database
from app.views.model.transfers import TransferWork, exporting, importing
from app.views.model.workbench_model import WorkbenchModel
from app.views.widgets.long_task import CANCELLED, FAILED, FINISHED, LongTask, TaskControl, run_long_task


class TransferHost(Protocol):
    """What RunTransfer needs of the window that owns it (the main window), without importing it."""

    model: WorkbenchModel

    @property
    def database(self) -> Database | None: ...

    def current_run_id(self) -> int | None: ...

    def show_message(self, text: str) -> None: ...

    def statusBar(self) -> QStatusBar: ...

STATUS_MS = 8000
BUNDLE_FILTER = "PlayCoder bundle (*.zip)"


class RunTransfer(QObject):
    sig_task_ended = Signal(str)
    """Emitted with the outcome (finished, failed, cancelled) when a transfer's work ended, after its message."""

    def __init__(self, window: TransferHost) -> None:
        super().__init__(window if isinstance(window, QObject) else None)
        self.window = window
        self.task: LongTask | None = None
        """The transfer going on, if any."""

    def _parent(self) -> QWidget | None:
        return self.window if isinstance(self.window, QWidget) else None

    def export_run(self) -> None:
        run_id = self.window.current_run_id()
        if self.window.database is None or run_id is None:
            self.window.show_message("Select a run to export first.")
            return
        path, _ = QFileDialog.getSaveFileName(self._parent(), "Export run", f"run-{run_id}.zip", BUNDLE_FILTER)
        if path:
            self._start("app.engine.trace.bundle", "export_bundle", "export runs",
                        lambda export: exporting(export, run_id, Path(path)), readonly=True,
                        label=f"Exporting run {run_id} to {Path(path).name}…", done=f"Exported run {run_id} to {path}",
                        doing=f"export run {run_id}")

    def import_bundle(self) -> None:
        if self.window.database is None:
            self.window.show_message("Open a database first (File › Open database…).")
            return
        path, _ = QFileDialog.getOpenFileName(self._parent(), "Import bundle", "", BUNDLE_FILTER)
        if not path:
            return
        self._start("app.engine.trace.bundle", "import_bundle", "import bundles",
                    lambda read: importing(read, Path(path)), readonly=False,
                    label=f"Importing {Path(path).name}…", done=f"Imported {path}",
                    doing=f"import {Path(path).name}")

    def export_report(self) -> None:
        run_id = self.window.current_run_id()
        if self.window.database is None or run_id is None:
            self.window.show_message("Select a run to write a report for first.")
            return
        path, _ = QFileDialog.getSaveFileName(self._parent(), "Export HTML report", f"run-{run_id}.html", "HTML (*.html)")
        if path:
            self._start("app.engine.trace.report", "write_html_report", "write reports",
                        lambda write: exporting(write, run_id, Path(path)), readonly=True, label=f"Writing the report of run {run_id}…",
                        done=f"Wrote the report of run {run_id} to {path}", doing=f"write the report of run {run_id}")

    def _start(self, module: str, name: str, what: str, make: Callable[[Any], TransferWork], *, readonly: bool,
               label: str, done: str, doing: str) -> LongTask | None:
        """Run ``make(module.name)``, the transfer's work with the engine function, off the GUI thread on a
        connection of its own, and tell the workbench model what it changed; None (after one message) when the
        function is missing, no database is open or another transfer is going.

        ``what`` completes "cannot … yet", ``doing`` completes "Could not …" in a failure sentence."""
        if self.task is not None and self.task.running:
            self.window.show_message(f"{self.task.label.rstrip('…')} is still going; wait for it or cancel it.")
            return None
        database = self.window.database
        if database is None or database.path is None:
            self.window.show_message("Open a database first (File › Open database…).")
            return None
        try:
            func = getattr(importlib.import_module(module), name)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise  # a bug inside the module: the error reporter shows it
            self.window.show_message(f"This version of PlayCoder cannot {what} yet ({module} is missing).")
            return None
        db, transfer = database.path, make(func)

        def work(control: TaskControl) -> Changes:
            return transfer(control.open_database(db, readonly=readonly))

        def finished(changes: Changes) -> None:
            self.window.statusBar().showMessage(done, STATUS_MS)
            self.window.model.apply(changes, initiator=self)
            self.sig_task_ended.emit(FINISHED)

        def failed(sentence: str) -> None:
            self.window.show_message(sentence)
            self.sig_task_ended.emit(FAILED)

        def cancelled() -> None:
            self.window.statusBar().showMessage(f"Cancelled: {label.rstrip('…')}; nothing was written.", STATUS_MS)
            self.sig_task_ended.emit(CANCELLED)

        self.task = run_long_task(work, what=doing, label=label,
                                  parent=self._parent(), on_finished=finished, on_failed=failed,
                                  on_cancelled=cancelled)
        return self.task
