"""The workbench survives PySide6 builds that drop references to None/True/False (app/views/none_guard.py)."""

from __future__ import annotations

import subprocess
import sys

from views_support import ROOT

PAINT_LOOP = r"""
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
import app.views  # installs the guard before any Qt call
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication
app = QApplication([])
image = QImage(64, 64, QImage.Format.Format_RGB32)
p = QPainter(image)
for _ in range(50_000):  # far more void calls than None's natural reference count
    p.save(); p.setPen(QColor("red")); p.restore()
    QImage().loadFromData(b"not an image")  # returns False
p.end()
print("alive")
"""


def test_many_void_qt_calls_do_not_kill_the_interpreter():
    out = subprocess.run([sys.executable, "-c", PAINT_LOOP], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "alive"
