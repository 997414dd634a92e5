"""Compare what a candidate shows with what its reference shows after the same inputs.

Differential play's oracle.  A difference is *behaviour* only when it survives
what is not: anti-aliasing and sub-pixel text (a per-channel tolerance and a
2×2 opening that drops one-pixel seams; a faint difference counts only where
it fills an area), self-changing pixels (the *noise*
mask: what the reference changes by itself, or differs between two runs of
the reference with the same seed), regions the target declares
nondeterministic, and animation timing (the candidate is compared with the
nearest of a few reference frames).  What is left must be a blob of a
meaningful size.  Small text (a counter's digits in 11 px grey) has one-pixel
strokes that the opening drops; :func:`changed_text` reads what differs there
(OCR) and calls it a change only when the two pictures read differently, which
text drawn a fraction of a pixel aside never does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import ndimage

from app.engine.play.observer import Frame

CHANNEL_TOLERANCE = 48
"""Per-channel difference below this is rendering noise (anti-aliasing, sub-pixel text) — on an edge."""
FAINT_TOLERANCE = 10
"""A fainter difference counts where it fills an area (:data:`FAINT_BLOCK`): a white list grown over a
light-grey footer differs by 17 in every pixel, a button tinted by hover by 10–20."""
FAINT_BLOCK = 6
"""The square a faint difference must fill: wider than any text stroke, so sub-pixel text never does."""
NOISE_DILATE_PX = 2
"""Noise regions grow by this much: a caret blinks a pixel or two around where it was seen."""
MIN_BLOB_PX = 30
"""The smallest difference that counts as behaviour (a digit at 9 px is about 40 pixels)."""
MIN_BLOB_SHARE = 0.0005
"""... or this share of the window, whichever is larger."""

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Divergence:
    """A behavioural difference: where, how many pixels, against which reference frame."""

    bbox: Box
    pixels: int
    share: float
    reference: Frame
    reason: str = ""


def difference_mask(a: Frame, b: Frame) -> np.ndarray | None:
    """Pixels that differ beyond rendering noise; None when the sizes differ.

    A pixel differs when a channel differs by more than :data:`CHANNEL_TOLERANCE`, or by more than
    :data:`FAINT_TOLERANCE` inside an area the faint difference fills (a low-contrast layout or
    colour change: white on white is still a bug)."""
    if (a.width, a.height) != (b.width, b.height):
        return None
    if a.bgrx == b.bgrx:  # the same picture (most steps of a differential run): nothing to measure
        return np.zeros((a.height, a.width), dtype=bool)
    diff = np.abs(a.array()[:, :, :3].astype(np.int16) - b.array()[:, :, :3].astype(np.int16)).max(axis=2)
    strong = diff > CHANNEL_TOLERANCE
    faint = diff > FAINT_TOLERANCE
    if faint.sum() >= FAINT_BLOCK * FAINT_BLOCK:
        strong |= np.asarray(ndimage.binary_opening(faint, structure=np.ones((FAINT_BLOCK, FAINT_BLOCK), bool)))
    return np.asarray(strong)


def box_mask(shape: tuple[int, int], boxes: Sequence[Sequence[int]]) -> np.ndarray:
    """A mask that is True inside the given [x0, y0, x1, y1] boxes."""
    mask = np.zeros(shape, dtype=bool)
    for x0, y0, x1, y1 in boxes:
        mask[max(0, y0):max(0, y1), max(0, x0):max(0, x1)] = True
    return mask


def grow(mask: np.ndarray, px: int = NOISE_DILATE_PX) -> np.ndarray:
    return np.asarray(ndimage.binary_dilation(mask, iterations=px)) if px > 0 and mask.any() else mask


def significant(mask: np.ndarray) -> tuple[int, Box | None]:
    """Pixels left after dropping one-pixel seams, and their bounding box."""
    if not mask.any():
        return 0, None
    kept = np.asarray(ndimage.binary_opening(mask, structure=np.ones((2, 2), dtype=bool)))
    count = int(kept.sum())
    if count == 0:
        return 0, None
    rows = np.flatnonzero(kept.any(axis=1))
    cols = np.flatnonzero(kept.any(axis=0))
    return count, (int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1)


def compare(candidate: Frame, references: Sequence[Frame], ignore: np.ndarray | None = None) -> Divergence | None:
    """The candidate's divergence from the nearest reference frame, or None when it behaves the same.

    ``ignore``: a (height, width) mask of pixels that are noise (grown already).
    """
    if not references:
        return None
    best: Divergence | None = None
    area = candidate.width * candidate.height
    threshold = max(MIN_BLOB_PX, int(MIN_BLOB_SHARE * area))
    for ref in references:
        mask = difference_mask(candidate, ref)
        if mask is None:
            return Divergence((0, 0, candidate.width, candidate.height), area, 1.0, ref,
                              f"the window is {candidate.width}×{candidate.height}, "
                              f"the reference's {ref.width}×{ref.height}")
        if ignore is not None and ignore.shape == mask.shape:
            mask = mask & ~ignore
        count, box = significant(mask)
        if count < threshold or box is None:
            return None  # behaves as (one of) the reference frames
        if best is None or count < best.pixels:
            best = Divergence(box, count, count / area, ref)
    return best


TEXT_MIN_PX = 8
"""The smallest thin difference worth reading (a digit's changed strokes at 11 px are 10–30 pixels)."""
TEXT_MAX_READS = 4
"""At most this many thin differences are read per comparison (the largest first)."""
TEXT_MARGIN = (24, 3)
"""Around a thin difference, how much of the line is read with it (x, y): a digit with its neighbours."""


def changed_text(candidate: Frame, reference: Frame, ignore: np.ndarray | None = None) -> Divergence | None:
    """Text that reads differently where only thin strokes differ (OCR), or None.

    A thin difference shaped like a line (a caret, a seam: one or two pixels across) is never read, nor one
    whose line touches ``ignore`` (the edge of a running clock's digits reads as garbage that differs)."""
    from app.engine.judge.expectations import ocr_engine, read_line

    mask = difference_mask(candidate, reference)
    if mask is None:
        return None
    if ignore is not None and ignore.shape == mask.shape:
        mask = mask & ~ignore
    if int(mask.sum()) < TEXT_MIN_PX:
        return None
    ocr = ocr_engine()
    if ocr is None:
        return None
    labels, _ = ndimage.label(ndimage.binary_dilation(mask, iterations=2))
    parts = []
    for i, sl in enumerate(ndimage.find_objects(labels), 1):
        if sl is None:
            continue
        raw = mask[sl] & (labels[sl] == i)
        count = int(raw.sum())
        rows, cols = np.flatnonzero(raw.any(axis=1)), np.flatnonzero(raw.any(axis=0))
        if count < TEXT_MIN_PX or len(rows) < 5 or len(cols) < 3:
            continue
        box = (sl[1].start + int(cols[0]), sl[0].start + int(rows[0]),
               sl[1].start + int(cols[-1]) + 1, sl[0].start + int(rows[-1]) + 1)
        parts.append((count, box))
    h, w = mask.shape
    for count, (x0, y0, x1, y1) in sorted(parts, reverse=True)[:TEXT_MAX_READS]:
        region = [max(0, x0 - TEXT_MARGIN[0]), max(0, y0 - TEXT_MARGIN[1]),
                  min(w, x1 + TEXT_MARGIN[0]), min(h, y1 + TEXT_MARGIN[1])]
        if ignore is not None and ignore.shape == mask.shape and ignore[region[1]:region[3],
                                                                         region[0]:region[2]].any():
            continue  # text beside what changes by itself (a running clock's digits) is not read
        mine, theirs = read_line(candidate, region, ocr), read_line(reference, region, ocr)
        if mine and theirs and mine != theirs:
            return Divergence((x0, y0, x1, y1), count, count / (w * h), reference,
                              f"the text at [{x0}, {y0}, {x1}, {y1}] reads {mine!r} where the reference "
                              f"shows {theirs!r} after the same inputs")
    return None
