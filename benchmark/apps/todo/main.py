# SPDX-License-Identifier: GPL-3.0-or-later
"""Todo sample target for PlayCoder Workbench (Qt / PySide6).

Type a task and press Return (or click Add).  Click a checkbox to mark a task
done, "Delete done" removes the finished ones.  Up/Down select a task, Delete
removes the selected one, Escape clears the entry and the selection.
"""

import os
import sys
import traceback

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (QApplication, QHBoxLayout, QLabel, QLineEdit, QListWidget,
                               QListWidgetItem, QPushButton, QVBoxLayout, QWidget)

from todo_logic import TodoList, counter_text, next_row, sample_tasks

WIDTH, HEIGHT = 360, 420
TEXT_FG = "#23303f"
DONE_FG = "#9aa3ad"
LIST_BG = "#ffffff"
# No :hover rules anywhere, so moving the pointer never changes the picture.
STYLE = """
QWidget#root { background: #eef1f5; }
QLabel#title { color: #23303f; font-size: 22px; font-weight: bold; }
QLabel#counter { color: #4a5866; font-size: 14px; }
QLineEdit { background: #ffffff; color: #23303f; border: 1px solid #b8c2cc; border-radius: 4px;
            padding: 4px 6px; font-size: 15px; selection-background-color: #bcd4f6; }
QPushButton { border: none; border-radius: 4px; padding: 6px 12px; font-size: 14px; font-weight: bold; }
QPushButton#add { background: #2f74d0; color: #ffffff; }
QPushButton#add:pressed { background: #245ca6; }
QPushButton#clear { background: #d2493f; color: #ffffff; }
QPushButton#clear:pressed { background: #a83a32; }
QListWidget { background: #ffffff; border: 1px solid #b8c2cc; border-radius: 4px; font-size: 15px;
              outline: none; }
QListWidget::item { padding: 4px 2px; border-bottom: 1px solid #edf0f3; }
QListWidget::item:selected { background: #d6e6fb; color: #23303f; }
"""


class KeyFilter(QObject):
    """Keys typed into the entry that act on the list instead."""

    def __init__(self, window):
        super().__init__()
        self.window = window

    def eventFilter(self, obj, event):
        if event.type() == QEvent.KeyPress:
            return self.window.on_key(event.key())
        return False


class TodoWindow(QWidget):
    def __init__(self, seed):
        super().__init__()
        self.todos = TodoList(sample_tasks(seed))
        self.setObjectName("root")
        self.setWindowTitle("Todo")
        self.setFixedSize(WIDTH, HEIGHT)
        self.setStyleSheet(STYLE)

        title = QLabel("My tasks")
        title.setObjectName("title")
        self.entry = QLineEdit()
        self.entry.setPlaceholderText("What needs doing?")
        self.entry.setMaxLength(80)
        self.add_button = QPushButton("Add")
        self.add_button.setObjectName("add")
        self.list = QListWidget()
        self.list.setFocusPolicy(Qt.NoFocus)
        self.list.setSelectionMode(QListWidget.SingleSelection)
        self.counter = QLabel("")
        self.counter.setObjectName("counter")
        self.clear_button = QPushButton("Delete done")
        self.clear_button.setObjectName("clear")
        for button in (self.add_button, self.clear_button):
            button.setFocusPolicy(Qt.NoFocus)
            button.setCursor(Qt.ArrowCursor)

        top = QHBoxLayout()
        top.addWidget(self.entry, 1)
        top.addWidget(self.add_button)
        bottom = QHBoxLayout()
        bottom.addWidget(self.counter, 1)
        bottom.addWidget(self.clear_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 12)
        layout.setSpacing(8)
        layout.addWidget(title)
        layout.addLayout(top)
        layout.addWidget(self.list, 1)
        layout.addLayout(bottom)

        self.key_filter = KeyFilter(self)
        self._connect()
        self.refresh()

    def _connect(self):
        self.entry.returnPressed.connect(self.add_task)
        self.add_button.clicked.connect(self.add_task)
        self.clear_button.clicked.connect(self.delete_done)
        self.list.itemChanged.connect(self.on_item_changed)
        self.entry.installEventFilter(self.key_filter)

    # -- actions -----------------------------------------------------------
    def add_task(self):
        index = self.todos.add(self.entry.text())
        self.entry.clear()
        if index is not None:
            self.refresh(select=-1)
            self.list.scrollToBottom()

    def delete_done(self):
        self.todos.delete_done()
        self.refresh(select=-1)

    def on_item_changed(self, item):
        row = self.list.row(item)
        self.todos.set_done(row, item.checkState() == Qt.Checked)
        self.refresh(select=self.list.currentRow())

    def on_key(self, key):
        """True when the key was used on the list (the entry does not see it)."""
        row = self.list.currentRow()
        if key in (Qt.Key_Up, Qt.Key_Down):
            step = -1 if key == Qt.Key_Up else 1
            self.refresh(select=next_row(row, len(self.todos), step))
            return True
        if key == Qt.Key_Delete and row >= 0:
            self.refresh(select=self.todos.remove(row))
            return True
        if key == Qt.Key_Escape:
            self.entry.clear()
            self.refresh(select=-1)
            return True
        return False

    # -- drawing -------------------------------------------------------------
    def refresh(self, select=None):
        """Rebuild the rows from the model; select is the row to highlight (-1: none)."""
        if select is None:
            select = self.list.currentRow()
        self.list.blockSignals(True)
        self.list.clear()
        for task in self.todos.tasks:
            item = QListWidgetItem(task.text)
            item.setFlags(Qt.ItemIsEnabled | Qt.ItemIsSelectable | Qt.ItemIsUserCheckable)
            item.setCheckState(Qt.Checked if task.done else Qt.Unchecked)
            font = QFont(self.list.font())
            font.setStrikeOut(task.done)
            item.setFont(font)
            item.setForeground(QColor(DONE_FG if task.done else TEXT_FG))
            self.list.addItem(item)
        if 0 <= select < self.list.count():
            self.list.setCurrentRow(select)
        else:
            self.list.setCurrentRow(-1)
            self.list.clearSelection()
        self.list.blockSignals(False)
        self.counter.setText(counter_text(self.todos.left()))


def fail_fast(exc_type, exc, tb):
    """An error in a slot ends the program instead of leaving a half-updated list."""
    traceback.print_exception(exc_type, exc, tb)
    sys.stderr.flush()
    QApplication.exit(1)


def main():
    seed = int(os.environ.get("PLAYCODER_SEED", "0"))
    print("todo started seed=%d" % seed, flush=True)
    sys.excepthook = fail_fast
    app = QApplication(sys.argv[:1])
    app.setStyle("Fusion")
    font = app.font()
    font.setFamily("DejaVu Sans")  # named, so every machine draws the same glyphs
    app.setFont(font)
    app.setCursorFlashTime(0)  # a steady text cursor: the idle window does not animate
    window = TodoWindow(seed)
    window.show()
    window.raise_()
    window.activateWindow()
    window.entry.setFocus()
    QTimer.singleShot(100, window.activateWindow)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
