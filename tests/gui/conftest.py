"""The gui layer: Qt widgets driven with pytest-qt.  Qt draws offscreen unless a test sets its own platform
(a test that needs a real X server for its widgets uses the xvfb fixture and sets QT_QPA_PLATFORM itself)."""

from __future__ import annotations

import os

from suite import APPS, ROOT, TARGETS, needs_xvfb  # noqa: F401  (tests that import these from conftest)

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before pytest-qt makes the QApplication
