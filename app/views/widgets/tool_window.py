"""ToolWindow: a separate workbench window (labelling, agreement dashboard, repair sessions).

It hosts one view and, when given one, owns the view's own database
connection, which it closes with the window.  Separate connections let the
main window switch databases while a dashboard stays readable, and let the
labelling window write labels without sharing a connection with the run views.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QMainWindow, QWidget

from app.views.model.database import Database
from app.views.widgets.screen_fit import fit_to_screen


class ToolWindow(QMainWindow):
    sig_closed = Signal()
    """Emitted once when the window closed (its owned database is closed already)."""

    def __init__(self, view: QWidget, parent: QWidget | None = None, *, owned_database: Database | None = None,
                 size: tuple[int, int] = (1200, 800)) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.view = view
        self._database = owned_database
        self._closed = False
        self.setCentralWidget(view)
        self.setWindowTitle(view.windowTitle())
        view.windowTitleChanged.connect(self.setWindowTitle)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Close), self, self.close)
        fit_to_screen(self, size)  # never larger than the screen's available area

    @property
    def closed(self) -> bool:
        return self._closed

    def closeEvent(self, event: QCloseEvent) -> None:
        super().closeEvent(event)
        if not event.isAccepted() or self._closed:
            return
        self._closed = True
        self.view.setEnabled(False)  # nothing may reach the database between here and the deferred delete
        if self._database is not None:
            self._database.close()
            self._database = None
        self.sig_closed.emit()
