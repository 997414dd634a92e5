"""Text fields (entries, lists, editors) told apart from other widgets: by their class, or by their
look, a bright and mostly uniform box of field size.

The explorer clicks into one before typed keys, so they reach a focused widget.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from app.engine.play.observer import Frame
from app.engine.play.xwidgets import Widget
from app.engine.testers.offline_widgets import DOWNSAMPLE, MAX_WIDGETS, Box

FIELD_LUMINANCE = 228
FIELD_SHARE = 0.6
FIELD_MIN = (30, 12)
"""A text field (entry, list, editor) looks like a bright, mostly uniform box at least this large."""
TEXT_CLASSES = ("entry", "text", "tentry", "spinbox", "tspinbox", "combobox", "tcombobox", "xmtext",
                "xmtextfield", "edit")


def _colour_keys(arr: np.ndarray) -> np.ndarray:
    q = arr[..., :3].astype(np.int32) // 16
    return np.asarray(q[..., 0] * 256 + q[..., 1] * 16 + q[..., 2])


def _bright(key: int) -> bool:
    b, g, r = (key // 256) * 16 + 8, ((key // 16) % 16) * 16 + 8, (key % 16) * 16 + 8  # frames are BGRX
    return 0.299 * r + 0.587 * g + 0.114 * b >= FIELD_LUMINANCE


def detect_fields(frame: Frame) -> list[Box]:
    """Boxes of bright, nearly uniform rectangles: text entries, lists and editors in an image.

    For windows that draw their widgets themselves: the light colours among the most common
    ones are labelled into connected regions, and solid, field-sized ones are kept.
    """
    keys = _colour_keys(frame.array()[::DOWNSAMPLE, ::DOWNSAMPLE])
    h, w = keys.shape
    counts = np.bincount(keys.ravel())
    min_w, min_h = FIELD_MIN[0] // DOWNSAMPLE, FIELD_MIN[1] // DOWNSAMPLE
    boxes: list[Box] = []
    for key in np.argsort(counts)[::-1][:4]:
        if counts[key] < min_w * min_h:
            break
        if not _bright(int(key)):
            continue
        labels, _ = ndimage.label(keys == key)
        for i, sl in enumerate(ndimage.find_objects(labels), 1):
            if sl is None:
                continue
            ys, xs = sl
            bw, bh = xs.stop - xs.start, ys.stop - ys.start
            if bw < min_w or bh < min_h or bw * bh > 0.7 * w * h:
                continue
            if (labels[sl] == i).sum() < 0.7 * bw * bh:
                continue
            boxes.append((xs.start * DOWNSAMPLE, ys.start * DOWNSAMPLE, xs.stop * DOWNSAMPLE, ys.stop * DOWNSAMPLE))
    boxes.sort(key=lambda b: (b[1], b[0]))
    return boxes[:MAX_WIDGETS]


def looks_like_field(frame: Frame, widget: Widget, by_look: bool = True) -> bool:
    """A text entry, list or editor: named so by its class, or (``by_look``) a bright, mostly uniform
    box of field size.  Games pass ``by_look=False``: their bright boxes are cells and cards."""
    if widget.cls.lower() in TEXT_CLASSES or widget.cls == "field":
        return True
    if not by_look:
        return False
    w, h = widget.width, widget.height
    if w < FIELD_MIN[0] or h < FIELD_MIN[1] or not (w >= 2.5 * h or w * h >= 0.05 * frame.width * frame.height):
        return False
    crop = frame.array()[max(0, widget.y0 + 2):max(0, widget.y1 - 2):2, max(0, widget.x0 + 2):max(0, widget.x1 - 2):2]
    if crop.size == 0:
        return False
    counts = np.bincount(_colour_keys(crop).ravel())
    top = int(counts.argmax())
    return bool(counts[top] >= FIELD_SHARE * crop.shape[0] * crop.shape[1] and _bright(top))
