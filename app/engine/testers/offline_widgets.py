"""Widgets found in a window's image: blobs that stand out from its background colour.

For windows that draw their controls themselves (SDL/pygame, Qt) and for the inside of one X window
(a menubar's menus, a canvas's shapes, a list's rows).  A blob drawn straight onto the background is
a glyph (a title's letter), not a button.  Text fields are found in :mod:`offline_fields`.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from app.engine.play.observer import Frame
from app.engine.play.xwidgets import Widget

GLYPH_BG_SHARE = 0.2
"""A detected blob whose box is at least this much window background is a glyph, not a button
(title letters: 0.3-0.65; filled buttons: under 0.05)."""
MAX_WIDGETS = 24
MIN_WIDGET_PX = 6
BACKGROUND_TOLERANCE = 24
DOWNSAMPLE = 2
JOIN_PX = 6
BORDER_PX = 3
Box = tuple[int, int, int, int]
BORDER_SHARE = 0.5
"""The colour of at least this share of a window's edge is its background, however much of its middle is
covered (a board of turned cards, lighter than the window, covers more than half of it)."""


def _dominant(pixels: np.ndarray) -> tuple[int, float]:
    flat = (pixels // 16).reshape(-1, 3)
    counts = np.bincount(flat[:, 0] * 256 + flat[:, 1] * 16 + flat[:, 2])
    top = int(counts.argmax())
    return top, float(counts[top]) / max(1, len(flat))


def _background(arr: np.ndarray) -> np.ndarray:
    """The window's background colour (quantised to 16 levels a channel, the bin's middle): the one most of
    its edge shows, else the dominant one."""
    edge = np.concatenate([arr[0], arr[-1], arr[:, 0], arr[:, -1]])
    dominant, share = _dominant(edge)
    if share < BORDER_SHARE:
        dominant, _ = _dominant(arr)
    return np.array([dominant // 256, (dominant // 16) % 16, dominant % 16]) * 16 + 8


def frame_background(frame: Frame) -> np.ndarray:
    return _background(frame.array()[::DOWNSAMPLE, ::DOWNSAMPLE, :3].astype(np.int16))


def detect_widgets(frame: Frame, join_px: int = 0) -> list[Box]:
    """Boxes (x0, y0, x1, y1) of regions that stand out from the dominant colour.

    Cheap and toolkit-agnostic: quantise, take the most common colour as the
    background, label connected foreground blobs and keep plausible sizes.
    ``join_px``: blobs this close side by side are one (the letters of a word).
    """
    arr = frame.array()[::DOWNSAMPLE, ::DOWNSAMPLE, :3].astype(np.int16)
    mask = np.abs(arr - _background(arr)).max(axis=2) > BACKGROUND_TOLERANCE
    if join_px > 0:
        mask = ndimage.binary_dilation(mask, structure=np.ones((1, 2 * (join_px // DOWNSAMPLE) + 1), dtype=bool))
    labels, count = ndimage.label(mask)
    boxes = []
    h, w = mask.shape
    for sl in ndimage.find_objects(labels):
        if sl is None:
            continue
        ys, xs = sl
        bw, bh = xs.stop - xs.start, ys.stop - ys.start
        if bw * DOWNSAMPLE < MIN_WIDGET_PX or bh * DOWNSAMPLE < MIN_WIDGET_PX:
            continue
        if bw * bh > 0.6 * w * h:
            continue
        boxes.append((xs.start * DOWNSAMPLE, ys.start * DOWNSAMPLE, xs.stop * DOWNSAMPLE, ys.stop * DOWNSAMPLE))
    # The largest first when there are too many: the letters of a long title or hint line must not push
    # the cards and buttons below them out of sight.
    boxes = sorted(boxes, key=lambda b: -(b[2] - b[0]) * (b[3] - b[1]))[:MAX_WIDGETS]
    boxes.sort(key=lambda b: (b[1], b[0]))
    return boxes


def glyph_like(frame: Frame, box: Box, bg: np.ndarray | None = None) -> bool:
    """Whether a detected blob is drawn straight onto the window's background (a letter of a title,
    a line of text) rather than filled (a button, a card, a tile): much of its box is background.
    ``bg``: the frame's :func:`frame_background`, when the caller tests several boxes of one frame."""
    bg = frame_background(frame) if bg is None else bg
    x0, y0, x1, y1 = box
    inside = frame.array()[y0:y1, x0:x1, :3].astype(np.int16)
    return inside.size > 0 and float((np.abs(inside - bg).max(axis=2) <= BACKGROUND_TOLERANCE).mean()) >= GLYPH_BG_SHARE


def crop(frame: Frame, box: Box) -> Frame:
    """The part of ``frame`` inside ``box`` (clipped to the frame)."""
    x0, y0 = max(0, box[0]), max(0, box[1])
    x1, y1 = min(frame.width, box[2]), min(frame.height, box[3])
    part = np.ascontiguousarray(frame.array()[y0:max(y0, y1), x0:max(x0, x1)])
    return Frame(max(0, x1 - x0), max(0, y1 - y0), part.tobytes(), frame.t)


def parts_of(frame: Frame, widget: Widget, least: int = 2) -> list[Widget]:
    """Controls drawn inside one window (a menubar's menus, a canvas's shapes, a menu's items,
    a list's rows).

    The region is detected on its own, against its own background; fewer than ``least``
    blobs (by default: one only, the widget's own label) are not parts of it and give nothing.
    """
    inset = (widget.x0 + BORDER_PX, widget.y0 + BORDER_PX, widget.x1 - BORDER_PX, widget.y1 - BORDER_PX)
    region = crop(frame, inset)  # without the border, whose relief lines would join everything inside
    if region.width < 2 * MIN_WIDGET_PX or region.height < 2 * MIN_WIDGET_PX:
        return []
    boxes = detect_widgets(region, join_px=JOIN_PX)
    if len(boxes) < least:
        return []
    x, y = max(0, inset[0]), max(0, inset[1])
    return [Widget(x + b[0], y + b[1], x + b[2], y + b[3], top=widget.top, source="image") for b in boxes]


def _rect(w: Widget) -> Box:
    return (w.x0, w.y0, w.x1, w.y1)
