"""The workbench window: run browser on the left, the open run on the right, live runs on top.

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
from PySide6.QtWidgets import (
    QApplication, QFileDialog, QLabel, QMainWindow, QMessageBox, QSplitter, QStackedWidget, QToolBar, QToolButton,
    QWidget,
)

from app.engine.errors import StoreError
from app.views.model.changes import Changes
from app.views.model.database import Database
from app.views.model.run_offers import run_offers
from app.views.model.workbench_model import WorkbenchModel
from app.engine.play.events import FindingRaised, RunFinished, RunStarted, StepRecorded
from app.engine.trace.repair_plays import REPAIR_KIND, REPAIR_PLAY_KIND
from app.paths import RESOURCES
from app.views.engine_bridge import connect_handlers
from app.views.shell.error_reporter import ErrorReporter, default_log_file
from app.views.live.live_run import FINISHED, LiveRun
from app.views.live.new_run_dialog import NewRunDialog
from app.views.live.new_target_view import open_new_target
from app.views.shell.quit_on_signals import QuitOnSignals
from app.views.repair.repair_menu import UNAVAILABLE, RepairMenu, repair_view_class
from app.views.browser.run_browser_view import RunBrowserView
from app.views.live.run_request import RunRequest
from app.views.shell.run_transfer import RunTransfer
from app.views.run.run_header_view import LIVE_PAGE
from app.views.run.case_recorder_view import open_recorder
from app.views.run.run_view import RunView
from app.views.settings.llm_preferences import LLMPreferences
from app.views.settings.settings_dialog import SettingsDialog
from app.views.labelling.validation_menu import ValidationMenu
from app.views.shell.workbench_actions import WorkbenchActions
from app.views.widgets.long_task import running_tasks
from app.views.widgets.screen_fit import fit_to_screen

log = logging.getLogger(__name__)

APP_NAME = "PlayCoder Workbench"
STYLE_SHEET = RESOURCES / "workbench.qss"
DEFAULT_SIZE = (1400, 900)
"""The size asked for; :func:`fit_to_screen` makes it smaller on a smaller screen (or at a higher scaling)."""
DB_FILTER = "PlayCoder databases (*.db *.sqlite *.sqlite3);;All files (*)"
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
        """The open database, the run shown and the live state (views get the database from it)."""
        self.db_path: Path | None = None
        self.live: LiveRun | None = None
        self._list_echo: frozenset[int] = frozenset()
        """Runs whose change the run list is re-reading for the model (its report of them is not news)."""
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
        self.transfer = RunTransfer(self)
        self.validation = ValidationMenu(self, self)
        self.repair = RepairMenu(self, self.show_message, repair_view_class())
        self._build_menus()
        self._build_toolbar()
        self.live_label = QLabel(self)
        self.live_label.setObjectName("LiveStatus")
        self.statusBar().addPermanentWidget(self.live_label)
        self._connect()
        self._restore_layout()
        self.commands.set_live_controls(None)
        self.set_blinded(False)
        self._update_title()

    # -- construction ------------------------------------------------------------------------
    def _build_menus(self) -> None:
        a, bar = self.commands, self.menuBar()
        file_menu = bar.addMenu("&File")
        for action in (a.new_run, a.new_target, a.open_db, a.new_db, None, a.export_run, a.import_bundle, a.export_report, None, a.quit):
            file_menu.addSeparator() if action is None else file_menu.addAction(action)
        bar.addMenu("&Edit").addAction(a.settings)
        run_menu = bar.addMenu("&Run")
        for action in (a.pause, a.step, a.stop, a.take_over, a.record_case, None, a.replay, None, a.undo_override):
            run_menu.addSeparator() if action is None else run_menu.addAction(action)
        view_menu = bar.addMenu("&View")
        for action in (a.show_browser, a.show_film, None, a.previous_step, a.next_step, a.first_step, a.last_step,
                       None, a.zoom_fit, a.refresh):
            view_menu.addSeparator() if action is None else view_menu.addAction(action)
        validation_menu = bar.addMenu("Va&lidation")
        for action in (a.new_validation_set, None, a.annotate, a.agreement):
            validation_menu.addSeparator() if action is None else validation_menu.addAction(action)
        repair_menu = bar.addMenu("Re&pair")
        for action in (a.new_repair, a.repair_sessions, None, a.present_repair, a.export_repair):
            repair_menu.addSeparator() if action is None else repair_menu.addAction(action)
        bar.addMenu("&Help").addAction(a.about)

    def _build_toolbar(self) -> None:
        a = self.commands
        bar = QToolBar("Main", self)
        bar.setObjectName("MainToolBar")
        bar.setMovable(False)
        for action in (a.new_run, None, a.pause, a.step, a.stop, a.take_over, None, a.first_step, a.previous_step, a.replay):
            bar.addSeparator() if action is None else bar.addAction(action)
        bar.addWidget(a.speed)
        for action in (a.next_step, a.last_step):
            bar.addAction(action)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for action in (a.first_step, a.previous_step, a.next_step, a.last_step):
            button = bar.widgetForAction(action)
            if isinstance(button, QToolButton):
                button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        self.addToolBar(bar)

    def _connect(self) -> None:
        a, rv = self.commands, self.run_view
        a.new_run.triggered.connect(self._on_new_run_triggered)
        a.new_target.triggered.connect(lambda: open_new_target(self))
        a.open_db.triggered.connect(self._on_open_db_triggered)
        a.new_db.triggered.connect(self._on_new_db_triggered)
        a.export_run.triggered.connect(self.transfer.export_run)
        a.import_bundle.triggered.connect(self.transfer.import_bundle)
        a.export_report.triggered.connect(self.transfer.export_report)
        self.transfer.sig_run_imported.connect(self._on_transfer_run_imported)
        a.quit.triggered.connect(self.close)
        a.settings.triggered.connect(self._on_settings_triggered)
        a.new_validation_set.triggered.connect(self.validation.new_set)
        a.annotate.triggered.connect(self.validation.annotate)
        a.agreement.triggered.connect(self.validation.open_dashboard)
        a.repair_sessions.triggered.connect(self._on_repair_triggered)
        a.new_repair.triggered.connect(self._on_new_repair_triggered)
        a.present_repair.triggered.connect(lambda: self.repair.present(self.database, self._repair_title()))
        a.export_repair.triggered.connect(lambda: self.repair.export_report(self.database, self._repair_title()))
        self.validation.sig_blinding_changed.connect(self._on_validation_blinding_changed)
        a.pause.triggered.connect(self._on_pause_triggered)
        a.step.triggered.connect(self._on_step_triggered)
        a.stop.triggered.connect(self._on_stop_triggered)
        a.take_over.toggled.connect(self._on_take_over_toggled)
        a.record_case.triggered.connect(self._on_record_case_triggered)
        rv.live.sig_takeover_changed.connect(self._on_live_view_takeover_changed)
        a.replay.triggered.connect(self._on_replay_triggered)
        a.undo_override.triggered.connect(rv.verdict.undo)
        rv.verdict.sig_undo_available.connect(self._on_verdict_undo_available)
        rv.header.sig_repair_requested.connect(self._on_header_repair_requested)
        a.show_browser.toggled.connect(self.browser.setVisible)
        a.show_film.toggled.connect(rv.film.setVisible)
        a.previous_step.triggered.connect(rv.previous_step)
        a.next_step.triggered.connect(rv.next_step)
        a.first_step.triggered.connect(rv.first_step)
        a.last_step.triggered.connect(rv.last_step)
        a.zoom_fit.triggered.connect(rv.zoom_to_fit)
        a.refresh.triggered.connect(self.browser.refresh)
        a.about.triggered.connect(self._on_about_triggered)
        a.speed.currentIndexChanged.connect(self._on_speed_changed)
        rv.replay.sig_playing_changed.connect(self._on_replay_playing_changed)
        rv.sig_changed.connect(self.model.apply)
        rv.bind(self.model)
        self.model.events.changed.connect(self._on_model_changed)
        self.model.events.database.connect(self._on_model_database_changed)
        rv.sig_step_changed.connect(self._on_run_view_step_changed)
        self.browser.sig_run_selected.connect(self._on_browser_run_selected)
        self.browser.sig_run_activated.connect(self._on_browser_run_activated)
        self.browser.sig_runs_changed.connect(self._on_browser_runs_changed)

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

    def open_run(self, run_id: int) -> bool:
        return self.browser.select_run(run_id)

    def start_run(self, request: RunRequest) -> LiveRun | None:
        """Start a live run of ``request`` as an engine child process (one at a time)."""
        if self.db_path is None:
            self.show_message("Open a database first (File › Open database…).")
            return None
        if self.live is not None and self.live.active:
            self.show_message("A run is already going; stop it (Esc) before starting another.")
            return None
        if self.live is not None:
            self.live.deleteLater()
        live = self.live = LiveRun(request, self.db_path, self)
        connect_handlers(live.bridge, self, prefix="_on_live_")
        live.sig_state_changed.connect(self._on_live_state_changed)
        live.sig_notice.connect(self._on_live_notice)
        live.attach_view(self.run_view.live)
        live.start()
        return live

    def _on_live_notice(self, text: str) -> None:
        self.messages.append(text)
        self.statusBar().showMessage(text, 15000)

    def live_active(self) -> bool:
        return self.live is not None and self.live.active

    def set_blinded(self, on: bool) -> None:
        """Hide (True) or show again the runs, verdicts and the commands that show them."""
        self.pages.setCurrentIndex(BLINDED_PAGE if on else RUNS_PAGE)
        for action in self.commands.revealing():
            action.setEnabled(not on)
        self.commands.undo_override.setEnabled(not on and self.run_view.verdict.can_undo)
        self._offer_replay()
        for action in (self.commands.repair_sessions, self.commands.new_repair, self.commands.present_repair,
                       self.commands.export_repair):
            action.setEnabled(not on and self.repair.available)
            if not self.repair.available:
                action.setToolTip(UNAVAILABLE)
        if on:
            self.run_view.replay.pause()
            self.repair.close()

    def current_run_id(self) -> int | None:
        """The run selected in the run list as it shows now (what File › Export acts on): a run the search or a
        filter hides is not exported, even when the run view still shows it."""
        return self.browser.current_run_id()

    def show_message(self, text: str, *, title: str = APP_NAME, error: bool = True) -> None:
        self.messages.append(text)
        log.info("message: %s", text)
        if self.modal_messages:
            (QMessageBox.warning if error else QMessageBox.information)(self, title, text)
        else:
            self.statusBar().showMessage(text, 10000)

    def _restore_layout(self) -> None:
        """Put the run view's splitters where the user left them (frames enlarged stay enlarged)."""
        settings = QSettings()
        self.run_view.restore_splitters({name: settings.value(f"{LAYOUT_KEY}/{name}")
                                         for name in self.run_view.splitters()})

    def _save_layout(self) -> None:
        settings = QSettings()
        for name, splitter in self.run_view.splitters().items():
            settings.setValue(f"{LAYOUT_KEY}/{name}", splitter.saveState())

    def closeEvent(self, event: QCloseEvent) -> None:
        self._save_layout()
        self.run_view.replay.pause()
        self.validation.close_windows()
        self.repair.shutdown()
        self.repair.close()
        if self.live is not None:
            self.live.shutdown()
        self.browser.stop_watching()
        for task in running_tasks():  # work off the GUI thread lets go of its files before the window goes
            task.cancel()
            task.wait()
        self.model.close_database()
        super().closeEvent(event)

    @property
    def database(self) -> Database | None:
        """The open database (the model's)."""
        return self.model.database

    def _on_model_database_changed(self, database: Database | None) -> None:
        if database is None:  # closing: the views go with the window
            return
        self.db_path = database.path
        self.run_view.set_database(database)
        self.browser.set_database(database)
        self.repair.set_database(database, self._repair_title())
        self._update_title()

    def _on_model_changed(self, changes: Changes) -> None:
        """The run list reads again (the run view follows the model itself); the runs of ``changes`` it will
        find changed are not news to pass back to the model."""
        if changes.listed or not (changes.verdict or changes.run_list or changes.runs):
            return
        self._list_echo = changes.runs
        try:
            self.browser.refresh()
        finally:
            self._list_echo = frozenset()

    def _repair_title(self) -> str:
        return f"Repair sessions — {self.db_path}"

    def _update_title(self) -> None:
        self.setWindowTitle(f"{APP_NAME} — {self.db_path}" if self.db_path else f"{APP_NAME} — no database")

    # -- menu handlers ---------------------------------------------------------------------------
    def _on_new_run_triggered(self) -> None:
        dialog = NewRunDialog(self)
        if dialog.exec() and (request := dialog.request()) is not None:
            self.start_run(request)

    def _on_settings_triggered(self) -> None:
        dialog = SettingsDialog(QSettings(), self)
        if dialog.exec():
            self.statusBar().showMessage("Settings saved.", 5000)

    def _on_repair_triggered(self) -> None:
        self.repair.open(self.database, self._repair_title())

    def _on_new_repair_triggered(self) -> None:
        prefs = LLMPreferences.load(QSettings())
        self.repair.new_repair(self.database, self._repair_title(),
                               {"provider": prefs.provider, "model": prefs.model, "base_url": prefs.base_url})

    def _on_validation_blinding_changed(self, on: bool) -> None:
        self.set_blinded(on)
        if not on and self.database is not None:  # a promoted label is a new human judgment
            self.model.apply(Changes(verdict=True, labels=True))

    def _on_open_db_triggered(self) -> None:
        if self.live is not None and self.live.active:
            self.show_message("Stop the live run (Esc) before opening another database.")
            return
        start = str(self.db_path.parent) if self.db_path else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open database", start, DB_FILTER)
        if path:
            self.open_database(Path(path))

    def _on_new_db_triggered(self) -> None:
        if self.live is not None and self.live.active:
            self.show_message("Stop the live run (Esc) before opening another database.")
            return
        start = str(self.db_path.parent / "new.db") if self.db_path else "new.db"
        path, _ = QFileDialog.getSaveFileName(self, "New database", start, DB_FILTER,
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        if path:
            self.new_database(Path(path))

    def new_database(self, path: Path) -> bool:
        """Create an empty database at ``path`` and open it; an existing file is never touched."""
        if path.exists():
            self.show_message(f"{path} already exists; open it with File › Open database… or choose a new name.")
            return False
        if not self.open_database(path):
            return False
        self.statusBar().showMessage(f"Created the empty database {path}", 5000)
        return True

    def _on_transfer_run_imported(self, run_id: int) -> None:
        self.model.apply(Changes(run_list=True, added=run_id))  # the list reads again
        self.browser.select_run(run_id)

    def _on_about_triggered(self) -> None:
        QMessageBox.about(self, f"About {APP_NAME}",
                          f"<b>{APP_NAME}</b><p>Test GUI programs by playing them: watch and steer live runs, "
                          "replay trajectories, judge verdicts.</p><p>Licensed under the GNU GPL, version 3 or "
                          f"later.</p><p>Database: {self.db_path or '—'}</p>")

    # -- run-control and replay handlers ------------------------------------------------------------
    def _on_pause_triggered(self) -> None:
        if self.live is not None:
            self.live.toggle_pause()

    def _on_step_triggered(self) -> None:
        if self.live is not None:
            self.live.step()

    def _on_stop_triggered(self) -> None:
        if self.live is not None:
            self.live.stop()

    def _on_record_case_triggered(self) -> None:
        """Record a [[script]] case from the live run's take-over steps (or the run shown)."""
        live = self.live if self.live is not None and self.live.run_id is not None else None
        problem = open_recorder(self, self.db_path, live.run_id if live else self.run_view.run_id,
                                live.bridge if live else None)
        if problem:
            self.show_message(problem)

    def _on_take_over_toggled(self, on: bool) -> None:
        if on:
            self.run_view.show_page(LIVE_PAGE)
        if self.run_view.live.set_takeover(on) != on:
            self.commands.take_over.setChecked(False)  # not paused: no take-over

    def _on_live_view_takeover_changed(self, on: bool) -> None:
        self.commands.take_over.setChecked(on)
        if self.live is not None and self.live.active:
            self._on_live_state_changed(self.live.state)

    def _on_replay_triggered(self) -> None:
        self.run_view.replay.toggle(self.run_view.current_row())

    def _on_speed_changed(self, _index: int) -> None:
        self.run_view.replay.set_speed(float(self.commands.speed.currentData()))

    def _on_replay_playing_changed(self, playing: bool) -> None:
        self.commands.set_replaying(playing, self.style())

    # -- view handlers -------------------------------------------------------------------------------
    def _on_browser_run_selected(self, run_id: int) -> None:
        if run_id != self.run_view.run_id:
            self.run_view.open_run(run_id)
            self.model.select_run(run_id)

    def _on_browser_run_activated(self, run_id: int, clicked: bool) -> None:
        """A click on a repair session's row, or Enter / a double click on it or one of its plays: the repair."""
        row = self.browser.run_row(run_id) or {}
        if row.get("kind") == REPAIR_KIND:
            self._on_header_repair_requested(run_id, -1)
        elif row.get("kind") == REPAIR_PLAY_KIND and not clicked and row.get("repair_run") is not None:
            iteration = row.get("repair_iteration")
            self._on_header_repair_requested(int(row["repair_run"]), int(iteration) if iteration else -1)

    def _on_header_repair_requested(self, session: int, iteration: int) -> None:
        if self.repair.available:
            self.repair.open(self.database, self._repair_title(), session, iteration)
        else:
            self.show_message(UNAVAILABLE)

    def _offer_replay(self) -> None:
        """Replay is offered for a run with steps (and not while a blinded labelling window is open)."""
        offers = run_offers(self.run_view.run, self.run_view.model.available)
        self.commands.replay.setEnabled(offers.replay and self.pages.currentIndex() == RUNS_PAGE)

    def _on_verdict_undo_available(self, available: bool) -> None:
        self.commands.undo_override.setEnabled(available and self.pages.currentIndex() == RUNS_PAGE)

    def _on_run_view_step_changed(self, row: int) -> None:
        total = self.run_view.model.available
        self._offer_replay()
        self.statusBar().showMessage(f"Step {row + 1} of {total}" if row >= 0 else "")

    def _on_browser_runs_changed(self, run_ids: set[int]) -> None:
        """The run list re-read rows that changed (another process wrote them, or F5): the model and every view
        that shows one of them follow."""
        news = frozenset(run_ids) - self._list_echo
        if news:
            self.model.apply(Changes(runs=news, listed=True))

    # -- live-run handlers ------------------------------------------------------------------------------
    def _on_live_run_started(self, event: RunStarted) -> None:
        self.model.set_live(event.run_id, self.live.state if self.live is not None else None)
        self.browser.refresh()
        self.browser.select_run(event.run_id)

    def _on_live_step_recorded(self, event: StepRecorded) -> None:
        self.run_view.on_step_recorded(event)
        self.live_label.setText(f"● run #{event.run_id} · step {event.idx + 1} · {self.live.state if self.live else ''}")

    def _on_live_finding_raised(self, event: FindingRaised) -> None:
        self.run_view.on_finding_raised(event.run_id)

    def _on_live_run_finished(self, event: RunFinished) -> None:
        self.model.apply(Changes(runs=frozenset({event.run_id}), run_list=True))
        self.model.set_live(None, None)
        text = f"Run {event.run_id} {event.status}: {event.verdict} after {event.steps} steps"
        self.statusBar().showMessage(text, 10000)
        if event.status == "error" and event.error:
            self.show_message(f"Run {event.run_id} ended with an error: {event.error}")

    def _on_live_engine_failed(self, message: str) -> None:
        self.show_message(message)

    def _on_live_process_ended(self, _exit_code: int) -> None:
        self.model.set_live(None, None)
        live_run = self.live.run_id if self.live is not None else None
        self.model.apply(Changes(runs=frozenset({live_run} if live_run is not None else ()), run_list=True))

    def _on_live_state_changed(self, state: str) -> None:
        live_run = self.live.run_id if self.live is not None and state != FINISHED else None
        self.model.set_live(live_run, None if state == FINISHED else state)  # the run view follows
        self.commands.set_live_controls(state, self.live.request.tester if self.live is not None else None)
        if state == FINISHED:
            self.live_label.setText("")
        else:
            run = f"run #{self.live.run_id} · " if self.live and self.live.run_id else ""
            mode = " · TAKE-OVER" if self.run_view.live.takeover else ""
            self.live_label.setText(f"● {run}{state}{mode}")
