"""The difference picture of differential play: the candidate greyed, the pixels that differ from the reference red.

One rule for every place that shows a candidate beside its reference (the HTML
report, the workbench's run view), so they mark the same pixels: a pixel
differs when one of its channels differs by more than :data:`DIFF_TOLERANCE`,
as differential play judges (:data:`app.engine.judge.compare.CHANNEL_TOLERANCE`).
Pure numpy on RGB arrays, so a view can compute it off its GUI thread.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DIFF_TOLERANCE = 48
"""Per-channel difference shown as differing (differential play's ``CHANNEL_TOLERANCE``)."""
DIFF_COLOR = (220, 30, 30)
"""What a differing pixel is painted (RGB)."""
GREY_SCALE, GREY_LIFT = 0.35, 160
"""The candidate is shown as ``lightness * GREY_SCALE + GREY_LIFT``: pale, so the red stands out."""


@dataclass(frozen=True)
class Difference:
    """The picture (H×W×3 RGB, uint8), how many pixels differ and their bounding box ``[x0, y0, x1, y1]``."""

    picture: np.ndarray
    pixels: int
    bbox: tuple[int, int, int, int] | None


def picture_difference(candidate: np.ndarray, reference: np.ndarray) -> Difference | None:
    """The difference of two H×W×3 RGB pictures; None when their sizes differ (nothing to lay side by side)."""
    if candidate.shape[:2] != reference.shape[:2]:
        return None
    a = candidate[:, :, :3].astype(np.int16)
    differs = np.abs(a - reference[:, :, :3].astype(np.int16)).max(axis=2) > DIFF_TOLERANCE
    grey = (a.mean(axis=2, keepdims=True) * GREY_SCALE + GREY_LIFT).clip(0, 255).repeat(3, axis=2)
    grey[differs] = DIFF_COLOR
    count = int(differs.sum())
    bbox = None
    if count:
        rows, cols = np.flatnonzero(differs.any(axis=1)), np.flatnonzero(differs.any(axis=0))
        bbox = (int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1)
    return Difference(np.ascontiguousarray(grey, dtype=np.uint8), count, bbox)
