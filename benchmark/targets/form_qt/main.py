"""Benchmark target: a static 800×600 Qt form; letter keys change a label, nothing animates (form800's twin)."""
import sys

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget


class Form(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle("Form Qt")
        self.setFixedSize(800, 600)
        self.count = 0
        layout = QVBoxLayout(self)
        self.status = QLabel("ready")
        self.status.setFont(QFont("DejaVu Sans", 18))
        layout.addWidget(self.status)
        grid = QGridLayout()
        for row in range(6):
            for col in range(5):
                grid.addWidget(QPushButton(f"B{row}{col}"), row, col)
        layout.addLayout(grid)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        self.count += 1
        self.status.setText(f"key {event.text()} #{self.count}")


app = QApplication(sys.argv)
form = Form()
form.move(0, 0)
form.show()
sys.exit(app.exec())
