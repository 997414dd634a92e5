"""LiveCapture: grabs the target's window from the engine's display on a worker thread.

The capture (mss over XCB: errors are exceptions, never an exit) runs in this
thread; the GUI thread only receives finished QImages.  On the user's desktop
(``window_id`` given) it reads the window's own pixels instead
(:class:`~app.engine.play.desktop.DesktopCapture`), so the live view never
shows the workbench or whatever else covers the target; a moment when no
frame can be the target's is skipped.  Frames are coalesced:
a new one is sent only after the view took the previous one
(:meth:`LiveCapture.frame_consumed`), so a busy GUI never builds a backlog.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import mss
from PySide6.QtCore import QThread, Signal
from PySide6.QtGui import QImage

from app.engine.errors import UserError
from app.engine.play.desktop import DesktopCapture, NotTheTarget
from app.engine.play.target import WindowInfo

LIVE_FPS = 20
"""Target capture rate; the view must show at least 10 fps."""
STOP_WAIT_MS = 2000


class LiveCapture(QThread):
    sig_frame_captured = Signal(QImage)
    """Emitted (from the worker thread, delivered queued) with each captured window image."""
    sig_capture_failed = Signal(str)
    """Emitted once when the display cannot be captured any more (e.g. the run ended)."""

    def __init__(self, display: str, region: tuple[int, int, int, int], fps: float = LIVE_FPS,
                 parent: Any = None, window_id: int | None = None) -> None:
        super().__init__(parent)
        self.display = display
        self.window_id = window_id
        self._region = region
        self._period = 1.0 / fps
        self._lock = threading.Lock()
        self._pending = threading.Event()
        self.frames = 0
        self.setObjectName("playcoder-live-capture")

    def set_region(self, region: tuple[int, int, int, int]) -> None:
        with self._lock:
            self._region = region

    def frame_consumed(self) -> None:
        """The view painted the last frame; the next one may be sent."""
        self._pending.clear()

    def stop(self) -> None:
        """Ask the thread to end and wait for it (bounded)."""
        self.requestInterruption()
        if self.isRunning() and not self.wait(STOP_WAIT_MS):  # pragma: no cover - a capture stuck in X
            self.terminate()
            self.wait(STOP_WAIT_MS)

    def run(self) -> None:
        if self.window_id is not None:
            self._run_window(self.window_id)
            return
        try:
            grabber = mss.MSS(display=self.display) if hasattr(mss, "MSS") else mss.mss(display=self.display)
        except Exception as exc:  # mss raises its own ScreenShotError family
            self.sig_capture_failed.emit(f"cannot open display {self.display}: {exc}")
            return
        try:
            while not self.isInterruptionRequested():
                started = time.monotonic()
                if not self._pending.is_set():
                    with self._lock:
                        left, top, width, height = self._region
                    try:
                        shot = grabber.grab({"left": left, "top": top, "width": width, "height": height})
                    except Exception as exc:
                        self.sig_capture_failed.emit(f"capture of {self.display} ended: {exc}")
                        return
                    image = QImage(bytes(shot.raw), shot.width, shot.height, shot.width * 4,
                                   QImage.Format.Format_RGB32).copy()
                    self._pending.set()
                    self.frames += 1
                    self.sig_frame_captured.emit(image)
                left_s = self._period - (time.monotonic() - started)
                if left_s > 0:
                    self.msleep(max(1, int(left_s * 1000)))
        finally:
            try:
                grabber.close()
            except Exception:  # pragma: no cover - closing a dead connection
                pass

    def _run_window(self, window_id: int) -> None:
        """The desktop: the window's own pixels (Composite), never the screen in front of it."""
        def window() -> WindowInfo:
            with self._lock:
                left, top, width, height = self._region
            return WindowInfo(window_id, left, top, width, height, "live")

        try:
            source = DesktopCapture(self.display, window, window, lambda: True)
        except UserError as exc:
            self.sig_capture_failed.emit(str(exc))
            return
        try:
            while not self.isInterruptionRequested():
                started = time.monotonic()
                if not self._pending.is_set():
                    try:
                        shot = source.read()
                    except NotTheTarget:
                        shot = None  # hidden or covered without Composite: show nothing rather than another window
                    if shot is not None:
                        image = QImage(shot.bgrx, shot.width, shot.height, shot.width * 4,
                                       QImage.Format.Format_RGB32).copy()
                        self._pending.set()
                        self.frames += 1
                        self.sig_frame_captured.emit(image)
                left_s = self._period - (time.monotonic() - started)
                if left_s > 0:
                    self.msleep(max(1, int(left_s * 1000)))
        finally:
            source.close()
