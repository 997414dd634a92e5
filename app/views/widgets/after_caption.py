"""What the "after" pane says under a step's picture: the changed region, no change, or that the window was gone.

A capture of a window that is gone (the program crashed or exited during the
action) is one colour all over; the pane then says so instead of calling the
black picture a "changed region"."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QImage

WINDOW_GONE = "the window was gone after this action (nothing to show)"
CHANGED = "changed region highlighted"
UNCHANGED = "no visible change"


def window_gone(before: QImage | None, after: QImage | None) -> bool:
    """The picture after is blank while the one before was not: the window went away during the action."""
    return after is not None and is_blank(after) and before is not None and not is_blank(before)


def after_caption(before: QImage | None, after: QImage | None, bbox: object) -> str:
    if window_gone(before, after):
        return WINDOW_GONE
    return CHANGED if bbox else UNCHANGED


def is_blank(image: QImage) -> bool:
    """One colour all over: what a capture of a window that is gone shows (black, or the bare screen)."""
    if image.isNull():
        return True
    rgb = image.convertToFormat(QImage.Format.Format_RGB32)
    pixels = np.frombuffer(rgb.constBits(), np.uint32, rgb.sizeInBytes() // 4)
    return bool((pixels == pixels[0]).all())
