"""RepairMenu: Repair › New repair… and Repair sessions… (Ctrl+R) — the RepairView in its own window.

*New repair…* starts ``playcoder repair … --events -`` as a child process
(:class:`~app.views.repair.repair_run.RepairRun`, through the engine bridge),
as live runs are started (the workbench never runs a target or a patch
itself), and opens the repair window following the database and attached to
the run: each play shows live, each diagnosis and patch as soon as it is
made, each cycle when recorded.  *Pause* / *Resume* are control lines; *Stop
repair* ends it with SIGTERM, so its plays stop cleanly (killed after the
bridge's grace time).  One repair runs at a time; closing the workbench stops
it.  *Export repair report…* and *Present repair…* act on the repair window.

``app/views/repair/repair_view.py`` is developed on its own; the import is guarded so
a copy without it (or with a half-written one) still opens the workbench, with
the menu item disabled and a tooltip that says why.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QDialog, QMainWindow, QWidget

from app.engine.repair.events import RepairFinished
from app.views.model.changes import run_changed
from app.views.repair.new_repair_dialog import NewRepairDialog, RepairRequest
from app.views.engine_bridge import PAUSED
from app.views.repair.repair_run import RepairRun
from app.views.widgets.tool_window import ToolWindow

log = logging.getLogger(__name__)

REPAIR_SIZE = (1300, 850)
UNAVAILABLE = "The repair view is not available in this copy of PlayCoder."


def repair_view_class() -> Callable[[Any], QWidget] | None:
    """RepairView when app/views/repair/repair_view.py is installed and imports cleanly; None otherwise."""
    try:
        from app.views.repair.repair_view import RepairView
    except Exception as exc:  # an optional, separately developed module must never break the main window
        log.info("the repair view is not available: %s", exc)
        return None
    return RepairView


class RepairMenu(QObject):
    sig_repair_ended = Signal(int)
    """Emitted with the exit code when a repair started here ended (0 fixed, 1 not fixed, 2 could not run)."""
    sig_changed = Signal(object)
    """Emitted with the :class:`~app.views.model.changes.Changes` of a repair started here (its session and plays
    were added to the database), when it ended."""

    def __init__(self, window: QMainWindow, show_message: Callable[[str], None],
                 view_class: Callable[[Any], QWidget] | None = None) -> None:
        super().__init__(window)
        self.main = window
        self._show_message = show_message
        self.view_class = view_class
        self.window: ToolWindow | None = None
        self.run: RepairRun | None = None
        """The repair started here (running, or the last one)."""
        self.request: RepairRequest | None = None
        self._last_line = ""

    @property
    def available(self) -> bool:
        return self.view_class is not None

    def open(self, database: Any, title: str, session: int | None = None, iteration: int = -1) -> ToolWindow | None:
        """Open (or bring up) the repair sessions of ``database`` (at ``session``'s cycle ``iteration``, if given)."""
        if self.view_class is None:
            self._show_message(UNAVAILABLE)
            return None
        if database is None:
            self._show_message("Open a database first (File › Open database…).")
            return None
        if self.window is None:
            view = self.view_class(database)
            window = ToolWindow(view, self.main, size=REPAIR_SIZE)
            window.setObjectName("RepairWindow")
            window.sig_closed.connect(self._on_window_closed)
            self.window = window
            follow = getattr(view, "follow", None)
            if callable(follow):
                follow(getattr(database, "path", None))
            stop = getattr(view, "sig_stop_requested", None)
            if stop is not None:
                stop.connect(self.stop_repair)
            if self.repairing:
                self._attach(self.run)
                self._say("A repair is going…")
        self.window.setWindowTitle(title)
        show_session = getattr(self.window.view, "show_session", None)
        if session is not None and callable(show_session):
            show_session(session, iteration)
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()
        return self.window

    def set_database(self, database: Any, title: str) -> None:
        """Follow the main window to another database."""
        if self.window is not None:
            set_database = getattr(self.window.view, "set_database", None)
            if callable(set_database):
                set_database(database)
                self.window.setWindowTitle(title)
            else:
                self.window.close()

    def close(self) -> None:
        if self.window is not None:
            self.window.close()

    # -- a repair of our own ----------------------------------------------------------------
    @property
    def repairing(self) -> bool:
        return self.run is not None and self.run.running

    def new_repair(self, database: Any, title: str, llm: dict[str, str] | None = None) -> RepairRequest | None:
        """Repair › New repair…: ask what to repair, then :meth:`start_repair`."""
        if self.repairing:
            self._show_message("A repair is already going; stop it (Stop repair) before starting another.")
            return None
        if database is None:
            self._show_message("Open a database first (File › Open database…).")
            return None
        dialog = NewRepairDialog(self.main, llm=llm)
        if dialog.exec() != QDialog.DialogCode.Accepted or (request := dialog.request()) is None:
            return None
        return request if self.start_repair(request, database, title) else None

    def start_repair(self, request: RepairRequest, database: Any, title: str, *,
                     program: str | None = None, arguments: list[str] | None = None) -> bool:
        """Start ``request`` as a child process writing to ``database``'s file and open the window following it.
        (``program`` / ``arguments`` replace the command, for tests.)"""
        if self.repairing:
            self._show_message("A repair is already going; stop it (Stop repair) before starting another.")
            return False
        window = self.open(database, title)
        if window is None:
            return False
        db = Path(database.path)
        if self.run is not None:
            self.run.deleteLater()
        run = self.run = RepairRun(self)
        self.request = request
        self._last_line = ""
        run.sig_line_printed.connect(self._on_process_line_printed)
        run.sig_progress_changed.connect(self._on_run_progress_changed)
        run.sig_state_changed.connect(self._on_run_progress_changed)
        run.sig_repair_finished.connect(self._on_run_repair_finished)
        run.bridge.sig_engine_failed.connect(self._show_message)
        run.bridge.sig_process_ended.connect(self._on_process_ended)
        self._attach(run)
        self._say(f"Repairing {request.target} ({request.refiner} refiner, at most {request.max_iterations} "
                  "cycles): starting…")
        run.start(arguments if arguments is not None else request.arguments(db), program=program)
        return True

    def pause_repair(self) -> None:
        """Pause or resume the repair running now (at its next checkpoint)."""
        if self.repairing and self.run is not None:
            self.run.toggle_pause()

    def stop_repair(self) -> None:
        if self.repairing and self.run is not None:
            self._say("Stopping the repair…")
            self.run.stop()

    def shutdown(self) -> None:
        """Closing the workbench: stop the repair and wait for it (blocks up to ~4 s)."""
        if self.repairing and self.run is not None:
            self.run.shutdown()

    def export_report(self, database: Any, title: str) -> None:
        """Repair › Export repair report…: the repair window's session as HTML (opens the window if needed)."""
        window = self.open(database, title)
        export = getattr(window.view, "export_report", None) if window is not None else None
        if callable(export):
            export()

    def present(self, database: Any, title: str) -> None:
        """Repair › Present repair…: the repair window's presentation mode."""
        window = self.open(database, title)
        present = getattr(window.view, "present", None) if window is not None else None
        if callable(present):
            present()

    def _attach(self, run: RepairRun | None) -> None:
        attach = getattr(self._view(), "attach_run", None)
        if callable(attach):
            attach(run)

    def _view(self) -> Any:
        return self.window.view if self.window is not None else None

    def _say(self, text: str | None) -> None:
        view = self._view()
        set_running = getattr(view, "set_running", None)
        if callable(set_running):
            set_running(text)

    def _on_run_progress_changed(self, *_args: Any) -> None:
        run = self.run
        if run is None or not run.running:
            return
        target = self.request.target if self.request is not None else "the program"
        progress = run.progress
        text = (progress.text if progress is not None and progress.text else run.last_text) or "starting…"
        if progress is not None and progress.play_run is not None and not progress.play_ended:
            text += f" — step {progress.play_steps} of run {progress.play_run}"
        if run.state == PAUSED:
            text += " — PAUSED"
        elif run.state == "stopping":
            text = "stopping…"
        self._say(f"Repairing {target}: {text}")

    def _on_run_repair_finished(self, event: RepairFinished) -> None:
        self._last_line = event.reason
        self.sig_changed.emit(run_changed(event.session_run, listed=True))

    def _on_process_line_printed(self, line: str) -> None:
        self._last_line = line
        target = self.request.target if self.request is not None else "the program"
        self._say(f"Repairing {target}: {line}")
        refresh = getattr(self._view(), "refresh", None)
        if callable(refresh):
            refresh()

    def _on_process_ended(self, exit_code: int) -> None:
        self._attach(None)
        self._say(None)
        refresh = getattr(self._view(), "refresh_now", None)
        if callable(refresh):
            refresh()
        target = self.request.target if self.request is not None else "the program"
        state = {0: "fixed", 1: "not fixed"}.get(exit_code, "ended")
        message = f"The repair of {target} {state}" + (f": {self._last_line}" if self._last_line else ".")
        status = getattr(self.main, "statusBar", None)
        if callable(status):
            status().showMessage(message, 15000)
        self.sig_changed.emit(run_changed(None, listed=True))  # whatever it wrote before it ended
        self.sig_repair_ended.emit(exit_code)

    def _on_window_closed(self) -> None:
        self._attach(None)  # the repair goes on; the window that showed it is gone
        follow = getattr(self._view(), "follow", None)
        if callable(follow):
            follow(None)  # lets go of its own connection now, not at garbage collection
        self.window = None
