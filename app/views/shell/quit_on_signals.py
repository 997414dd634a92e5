"""QuitOnSignals: Ctrl-C, SIGTERM and SIGHUP close the workbench cleanly.

Python runs signal handlers only between bytecodes, and Qt's event loop is
C++: without help, ``kill`` or Ctrl-C would be ignored until the next Python
slot runs.  A short wake-up timer lets the interpreter run the handler, which
closes any modal dialog and the window (so a live run is stopped and its
engine shut down) and leaves every event loop.  A dialog's loop may be
running before the main one has started (a message shown while the window
opens): ``exit()`` ends only loops that run, so after a signal the timer
keeps asking every loop that starts later to end too.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication, QDialog, QWidget

WAKE_UP_MS = 200
"""How often the interpreter gets a chance to notice a pending signal."""
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
MAX_MODALS = 10
"""Modal dialogs closed per attempt (a dialog may open another as it closes)."""


class QuitOnSignals(QObject):
    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.received: int | None = None
        self._previous: dict[int, Any] = {}
        self._timer = QTimer(self)
        self._timer.setInterval(WAKE_UP_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in SIGNALS:
            self._previous[sig] = signal.signal(sig, self._on_signal)
        self._timer.start()

    def uninstall(self) -> None:
        self._timer.stop()
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()

    @property
    def exit_code(self) -> int | None:
        """128 + the signal number after a signal (the shell convention), else None."""
        return None if self.received is None else 128 + self.received

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        self.received = signum
        self._quit()

    def _quit(self) -> None:
        for _ in range(MAX_MODALS):
            modal = QApplication.activeModalWidget()
            if modal is None:
                break
            if isinstance(modal, QDialog):
                modal.done(QDialog.DialogCode.Rejected)
            modal.close()
        self.window.close()
        app = QApplication.instance()
        if app is not None:
            app.exit(self.exit_code or 0)

    def _on_timer_timeout(self) -> None:
        """Returning to Python lets a pending signal handler run; after a signal, end loops started since."""
        if self.received is not None:
            self._quit()
