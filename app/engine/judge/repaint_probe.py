"""The repaint probe: cover part of a window with an override-redirect window, remove it, and see whether the
program repaints what it exposed.  A live program does; one that stopped handling X events leaves it wrong.  The
fallback freeze check for programs that cannot be asked from inside (:mod:`app.engine.judge.oracles`)."""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np
from Xlib import X
from Xlib import error as xerror

from app.engine.play.observer import Frame, VisualObserver
from app.engine.play.target import TargetProcess

REPAINT_TIMEOUT_S = 1.0
PROBE_COLOUR = 0xFF00FF


def _busiest_region(frame: Frame) -> tuple[int, int, int, int]:
    """The half-size window region with the most detail (x, y, w, h).

    The X server refills plain areas of a covered window with its background colour
    by itself, so only detailed content (text, drawings) proves the program repainted.
    """
    w, h = frame.width, frame.height
    rw, rh = max(1, w // 2), max(1, h // 2)
    grey = frame.array()[::2, ::2, :3].astype(np.int16).sum(axis=2)
    edges = (np.abs(np.diff(grey, axis=0))[:, :-1] + np.abs(np.diff(grey, axis=1))[:-1, :]) > 24
    best, best_score = (w // 4, h // 4), -1
    for fx in (0, 1, 2):
        for fy in (0, 1, 2):
            x, y = fx * w // 4, fy * h // 4
            score = int(edges[y // 2:(y + rh) // 2, x // 2:(x + rw) // 2].sum())
            if score > best_score:
                best, best_score = (x, y), score
    return best[0], best[1], rw, rh


LAST_PROBE: dict[int, tuple[tuple[int, int, int, int], np.ndarray | None]] = {}
"""Per observer: the window region (x, y, w, h) the last repaint probe covered, and what the
region showed when the probe gave up (None when the program repainted it)."""


def probe_residue(frame: Frame, region: tuple[int, int, int, int], share: float = 0.9) -> bool:
    """True when the region still shows the probe's colour: the program has not repainted it."""
    x, y, w, h = region
    area = frame.array()[y:y + h, x:x + w, :3].astype(np.int32)
    if area.size == 0:
        return False
    r, g, b = (PROBE_COLOUR >> 16) & 0xFF, (PROBE_COLOUR >> 8) & 0xFF, PROBE_COLOUR & 0xFF
    hits = (area[:, :, 2] == r) & (area[:, :, 1] == g) & (area[:, :, 0] == b)  # BGRX
    return bool(hits.mean() >= share)


def repaint_probe(target: TargetProcess, observer: VisualObserver,
                  sleep: Callable[[float], None] = time.sleep) -> bool | None:
    """Cover the middle of the window, uncover it, and see whether the program repaints.

    True: repainted as before.  False: the exposed area stayed wrong.  None:
    inconclusive (the area is one flat colour, or the window keeps changing).
    """
    win = target.refresh_geometry()
    if win is None or not target.alive():
        return None
    before = observer.capture()
    rx, ry, rw, rh = _busiest_region(before)
    LAST_PROBE[id(observer)] = ((rx, ry, rw, rh), None)
    region = before.array()[ry:ry + rh, rx:rx + rw, :3]
    if int(region.max()) - int(region.min()) < 8:
        return None
    with observer.overlay():  # the film keeps what the probe drew, but no oracle judges it
        return _probe(target, observer, sleep, (rx, ry, rw, rh), region, win)


def _probe(target: TargetProcess, observer: VisualObserver, sleep: Callable[[float], None],
           box: tuple[int, int, int, int], region: np.ndarray, win: Any) -> bool | None:
    rx, ry, rw, rh = box
    conn = target.xconn()
    try:
        screen = conn.screen()
        probe = screen.root.create_window(
            win.x + rx, win.y + ry, rw, rh, 0, screen.root_depth, X.InputOutput, X.CopyFromParent,
            background_pixel=PROBE_COLOUR, override_redirect=True)
        probe.map()
        conn.sync()
        sleep(0.1)
        probe.destroy()
        conn.sync()
    except xerror.XError:
        return None
    deadline = time.monotonic() + REPAINT_TIMEOUT_S
    while time.monotonic() < deadline:
        sleep(0.03)
        now = observer.capture().array()[ry:ry + rh, rx:rx + rw, :3]
        if np.array_equal(now, region):
            return True
    LAST_PROBE[id(observer)] = ((rx, ry, rw, rh), now.copy())
    return False
