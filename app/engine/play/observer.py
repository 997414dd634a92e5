"""VisualObserver: capture the target window, detect change, settle and motion.

Instead of the paper's fixed 1 s sleep after every action, :meth:`settle`
first waits up to ``react_s`` for the window to *react* (a program may need
70 ms and a frame to build its next scene), then polls until it has been still
for :data:`QUIET_S` (or at :data:`SETTLE_CAP_S` for a window that keeps
moving).  :meth:`motion` tells an animating window from a static one by
sampling it while nothing is sent, and can collect the pixels that change by
themselves (a blinking caret, a clock) so they are not taken for a response.

A Python program on Tk or Qt says from inside when its event loop is idle
(:attr:`VisualObserver.probe`): :meth:`settle` then takes the picture as soon as
it is idle and painted, waiting only for one-shot timers due soon
(:mod:`app.engine.play.idle_settle`); pixel settling is the fallback.

Continuous capture (the run's film): every capture, whoever asked for it, is handed to
a :data:`FrameTap` (the run's film), and :meth:`VisualObserver.stream` polls the
window on a thread of its own whenever the step loop has not looked for a film
frame's time, so the film sees the window between actions as well.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol

import mss
import numpy as np
from PIL import Image

from app.engine.errors import DisplayError
from app.engine.play.idle_settle import IdleProbe, sees_loop, settle_on_idle

QUIET_S = 0.08
"""A window unchanged for this long after an action counts as settled."""
SETTLE_CAP_S = 1.0
"""Never wait longer than the paper's fixed delay."""
POLL_S = 0.008
FRAME_CACHE = 3
"""Frames kept in memory, as the paper's tester keeps."""
CHANNEL_NOISE = 0
"""Per-channel difference tolerated as 'unchanged' (0: exact; X frames are lossless)."""
RGB_BITS = np.uint32(0x00FFFFFF) if np.little_endian else np.uint32(0xFFFFFF00)
"""The colour bytes of one BGRX pixel read as a 32-bit number (X is the padding byte)."""

OVERLAY_AFTER_S = 0.3
"""After the engine removes something it drew over the window, its repaint is the engine's doing this long."""

BBox = tuple[int, int, int, int]
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Frame:
    """One capture of the window: raw BGRX pixels, window-relative."""

    width: int
    height: int
    bgrx: bytes
    t: float

    def array(self) -> np.ndarray:
        return np.frombuffer(self.bgrx, dtype=np.uint8).reshape(self.height, self.width, 4)

    def image(self) -> Image.Image:
        return Image.frombuffer("RGB", (self.width, self.height), self.bgrx, "raw", "BGRX", 0, 1)

    def same_as(self, other: Frame | None) -> bool:
        return other is not None and self.width == other.width and self.height == other.height and self.bgrx == other.bgrx


@dataclass(frozen=True)
class Observation:
    frame: Frame
    settled: bool
    settle_ms: float
    changed_bbox: BBox | None  # versus the reference frame given to settle()
    samples: int
    how: str = "pixels"
    """How it was settled: "inside" (the program said its loop was idle), "pixels" or "gate" (frames played)."""
    busy: bool = False
    """Settled from inside, the program's loop did not come back to idle before the cap."""
    busy_ms: float | None = None
    """Of ``settle_ms``, how long the program was still reacting: from inside, until its loop was idle with
    nothing due (the picture then confirmed); from pixels, until the window's last change.  The rest of
    ``settle_ms`` (:attr:`waited_ms`) is the engine's own waiting: the confirmation, the react watch, the
    stillness.  None: not known."""
    ticking: bool = False
    """Settled from inside with a repeating timer due soon: the input may yet be answered on its next tick."""

    @property
    def waited_ms(self) -> float | None:
        """How long the engine waited after the program had finished reacting (None when that is not known)."""
        return None if self.busy_ms is None else max(0.0, self.settle_ms - self.busy_ms)


def changed_mask(a: Frame, b: Frame) -> np.ndarray | None:
    """Boolean (height, width) array of pixels that differ; None when the sizes differ."""
    if (a.width, a.height) != (b.width, b.height):
        return None
    if CHANNEL_NOISE == 0:  # exact: one 32-bit compare per pixel, the padding byte left out (30x faster)
        pa = np.frombuffer(a.bgrx, dtype=np.uint32).reshape(a.height, a.width)
        pb = np.frombuffer(b.bgrx, dtype=np.uint32).reshape(b.height, b.width)
        return np.asarray(((pa ^ pb) & RGB_BITS) != 0)
    diff = np.abs(a.array()[:, :, :3].astype(np.int16) - b.array()[:, :, :3].astype(np.int16)).max(axis=2)
    return np.asarray(diff > CHANNEL_NOISE)


def changed_bbox(a: Frame | None, b: Frame, ignore: np.ndarray | None = None) -> BBox | None:
    """Bounding box (x0, y0, x1, y1), exclusive ends, of pixels that differ; None if equal.

    ``ignore``: a boolean mask (height, width) of pixels whose change does not count
    (what the window changes by itself while idle).
    """
    if a is None or (a.width, a.height) != (b.width, b.height):
        return (0, 0, b.width, b.height)
    if a.bgrx == b.bgrx:
        return None
    mask = changed_mask(a, b)
    assert mask is not None
    if ignore is not None and ignore.shape == mask.shape:
        mask = mask & ~ignore
    rows = np.flatnonzero(mask.any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero(mask.any(axis=0))
    return (int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1)


class FrameSource(Protocol):
    """Frames from somewhere other than a screen rectangle: (width, height, BGRX bytes) each."""

    def grab(self) -> tuple[int, int, bytes]: ...
    def close(self) -> None: ...


def _grab(grabber: Any, box: dict[str, int]) -> Any:
    """``grabber.grab(box)``; mss's XCB backend asserts on a reply that never came (an X server that died
    mid-capture): that is the X server gone, said as mss says it (ScreenShotError), not an engine bug."""
    try:
        return grabber.grab(box)
    except AssertionError as exc:
        raise mss.exception.ScreenShotError(f"the X server gave no answer to a capture ({exc!r})") from exc


def _past(box: dict[str, int], screen: dict[str, int]) -> bool:
    """``box`` reaches past the right or bottom edge of ``screen`` (mss's whole-screen monitor)."""
    return (box["left"] + box["width"] > screen["left"] + screen["width"]
            or box["top"] + box["height"] > screen["top"] + screen["height"])


FrameTap = Callable[["Frame", bool], None]
"""Receives every capture (and whether the engine had drawn over the window then), on the capturing thread."""


class VisualObserver:
    """Captures one window region of one X display with mss (XShm when available).

    Captures may come from two threads (the step loop and :meth:`stream`'s poller); a
    lock keeps one grab at a time, and the tap is called outside it, in the order of the grabs
    (a second lock is taken before the first is let go: the film never sees an older picture
    after a newer one, which its flash oracle would read as a picture flashing up between two).
    """

    def __init__(self, display_name: str, region: Callable[[], tuple[int, int, int, int]],
                 source: FrameSource | None = None) -> None:
        """``region`` returns the window's current (left, top, width, height) in root coordinates.

        ``source``: where frames come from instead of that screen rectangle (on a shared desktop,
        the window's own pixels: :class:`~app.engine.play.desktop.DesktopCapture`).
        """
        self._source = source
        self._display_name = display_name
        try:
            self._mss = mss.MSS(display=display_name)
            self._screen = dict(self._mss.monitors[0])
            """The screen as mss opened it (a capture past it needs mss opened again, on a grown screen)."""
        except Exception as exc:  # mss raises its own ScreenShotError family
            raise DisplayError(f"cannot capture X display {display_name} ({exc}); check that it is running.") from exc
        self._region = region
        self.frames: deque[Frame] = deque(maxlen=FRAME_CACHE)
        self.captured = 0
        """Frames captured so far (every poll of settle and motion counts, and the stream's)."""
        self.tap: FrameTap | None = None
        """Called with every capture; see :data:`FrameTap`."""
        self.probe: IdleProbe | None = None
        """The program's idle signal from inside (set by whoever started it); :meth:`settle` uses it when it can."""
        self._lock = threading.Lock()
        self._tap_lock = threading.Lock()
        self._last_grab = 0.0
        self._overlays = 0
        self._overlay_until = 0.0
        self._poller: threading.Thread | None = None
        self._stop_poller = threading.Event()
        self.stream_error: str = ""
        """Why the stream's poller stopped early (the display went away), if it did."""

    def close(self) -> None:
        self.stop_stream()
        self._mss.close()
        if self._source is not None:
            self._source.close()

    def capture(self) -> Frame:
        with self._lock:
            if self._source is not None:
                frame = Frame(*self._source.grab(), time.time())
            else:
                left, top, width, height = self._region()
                box = {"left": left, "top": top, "width": width, "height": height}
                try:
                    shot = _grab(self._mss, box)
                except mss.exception.ScreenShotError:
                    # mss sizes its shared-memory buffer to the screen it opened on: a screen grown since
                    # (display.XDisplay.fit) needs a new one.  Only then: a box on the screen mss knows failed
                    # for another reason (an X server that died), and a dead connection is not to be touched.
                    if not _past(box, self._screen):
                        raise
                    self._mss.close()
                    self._mss = mss.MSS(display=self._display_name)
                    self._screen = dict(self._mss.monitors[0])
                    shot = _grab(self._mss, box)
                frame = Frame(shot.width, shot.height, bytes(shot.raw), time.time())
            self.frames.append(frame)
            self.captured += 1
            self._last_grab = time.monotonic()
            overlaid = self._overlays > 0 or self._last_grab < self._overlay_until
            self._tap_lock.acquire()
        try:
            tap = self.tap
            if tap is not None:
                tap(frame, overlaid)
        finally:
            self._tap_lock.release()
        return frame

    @contextlib.contextmanager
    def overlay(self) -> Iterator[None]:
        """Mark captures taken while the engine draws over the window (a repaint probe), and the repaint after it.

        The film keeps such frames, but judges nothing on them: a probe is not a glitch,
        and its repaint is not the program changing its window by itself."""
        with self._lock:
            self._overlays += 1
        try:
            yield
        finally:
            with self._lock:
                self._overlays -= 1
                self._overlay_until = time.monotonic() + OVERLAY_AFTER_S

    # -- continuous capture ---------------------------------------------------------
    def stream(self, fps: float) -> None:
        """Capture at least ``fps`` frames a second until :meth:`stop_stream` (or :meth:`close`).

        A thread polls the window only when no other capture happened within the last
        frame interval, so the step loop's own polls (settle, motion) are not doubled.  A
        window on the user's desktop is not polled (its frames can hold the run): its film
        has what the step loop captures."""
        if self._poller is not None or fps <= 0 or self._source is not None:
            return
        self._stop_poller.clear()
        self._poller = threading.Thread(target=self._poll, args=(1.0 / fps,), name="playcoder-film-poll",
                                        daemon=True)
        self._poller.start()

    def stop_stream(self) -> None:
        poller, self._poller = self._poller, None
        if poller is not None:
            self._stop_poller.set()
            poller.join(timeout=5)

    @property
    def streaming(self) -> bool:
        return self._poller is not None and self._poller.is_alive()

    def _poll(self, interval: float) -> None:
        stop = self._stop_poller
        while not stop.is_set():
            due = self._last_grab + interval
            now = time.monotonic()
            if now < due:
                stop.wait(due - now)
                continue
            try:
                self.capture()
            except Exception as exc:  # the display or window went away: the step loop will say so
                self.stream_error = f"{type(exc).__name__}: {exc}"
                log.debug("film poller stopped: %s", self.stream_error)
                return

    @property
    def last(self) -> Frame | None:
        return self.frames[-1] if self.frames else None

    def settle(self, reference: Frame | None = None, *, cap_s: float = SETTLE_CAP_S, quiet_s: float = QUIET_S,
               react_s: float = 0.0, moving_s: float | None = None,
               sleep: Callable[[float], None] = time.sleep, inside: bool = True) -> Observation:
        """Wait for a reaction, then until the window stops changing (or ``cap_s``); compare with ``reference``.

        With ``react_s`` > 0 and a ``reference``, the window is watched for at least
        ``react_s`` (unless ``cap_s`` is shorter): stillness right after an input is not yet an
        answer, and neither is the quick press feedback of a button whose real effect (a
        scene built in 150 ms) comes later.  ``moving_s``: a window that has kept changing
        for this long after the watch (an input that started a game) is looked at then,
        not at ``cap_s``: the bird must not fall while the engine waits for stillness.

        With a :attr:`probe` that sees the program's event loop (and ``inside``), the loop's idle
        answers replace the watch and the stillness (``react_s`` and ``quiet_s`` are not used); a
        probe that does not answer leaves the rest of ``cap_s`` to pixel settling.
        """
        start = time.monotonic()
        if inside and sees_loop(self.probe):
            assert self.probe is not None
            seen = settle_on_idle(self.capture, self.probe, cap_s=cap_s, moving_s=moving_s, sleep=sleep,
                                  before=reference)
            if seen.answered and seen.frame is not None:
                elapsed = (time.monotonic() - start) * 1000.0
                box = changed_bbox(reference, seen.frame) if reference else None
                return Observation(seen.frame, seen.settled, elapsed, box, seen.samples, "inside", seen.busy,
                                   min(elapsed, seen.busy_s * 1000.0), seen.ticking)
            # No answer: pixel settling goes on from here, within the same cap.
        frame = self.capture()
        last_change = start
        samples = 1
        settled = False
        watch_s = react_s if reference is not None else 0.0
        quiet_since = start
        while True:
            now = time.monotonic()
            if now - start >= watch_s and now - last_change >= quiet_s:
                settled = True
                break
            if now - start >= cap_s:
                break
            if moving_s is not None and now - start >= watch_s and now - quiet_since >= moving_s:
                break  # changing all along: an animation, not a scene being built
            sleep(POLL_S)
            nxt = self.capture()
            samples += 1
            if not nxt.same_as(frame):
                stamp = time.monotonic()
                if stamp - last_change >= quiet_s:
                    quiet_since = stamp  # a change after a still moment: the movement starts here
                last_change = stamp
            frame = nxt
        elapsed = (time.monotonic() - start) * 1000.0
        busy_ms = (last_change - start) * 1000.0 if settled else elapsed  # unsettled: still changing at the cap
        return Observation(frame, settled, elapsed, changed_bbox(reference, frame) if reference else None, samples,
                           busy_ms=busy_ms)

    def motion(self, duration_s: float, sleep: Callable[[float], None] = time.sleep,
               into: np.ndarray | None = None) -> float:
        """Fraction of consecutive samples over ``duration_s`` that differed (0 = static).

        ``into``: a boolean (height, width) mask that collects every pixel seen changing.
        """
        prev = self.capture()
        changes = total = 0
        end = time.monotonic() + duration_s
        while time.monotonic() < end:
            sleep(max(POLL_S, 0.03))
            cur = self.capture()
            total += 1
            if not cur.same_as(prev):
                changes += 1
                if into is not None:
                    mask = changed_mask(prev, cur)
                    if mask is not None and mask.shape == into.shape:
                        into |= mask
            prev = cur
        return changes / total if total else 0.0


def is_blank(frame: Frame, tolerance: int = 2) -> bool:
    """True when every pixel has (nearly) the same colour: nothing was rendered."""
    arr = frame.array()[::4, ::4, :3]
    return bool((arr.max(axis=(0, 1)).astype(int) - arr.min(axis=(0, 1)).astype(int)).max() <= tolerance)
