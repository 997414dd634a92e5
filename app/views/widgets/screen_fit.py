"""Fit a window to the screen it opens on: never larger than the available geometry, at any scaling.

A window asks for a comfortable size (the main window 1400×900, the repair
window 1300×850), but a 1280×800 laptop — or a 1920×1080 screen at 150 %,
which Qt reports as 1280×720 logical pixels — has less.  Sizes here are
logical pixels, the unit Qt's screen geometry uses, so the same clamp holds at
every device pixel ratio.  The title bar and borders the window manager adds
are outside a widget's geometry, so room is kept for them.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

DECORATION_ALLOWANCE = QSize(16, 48)
"""Room kept for a window manager's borders (width) and title bar plus borders (height) before the window
is shown and its real frame is known."""


def fitted_frame(wanted: QSize, available: QRect, decoration: QSize = DECORATION_ALLOWANCE) -> QRect:
    """The frame rectangle (window plus decoration) of a window whose content asks for ``wanted``: clamped
    into ``available`` and centred there."""
    width = max(1, min(wanted.width() + decoration.width(), available.width()))
    height = max(1, min(wanted.height() + decoration.height(), available.height()))
    left = available.left() + (available.width() - width) // 2
    top = available.top() + (available.height() - height) // 2
    return QRect(left, top, width, height)


def fit_to_screen(window: QWidget, wanted: tuple[int, int] | QSize) -> QRect:
    """Resize ``window`` to ``wanted`` or less so that it, frame included, fits its screen, and centre it.

    Returns the frame rectangle chosen.  A window already shown uses its real frame size."""
    size = wanted if isinstance(wanted, QSize) else QSize(*wanted)
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        window.resize(size)
        return QRect(0, 0, size.width(), size.height())
    decoration = DECORATION_ALLOWANCE
    if window.isVisible():
        frame, inner = window.frameGeometry(), window.geometry()
        if frame.width() > inner.width() or frame.height() > inner.height():
            decoration = QSize(frame.width() - inner.width(), frame.height() - inner.height())
    rect = fitted_frame(size, screen.availableGeometry(), decoration)
    window.resize(rect.width() - decoration.width(), rect.height() - decoration.height())
    window.move(rect.topLeft())
    return rect
