"""A PySide6 window for the inside channel's tests: a menu with a shortcut, a button, an entry, a timer."""

import sys

from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QMainWindow, QPushButton, QWidget

app = QApplication(sys.argv)
window = QMainWindow()
window.setWindowTitle("Inside Qt")
window.setFixedSize(320, 240)
window.move(0, 0)
central = QWidget()
window.setCentralWidget(central)
label = QLabel("ready", central)
label.setGeometry(20, 140, 200, 24)


def on_click():
    label.setText("clicked")


def on_new():
    label.setText("new")


class Board(QWidget):
    """Drawn and clicked by the program itself: no signal says it reacts."""

    def paintEvent(self, event):
        pass

    def mousePressEvent(self, event):
        label.setText("board")


board = Board(central)
board.setGeometry(200, 80, 100, 50)
button = QPushButton("Press", central)
button.setGeometry(20, 20, 100, 40)
button.clicked.connect(on_click)
entry = QLineEdit(central)
entry.setPlaceholderText("type here")
entry.setGeometry(20, 80, 150, 30)
new_action = QAction("&New", window)
new_action.setShortcut(QKeySequence("Ctrl+N"))
new_action.triggered.connect(on_new)
window.menuBar().addMenu("&File").addAction(new_action)
blink = QTimer()
blink.timeout.connect(lambda: label.setVisible(True))
blink.start(500)
window.show()
sys.exit(app.exec())
