"""ControlKeys: Space, N and Esc control a live run wherever the focus is, a text field included.

A text field (the run list's search box has the focus at start-up and after
the New run dialog) claims every printable key for itself through Qt's
``ShortcutOverride``, so Space typed a space and the run kept going.  While an
action is enabled (a live run offers it), this filter refuses that claim for
its bare key, anywhere in the action's window, and the action fires.  A key
with Shift still goes to the field: Shift+Space types a space, Shift+N an N
(the search ignores case).  The live view in take-over keeps its own claim:
there every key is the target's.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget

from app.views.live.live_view import LiveView


class ControlKeys(QObject):
    def __init__(self, window: QWidget, actions: list[QAction]) -> None:
        super().__init__(window)
        self._window = window
        self._actions = actions
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    def _action_for(self, event: QKeyEvent) -> QAction | None:
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return None
        for action in self._actions:
            if action.isEnabled() and action.shortcut().count() == 1 \
                    and action.shortcut()[0].key() == Qt.Key(event.key()):  # type: ignore[index]
                return action
        return None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.ShortcutOverride or not isinstance(event, QKeyEvent):
            return False
        if not isinstance(watched, QWidget) or watched.window() is not self._window:
            return False
        if isinstance(watched, LiveView) and watched.takeover:  # in take-over its keys are the target's
            return False
        if self._action_for(event) is None:
            return False
        event.ignore()  # not the field's: Qt's shortcut map then triggers the action
        return True
