"""RepairMenu: Repair › New repair… and Repair sessions… (Ctrl+R) — the RepairView in its own window.

*New repair…* starts ``playcoder repair …`` as a child process through the
engine bridge, as live runs are started (the workbench never runs a target or
a patch itself), opens the repair window following the database, and shows
the command's progress lines there; *Stop repair* ends it with SIGTERM, so its
plays stop cleanly (killed after the bridge's grace time).  One repair runs at
a time; closing the workbench stops it.

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

from app.views.engine_bridge import EngineBridge
from app.views.repair.new_repair_dialog import NewRepairDialog, RepairRequest
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

    def __init__(self, window: QMainWindow, show_message: Callable[[str], None],
                 view_class: Callable[[Any], QWidget] | None = None) -> None:
        super().__init__(window)
        self.main = window
        self._show_message = show_message
        self.view_class = view_class
        self.window: ToolWindow | None = None
        self.process: EngineBridge | None = None
        """The repair running now, if any."""
        self.request: RepairRequest | None = None
        self._last_line = ""

    @property
    def available(self) -> bool:
        return self.view_class is not None

    def open(self, store: Any, title: str) -> ToolWindow | None:
        """Open (or bring up) the repair sessions of ``store``."""
        if self.view_class is None:
            self._show_message(UNAVAILABLE)
            return None
        if store is None:
            self._show_message("Open a database first (File › Open database…).")
            return None
        if self.window is None:
            view = self.view_class(store)
            window = ToolWindow(view, self.main, size=REPAIR_SIZE)
            window.setObjectName("RepairWindow")
            window.sig_closed.connect(self._on_window_closed)
            self.window = window
            follow = getattr(view, "follow", None)
            if callable(follow):
                follow(getattr(store, "path", None))
            stop = getattr(view, "sig_stop_requested", None)
            if stop is not None:
                stop.connect(self.stop_repair)
            if self.repairing:
                self._say("A repair is going…")
        self.window.setWindowTitle(title)
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()
        return self.window

    def set_store(self, store: Any, title: str) -> None:
        """Follow the main window to another database."""
        if self.window is not None:
            set_store = getattr(self.window.view, "set_store", None)
            if callable(set_store):
                set_store(store)
                self.window.setWindowTitle(title)
            else:
                self.window.close()

    def close(self) -> None:
        if self.window is not None:
            self.window.close()

    # -- a repair of our own ----------------------------------------------------------------
    @property
    def repairing(self) -> bool:
        return self.process is not None and self.process.running

    def new_repair(self, store: Any, title: str, llm: dict[str, str] | None = None) -> RepairRequest | None:
        """Repair › New repair…: ask what to repair, then :meth:`start_repair`."""
        if self.repairing:
            self._show_message("A repair is already going; stop it (Stop repair) before starting another.")
            return None
        if store is None:
            self._show_message("Open a database first (File › Open database…).")
            return None
        dialog = NewRepairDialog(self.main, llm=llm)
        if dialog.exec() != QDialog.DialogCode.Accepted or (request := dialog.request()) is None:
            return None
        return request if self.start_repair(request, store, title) else None

    def start_repair(self, request: RepairRequest, store: Any, title: str, *,
                     program: str | None = None, arguments: list[str] | None = None) -> bool:
        """Start ``request`` as a child process writing to ``store``'s file and open the window following it.
        (``program`` / ``arguments`` replace the command, for tests.)"""
        if self.repairing:
            self._show_message("A repair is already going; stop it (Stop repair) before starting another.")
            return False
        window = self.open(store, title)
        if window is None:
            return False
        db = Path(store.path)
        if self.process is not None:
            self.process.deleteLater()
        bridge = self.process = EngineBridge(self)
        self.request = request
        bridge.sig_line_printed.connect(self._on_process_line_printed)
        bridge.sig_engine_failed.connect(self._show_message)
        bridge.sig_process_ended.connect(self._on_process_ended)
        self._say(f"Repairing {request.target} ({request.refiner} refiner, at most {request.max_iterations} "
                  "cycles): starting…")
        bridge.start(arguments if arguments is not None else request.arguments(db), program=program)
        return True

    def stop_repair(self) -> None:
        if self.repairing and self.process is not None:
            self._say("Stopping the repair…")
            self.process.terminate()

    def shutdown(self) -> None:
        """Closing the workbench: stop the repair and wait for it (blocks up to ~4 s)."""
        if self.repairing and self.process is not None:
            self.process.shutdown(terminate=True)

    def _view(self) -> Any:
        return self.window.view if self.window is not None else None

    def _say(self, text: str | None) -> None:
        view = self._view()
        set_running = getattr(view, "set_running", None)
        if callable(set_running):
            set_running(text)

    def _on_process_line_printed(self, line: str) -> None:
        self._last_line = line
        target = self.request.target if self.request is not None else "the program"
        self._say(f"Repairing {target}: {line}")
        refresh = getattr(self._view(), "refresh", None)
        if callable(refresh):
            refresh()

    def _on_process_ended(self, exit_code: int) -> None:
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
        self.sig_repair_ended.emit(exit_code)

    def _on_window_closed(self) -> None:
        follow = getattr(self._view(), "follow", None)
        if callable(follow):
            follow(None)  # lets go of its own connection now, not at garbage collection
        self.window = None
