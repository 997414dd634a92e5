"""LabellingKeys: the blinded labelling window's keys — they work wherever the focus is in the window, also
before any click, except while typing a note (which keeps its digits, arrows and Backspace)."""

from __future__ import annotations

from typing import Callable, Protocol

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QLineEdit, QWidget

LABEL_KEYS = {Qt.Key.Key_1: "pass", Qt.Key.Key_2: "fail", Qt.Key.Key_3: "unsure"}
NEXT_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
BACK_KEYS = (Qt.Key.Key_Backspace,)
STEP_KEYS = {Qt.Key.Key_Left: -1, Qt.Key.Key_Right: 1}
EDGE_KEYS = {Qt.Key.Key_Home: 0, Qt.Key.Key_End: -1}
"""Keys to the run's first (0) and last (-1) step."""
ITEM_KEYS = {Qt.Key.Key_PageUp: -1, Qt.Key.Key_PageDown: 1}


class Labelling(Protocol):
    """What the keys do in the labelling view, without importing it."""

    note_edit: QLineEdit

    def apply_label(self, label: str) -> None: ...

    def go_next(self) -> None: ...

    def go_back(self) -> None: ...

    def step_by(self, delta: int) -> None: ...

    def step_to(self, edge: int) -> None: ...

    def item_by(self, delta: int) -> None: ...

    def finish_note(self) -> None: ...

    def setFocus(self) -> None: ...


class LabellingKeys(QObject):
    def __init__(self, view: Labelling, widget: QWidget) -> None:
        """``view`` is ``widget``, the labelling view, seen through what its keys do."""
        super().__init__(widget)
        self.view = view
        actions: list[tuple[Qt.Key, Callable[[], None]]] = [
            *((k, lambda lab=lab: view.apply_label(lab)) for k, lab in LABEL_KEYS.items()),
            *((k, self._on_next_key) for k in NEXT_KEYS), *((k, view.go_back) for k in BACK_KEYS),
            *((k, lambda d=d: view.step_by(d)) for k, d in STEP_KEYS.items()),
            *((k, lambda e=e: view.step_to(e)) for k, e in EDGE_KEYS.items()),
            *((k, lambda d=d: view.item_by(d)) for k, d in ITEM_KEYS.items()),
        ]
        self.shortcuts: list[QShortcut] = []
        for key, slot in actions:
            shortcut = QShortcut(QKeySequence(key), widget)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(slot)
            self.shortcuts.append(shortcut)
        widget.installEventFilter(self)
        for child in widget.findChildren(QWidget):
            if not isinstance(child, QLineEdit):
                child.installEventFilter(self)
        view.note_edit.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        view, key = self.view, event.key()
        if watched is view.note_edit:
            if key == Qt.Key.Key_Escape:
                view.setFocus()
                return True
            if key in NEXT_KEYS:
                view.finish_note()
                return True
            return False
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        if key in LABEL_KEYS:
            view.apply_label(LABEL_KEYS[Qt.Key(key)])
        elif key in NEXT_KEYS:
            view.go_next()
        elif key in BACK_KEYS:
            view.go_back()
        elif key in STEP_KEYS:
            view.step_by(STEP_KEYS[Qt.Key(key)])
        elif key in EDGE_KEYS:
            view.step_to(EDGE_KEYS[Qt.Key(key)])
        elif key in ITEM_KEYS:
            view.item_by(ITEM_KEYS[Qt.Key(key)])
        else:
            return False
        return True

    def _on_next_key(self) -> None:
        if self.view.note_edit.hasFocus():
            self.view.finish_note()
        else:
            self.view.go_next()
