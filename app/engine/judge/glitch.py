"""The film's oracle: a picture shown for a moment between two equal ones (a one-frame glitch or flash).

It watches every *distinct* capture of the run's film in order (see
:class:`app.engine.trace.film.FilmRecorder`), off the step loop's thread.  A
capture B is a flash when the pictures A before and C after it are (nearly)
equal, B differs strongly from both, and B was on screen no longer than
``timing.glitch_ms``: a deliberate effect lasts longer than a frame or two,
and a transition leads somewhere else (A ≠ C).  Captures taken while the
engine drew over the window (the repaint probe) are never judged.

It also keeps the time of the window's last change that was not the engine's
doing, so a freeze is timed to the frame.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.engine.play.observer import Frame
from app.engine.play.targetspec import Timing

SAMPLE_STEP = 4
"""Pixels compared: every 4th one of every 4th row (a 800×600 window is compared on 200×150 points)."""
PIXEL_DIFFERS = 40
"""A sampled pixel differs when one of its channels moved this much (video noise and anti-aliasing stay below)."""
FLASH_SHARE = 0.2
"""A flash changes at least this share of the window, against the picture before it and the one after it."""
NEIGHBOURS_CONTRAST = 8.0
"""... and the pictures before and after it differ at least this many times less than either differs from it."""
FLAT_SPREAD = 2
"""A picture whose sampled channels spread no more than this is one flat colour (nothing drawn)."""
MAX_KEPT = 8
"""Flashes kept with their pictures until the session takes them (more are only counted)."""


@dataclass(frozen=True)
class Flash:
    """One flash: when it showed, how long, how much of the window, and the pictures around it."""

    t: float
    seconds: float
    share: float
    bbox: tuple[int, int, int, int]
    before: Frame
    flash: Frame

    def evidence(self) -> dict[str, Any]:
        return {"t": round(self.t, 4), "seconds": round(self.seconds, 4), "share": round(self.share, 3),
                "bbox": list(self.bbox)}


@dataclass
class _Seen:
    frame: Frame
    sample: np.ndarray
    overlaid: bool


@dataclass
class FlashWatcher:
    """Fed every distinct film frame in order (:meth:`see`); the session takes the flashes (:meth:`take`)."""

    timing: Timing = field(default_factory=Timing)
    last_change_t: float | None = None
    """Wall time of the newest distinct picture the program showed (not the engine's drawing)."""
    last_drawn_t: float | None = None
    """... of the newest one that was not one flat colour (a window that vanished shows the empty screen)."""
    flashes_seen: int = 0
    _prev: _Seen | None = None
    _cur: _Seen | None = None
    _found: list[Flash] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def see(self, frame: Frame, overlaid: bool) -> None:
        """The next distinct picture of the window (called from the film's thread)."""
        seen = _Seen(frame, _sample(frame), overlaid)
        if not overlaid:
            self.last_change_t = frame.t
            if int((seen.sample.max(axis=(0, 1)) - seen.sample.min(axis=(0, 1))).max()) > FLAT_SPREAD:
                self.last_drawn_t = frame.t
        prev, cur = self._prev, self._cur
        self._prev, self._cur = cur, seen
        if prev is None or cur is None or prev.overlaid or cur.overlaid or overlaid:
            return
        if not (prev.sample.shape == cur.sample.shape == seen.sample.shape):
            return
        seconds = frame.t - cur.frame.t
        if not 0 <= seconds <= self.timing.glitch_ms / 1000 or cur.frame.t < prev.frame.t:
            return  # on screen too long to be a glitch, or pictures out of order (never a flash)
        into = _share(prev.sample, cur.sample)
        out = _share(cur.sample, seen.sample)
        if min(into, out) < FLASH_SHARE:
            return
        if _share(prev.sample, seen.sample) * NEIGHBOURS_CONTRAST > min(into, out):
            return
        flash = Flash(cur.frame.t, seconds, min(into, out), _bbox(prev.frame, cur.frame), prev.frame, cur.frame)
        with self._lock:
            self.flashes_seen += 1
            if len(self._found) < MAX_KEPT:
                self._found.append(flash)

    def restart(self) -> None:
        """The picture source changed (a new program window): what came before is no neighbour."""
        self._prev = self._cur = None

    def take(self) -> list[Flash]:
        """The flashes seen since the last call (any thread)."""
        with self._lock:
            out, self._found = self._found, []
        return out


def _sample(frame: Frame) -> np.ndarray:
    return frame.array()[::SAMPLE_STEP, ::SAMPLE_STEP, :3].astype(np.int16)


def _share(a: np.ndarray, b: np.ndarray) -> float:
    return float((np.abs(a - b).max(axis=2) > PIXEL_DIFFERS).mean())


def _bbox(a: Frame, b: Frame) -> tuple[int, int, int, int]:
    """Where the flash differs from the picture before it (x0, y0, x1, y1), exclusive ends."""
    diff = np.abs(a.array()[:, :, :3].astype(np.int16) - b.array()[:, :, :3].astype(np.int16)).max(axis=2)
    mask = diff > PIXEL_DIFFERS
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if rows.size == 0:
        return (0, 0, b.width, b.height)
    return (int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1)
