# SPDX-License-Identifier: GPL-3.0-or-later
"""Stopwatch sample target for PlayCoder Workbench (Qt / PySide6).

Space (or Start/Stop) starts and stops the watch, L (or Lap) records a lap
while it runs, R (or Reset) stops it and clears the time and the laps.  The
window only changes while the watch runs.
"""

import os
import sys
import time

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (QApplication, QHBoxLayout, QLabel, QListWidget, QPushButton,
                               QVBoxLayout, QWidget)

from stopwatch_logic import Stopwatch, action_for_key, format_time

WIDTH, HEIGHT = 320, 400
TICK_MS = 30
PANEL_BG = "#1d2630"
TIME_FG = "#f2f5f8"
START_BG, STOP_BG = "#2e9d57", "#e07b24"
# No :hover rules anywhere, so moving the pointer never changes the picture.
STYLE = """
QWidget#root { background: #e9edf1; }
QLabel#time { background: %(panel)s; color: %(time)s; border-radius: 8px;
              font-family: 'DejaVu Sans Mono'; font-size: 50px; font-weight: bold; }
QLabel#caption { color: #55616d; font-size: 13px; font-weight: bold; }
QLabel#hint { color: #6b7781; font-size: 12px; }
QPushButton { border: none; border-radius: 6px; color: #ffffff; font-size: 15px; font-weight: bold;
              padding: 9px 0px; }
QPushButton#toggle[running="false"] { background: %(start)s; }
QPushButton#toggle[running="true"] { background: %(stop)s; }
QPushButton#lap { background: #4a6a8a; }
QPushButton#reset { background: #c94c43; }
QListWidget { background: #ffffff; color: #24303c; border: 1px solid #c3ccd5; border-radius: 4px;
              font-family: 'DejaVu Sans Mono'; font-size: 14px; outline: none; }
QListWidget::item { padding: 3px 4px; }
""" % {"panel": PANEL_BG, "time": TIME_FG, "start": START_BG, "stop": STOP_BG}


class StopwatchWindow(QWidget):
    def __init__(self):
        super().__init__()
        self.watch = Stopwatch()
        self.setObjectName("root")
        self.setWindowTitle("Stopwatch")
        self.setFixedSize(WIDTH, HEIGHT)
        self.setStyleSheet(STYLE)
        self.setFocusPolicy(Qt.StrongFocus)

        self.time_label = QLabel(format_time(0))
        self.time_label.setObjectName("time")
        self.time_label.setAlignment(Qt.AlignCenter)
        self.time_label.setFixedHeight(100)
        self.toggle_button = QPushButton("Start")
        self.toggle_button.setObjectName("toggle")
        self.lap_button = QPushButton("Lap")
        self.lap_button.setObjectName("lap")
        self.reset_button = QPushButton("Reset")
        self.reset_button.setObjectName("reset")
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        for button in (self.toggle_button, self.lap_button, self.reset_button):
            button.setFocusPolicy(Qt.NoFocus)
            buttons.addWidget(button)
        caption = QLabel("LAPS")
        caption.setObjectName("caption")
        self.laps = QListWidget()
        self.laps.setFocusPolicy(Qt.NoFocus)
        self.laps.setSelectionMode(QListWidget.NoSelection)
        hint = QLabel("Space start/stop   L lap   R reset")
        hint.setObjectName("hint")
        hint.setAlignment(Qt.AlignCenter)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 8)
        layout.setSpacing(8)
        layout.addWidget(self.time_label)
        layout.addLayout(buttons)
        layout.addWidget(caption)
        layout.addWidget(self.laps, 1)
        layout.addWidget(hint)

        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)
        self._connect()
        self.refresh()

    def _connect(self):
        self.toggle_button.clicked.connect(self.toggle)
        self.lap_button.clicked.connect(self.lap)
        self.reset_button.clicked.connect(self.reset)
        self.keys_enabled = True

    def keyPressEvent(self, event):
        action = action_for_key(event.text()) if getattr(self, "keys_enabled", False) else None
        if action is None or event.isAutoRepeat():
            super().keyPressEvent(event)
            return
        getattr(self, action)()

    # -- actions -----------------------------------------------------------
    def toggle(self):
        running = self.watch.toggle(time.monotonic())
        if running:
            self.timer.start()
        else:
            self.timer.stop()
        self.refresh()

    def lap(self):
        lap = self.watch.lap(time.monotonic())
        if lap is not None:
            self.refresh()

    def reset(self):
        self.watch.reset()
        self.timer.stop()
        self.refresh()

    def tick(self):
        text = format_time(self.watch.elapsed(time.monotonic()))
        if text != self.time_label.text():
            self.time_label.setText(text)

    # -- drawing -------------------------------------------------------------
    def refresh(self):
        self.tick()
        running = "true" if self.watch.running else "false"
        if self.toggle_button.property("running") != running:
            self.toggle_button.setProperty("running", running)
            self.toggle_button.setText("Stop" if self.watch.running else "Start")
            self.toggle_button.style().unpolish(self.toggle_button)
            self.toggle_button.style().polish(self.toggle_button)
        rows = self.watch.rows()
        if rows != [self.laps.item(i).text() for i in range(self.laps.count())]:
            self.laps.clear()
            self.laps.addItems(rows)


def main():
    seed = int(os.environ.get("PLAYCODER_SEED", "0"))
    print("stopwatch started seed=%d" % seed, flush=True)
    app = QApplication(sys.argv[:1])
    app.setStyle("Fusion")
    font = app.font()
    font.setFamily("DejaVu Sans")  # named, so every machine draws the same glyphs
    app.setFont(font)
    window = StopwatchWindow()
    window.show()
    window.raise_()
    window.activateWindow()
    window.setFocus()
    QTimer.singleShot(100, window.activateWindow)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
