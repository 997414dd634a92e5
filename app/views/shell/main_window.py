"""The workbench window: run browser on the left, the open run on the right, live runs on top.

MainWindow only assembles the window: the views bind themselves to the
workbench model (the one broadcast: the open database, the run shown, the
live state, what work changed), and the commands live in small controllers
beside it (:mod:`live_controls`, :mod:`run_commands`, :mod:`window_commands`,
:mod:`run_transfer`, the validation and repair menus).

:func:`run_gui` is the ``playcoder gui`` entry point.  Problems a user can
cause (a foreign database, a target that will not start, a bundle that does
not import) end in one message box with the error's sentence; unexpected
errors go through :class:`~app.views.shell.error_reporter.ErrorReporter`.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QMessageBox, QSplitter, QStackedWidget, QWidget

from app.engine.errors import StoreError
from app.paths import RESOURCES
from app.views.browser.run_browser_view import RunBrowserView
from app.views.labelling.validation_menu import ValidationMenu
from app.views.live.live_run import LiveRun
from app.views.live.run_request import RunRequest
from app.views.model.database import Database
from app.views.model.workbench_model import WorkbenchModel
from app.views.repair.repair_menu import UNAVAILABLE, RepairMenu, repair_view_class
from app.views.run.run_view import RunView
from app.views.shell.error_reporter import ErrorReporter, default_log_file
from app.views.shell.live_controls import LiveControls
from app.views.shell.quit_on_signals import QuitOnSignals
from app.views.shell.run_commands import RunCommands
from app.views.shell.run_transfer import RunTransfer
from app.views.shell.window_commands import APP_NAME, DB_FILTER, WindowCommands
from app.views.shell.window_menus import build_menus, build_toolbar
from app.views.shell.workbench_actions import WorkbenchActions
from app.views.widgets.long_task import running_tasks
from app.views.widgets.screen_fit import fit_to_screen

log = logging.getLogger(__name__)

__all__ = ["APP_NAME", "DB_FILTER", "DEFAULT_SIZE", "MainWindow", "STYLE_SHEET", "apply_style", "run_gui"]

STYLE_SHEET = RESOURCES / "workbench.qss"
DEFAULT_SIZE = (1400, 900)
"""The size asked for; :func:`fit_to_screen` makes it smaller on a smaller screen (or at a higher scaling)."""
RUNS_PAGE, BLINDED_PAGE = 0, 1
LAYOUT_KEY = "layout/run_view"
"""QSettings group of the run view's splitter positions."""
BLINDED_TEXT = ("Blinded labelling is open in its own window.\n\nThe run list and the run details stay hidden here "
                "until you close it.")


def apply_style(app: QApplication) -> None:
    app.setStyle("Fusion")
    if STYLE_SHEET.is_file():
        app.setStyleSheet(STYLE_SHEET.read_text(encoding="utf-8"))


def run_gui(db: Path, open_run: int | None = None) -> int:
    """Open the workbench on ``db`` (and run ``open_run``); returns the exit code."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setOrganizationName("PlayCoder")
    app.setApplicationName("Workbench")
    apply_style(app)
    reporter = ErrorReporter(default_log_file())
    reporter.install()
    window = MainWindow()
    reporter.parent = window
    signals = QuitOnSignals(window)
    signals.install()
    fit_to_screen(window, DEFAULT_SIZE)
    window.show()
    if window.open_database(Path(db)) and open_run is not None and not window.open_run(open_run):
        window.show_message(f"There is no run {open_run} in {db}.")
    try:
        code = int(app.exec())
        return signals.exit_code or code
    finally:
        signals.uninstall()
        reporter.uninstall()


class MainWindow(QMainWindow):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = WorkbenchModel()
        """The one broadcast: the open database, the run shown, the live state and what work changed."""
        self.db_path: Path | None = None
        self.messages: list[str] = []
        """Every message shown to the user, newest last (tests read it)."""
        self.modal_messages = True
        """False: record messages without opening a message box (tests, benchmarks)."""

        self.browser = RunBrowserView(self)
        self.run_view = RunView(self)
        splitter = QSplitter(self)
        splitter.addWidget(self.browser)
        splitter.addWidget(self.run_view)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([440, 960])
        splitter.setChildrenCollapsible(False)
        self.blinded_label = QLabel(BLINDED_TEXT, self)
        self.blinded_label.setObjectName("Muted")
        self.blinded_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.blinded_label.setWordWrap(True)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(splitter)
        self.pages.addWidget(self.blinded_label)
        self.setCentralWidget(self.pages)
        self.commands = WorkbenchActions(self)
        build_menus(self, self.commands)
        build_toolbar(self, self.commands)
        self.transfer = RunTransfer(self)
        self.validation = ValidationMenu(self, self)
        self.repair = RepairMenu(self, self.show_message, repair_view_class())
        self.live_controls = LiveControls(self, self, self.model, self.commands, self.run_view)
        self.run_commands = RunCommands(self, self.commands, self.run_view, self.browser, self.statusBar,
                                        lambda: self.pages.currentIndex() == BLINDED_PAGE)
        self.window_commands = WindowCommands(self, self, self.model, self.commands, validation=self.validation,
                                              repair=self.repair, browser=self.browser, header=self.run_view.header)
        a = self.commands
        a.export_run.triggered.connect(self.transfer.export_run)
        a.import_bundle.triggered.connect(self.transfer.import_bundle)
        a.export_report.triggered.connect(self.transfer.export_report)
        a.quit.triggered.connect(self.close)
        self.run_view.bind(self.model)
        self.browser.bind(self.model)
        self.model.events.database.connect(self._on_model_database_changed)
        self._restore_layout()
        self.set_blinded(False)
        self._on_model_database_changed(None)

    @property
    def database(self) -> Database | None:
        """The open database (the model's)."""
        return self.model.database

    @property
    def live(self) -> LiveRun | None:
        """The live run started here (running, or the last one)."""
        return self.live_controls.live

    # -- database and runs ---------------------------------------------------------------------
    def open_database(self, path: Path) -> bool:
        """Open ``path`` (created when missing); a foreign or corrupt file ends in one message."""
        try:
            self.model.open_database(Path(path))
        except StoreError as exc:
            self.show_message(str(exc))
            return False
        except OSError as exc:
            self.show_message(f"Cannot open {path}: {exc.strerror or exc}; choose a writable location.")
            return False
        self.statusBar().showMessage(f"{self.browser.model.rowCount()} runs in {path}", 5000)
        return True

    def new_database(self, path: Path) -> bool:
        """Create an empty database at ``path`` and open it; an existing file is never touched."""
        if path.exists():
            self.show_message(f"{path} already exists; open it with File › Open database… or choose a new name.")
            return False
        if not self.open_database(path):
            return False
        self.statusBar().showMessage(f"Created the empty database {path}", 5000)
        return True

    def open_run(self, run_id: int) -> bool:
        return self.browser.select_run(run_id)

    def current_run_id(self) -> int | None:
        """The run selected in the run list as it shows now (what File › Export acts on): a run the search or a
        filter hides is not exported, even when the run view still shows it."""
        return self.browser.current_run_id()

    def start_run(self, request: RunRequest) -> LiveRun | None:
        """Start a live run of ``request`` as an engine child process (one at a time)."""
        return self.live_controls.start_run(request)

    def live_active(self) -> bool:
        return self.live_controls.active

    def set_blinded(self, on: bool) -> None:
        """Hide (True) or show again the runs, verdicts and the commands that show them."""
        self.pages.setCurrentIndex(BLINDED_PAGE if on else RUNS_PAGE)
        for action in self.commands.revealing():
            action.setEnabled(not on)
        self.run_commands.offer()
        for action in (self.commands.repair_sessions, self.commands.new_repair, self.commands.present_repair,
                       self.commands.export_repair):
            action.setEnabled(not on and self.repair.available)
            if not self.repair.available:
                action.setToolTip(UNAVAILABLE)
        if on:
            self.run_view.replay.pause()
            self.repair.close()

    def show_message(self, text: str, *, title: str = APP_NAME, error: bool = True) -> None:
        self.messages.append(text)
        log.info("message: %s", text)
        if self.modal_messages:
            (QMessageBox.warning if error else QMessageBox.information)(self, title, text)
        else:
            self.statusBar().showMessage(text, 10000)

    def _on_model_database_changed(self, database: Database | None) -> None:
        if database is not None:
            self.db_path = database.path
        self.setWindowTitle(f"{APP_NAME} — {self.db_path}" if self.db_path else f"{APP_NAME} — no database")

    # -- layout and closing ----------------------------------------------------------------------
    def _restore_layout(self) -> None:
        """Put the run view's splitters where the user left them (frames enlarged stay enlarged)."""
        settings = QSettings()
        self.run_view.splits.restore({name: settings.value(f"{LAYOUT_KEY}/{name}")
                                      for name in self.run_view.splits.by_name})

    def closeEvent(self, event: QCloseEvent) -> None:
        settings = QSettings()
        for name, splitter in self.run_view.splits.by_name.items():
            settings.setValue(f"{LAYOUT_KEY}/{name}", splitter.saveState())
        self.run_view.replay.pause()
        self.validation.close_windows()
        self.repair.shutdown()
        self.repair.close()
        self.live_controls.shutdown()
        self.browser.stop_watching()
        for task in running_tasks():  # work off the GUI thread lets go of its files before the window goes
            task.cancel()
            task.wait()
        self.model.close_database()
        super().closeEvent(event)
