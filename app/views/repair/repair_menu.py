"""RepairMenu: Repair › Repair sessions… (Ctrl+R) — the RepairView on the open database, in its own window.

``app/views/repair/repair_view.py`` is developed on its own; the import is guarded so
a copy without it (or with a half-written one) still opens the workbench, with
the menu item disabled and a tooltip that says why.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMainWindow, QWidget

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
    def __init__(self, window: QMainWindow, show_message: Callable[[str], None],
                 view_class: Callable[[Any], QWidget] | None = None) -> None:
        super().__init__(window)
        self.main = window
        self._show_message = show_message
        self.view_class = view_class
        self.window: ToolWindow | None = None

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
            window = ToolWindow(self.view_class(store), self.main, size=REPAIR_SIZE)
            window.setObjectName("RepairWindow")
            window.sig_closed.connect(self._on_window_closed)
            self.window = window
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

    def _on_window_closed(self) -> None:
        self.window = None
