"""WindowCommands: the main window's File, Edit, Validation, Repair and Help commands that open a dialog or
another window.

Each command is a small handler here; what a command changed in the database
reaches the views through the workbench model (a repair started here, a label
promoted in the labelling window), never through the main window."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, QSettings
from PySide6.QtWidgets import QFileDialog, QMessageBox, QStatusBar, QWidget

from app.engine.trace.repair_plays import REPAIR_KIND, REPAIR_PLAY_KIND
from app.views.browser.run_browser_view import RunBrowserView
from app.views.labelling.validation_menu import ValidationMenu
from app.views.live.new_target_view import open_new_target
from app.views.model.workbench_model import WorkbenchModel
from app.views.repair.repair_menu import UNAVAILABLE, RepairMenu
from app.views.run.run_header_view import RunHeaderView
from app.views.settings.llm_preferences import LLMPreferences
from app.views.settings.settings_dialog import SettingsDialog
from app.views.shell.workbench_actions import WorkbenchActions

APP_NAME = "PlayCoder Workbench"
DB_FILTER = "PlayCoder databases (*.db *.sqlite *.sqlite3);;All files (*)"
STATUS_MS = 5000


class CommandsHost(Protocol):
    """What the commands need of the main window, without importing it."""

    def open_database(self, path: Path) -> bool: ...

    def new_database(self, path: Path) -> bool: ...

    def live_active(self) -> bool: ...

    def set_blinded(self, on: bool) -> None: ...

    def show_message(self, text: str) -> None: ...

    def statusBar(self) -> QStatusBar: ...


class WindowCommands(QObject):
    def __init__(self, window: QWidget, host: CommandsHost, model: WorkbenchModel, commands: WorkbenchActions,
                 *, validation: ValidationMenu, repair: RepairMenu, browser: RunBrowserView,
                 header: RunHeaderView) -> None:
        super().__init__(window)
        self.window, self.host, self.model, self.repair, self.browser = window, host, model, repair, browser
        a = commands
        a.new_target.triggered.connect(lambda: open_new_target(window))
        a.open_db.triggered.connect(self._on_open_db_triggered)
        a.new_db.triggered.connect(self._on_new_db_triggered)
        a.settings.triggered.connect(self._on_settings_triggered)
        a.about.triggered.connect(self._on_about_triggered)
        a.new_validation_set.triggered.connect(validation.new_set)
        a.annotate.triggered.connect(validation.annotate)
        a.agreement.triggered.connect(validation.open_dashboard)
        validation.sig_blinding_changed.connect(host.set_blinded)
        a.repair_sessions.triggered.connect(lambda: repair.open(model.database, self.repair_title()))
        a.new_repair.triggered.connect(self._on_new_repair_triggered)
        a.present_repair.triggered.connect(lambda: repair.present(model.database, self.repair_title()))
        a.export_repair.triggered.connect(lambda: repair.export_report(model.database, self.repair_title()))
        repair.sig_changed.connect(lambda changes: model.apply(changes, initiator=repair))
        header.sig_repair_requested.connect(self.open_repair)
        browser.sig_run_activated.connect(self._on_browser_run_activated)
        model.events.database.connect(self._on_model_database_changed)

    def repair_title(self) -> str:
        return f"Repair sessions — {self.model.path}"

    def open_repair(self, session: int, iteration: int) -> None:
        if self.repair.available:
            self.repair.open(self.model.database, self.repair_title(), session, iteration)
        else:
            self.host.show_message(UNAVAILABLE)

    def _on_model_database_changed(self, database: Any) -> None:
        if database is not None:
            self.repair.set_database(database, self.repair_title())

    def _on_open_db_triggered(self) -> None:
        if self.host.live_active():
            self.host.show_message("Stop the live run (Esc) before opening another database.")
            return
        path = self.model.path
        chosen, _ = QFileDialog.getOpenFileName(self.window, "Open database", str(path.parent) if path else "",
                                                DB_FILTER)
        if chosen:
            self.host.open_database(Path(chosen))

    def _on_new_db_triggered(self) -> None:
        if self.host.live_active():
            self.host.show_message("Stop the live run (Esc) before opening another database.")
            return
        path = self.model.path
        chosen, _ = QFileDialog.getSaveFileName(self.window, "New database",
                                                str(path.parent / "new.db") if path else "new.db", DB_FILTER,
                                                options=QFileDialog.Option.DontConfirmOverwrite)
        if chosen:
            self.host.new_database(Path(chosen))

    def _on_settings_triggered(self) -> None:
        dialog = SettingsDialog(QSettings(), self.window)
        if dialog.exec():
            self.host.statusBar().showMessage("Settings saved.", STATUS_MS)

    def _on_new_repair_triggered(self) -> None:
        prefs = LLMPreferences.load(QSettings())
        self.repair.new_repair(self.model.database, self.repair_title(),
                               {"provider": prefs.provider, "model": prefs.model, "base_url": prefs.base_url})

    def _on_browser_run_activated(self, run_id: int, clicked: bool) -> None:
        """A click on a repair session's row, or Enter / a double click on it or one of its plays: the repair."""
        row = self.browser.run_row(run_id) or {}
        if row.get("kind") == REPAIR_KIND:
            self.open_repair(run_id, -1)
        elif row.get("kind") == REPAIR_PLAY_KIND and not clicked and row.get("repair_run") is not None:
            iteration = row.get("repair_iteration")
            self.open_repair(int(row["repair_run"]), int(iteration) if iteration else -1)

    def _on_about_triggered(self) -> None:
        QMessageBox.about(self.window, f"About {APP_NAME}",
                          f"<b>{APP_NAME}</b><p>Test GUI programs by playing them: watch and steer live runs, "
                          "replay trajectories, judge verdicts.</p><p>Licensed under the GNU GPL, version 3 or "
                          f"later.</p><p>Database: {self.model.path or '—'}</p>")
