"""DifferenceMaker: a differential run's difference pictures, made off the GUI thread and kept.

The run view shows each step of a differential run as candidate | reference |
difference.  The difference (the candidate greyed, the pixels that differ from
the reference red: :func:`app.engine.trace.difference.picture_difference`) is
numpy work on two whole frames, so a thread of the maker's own does it and hands
the picture back on the GUI thread as :attr:`DifferenceMaker.sig_difference_made`;
stepping never waits for it.  A request replaces one not yet started (a held
arrow key shows the newest step, not a queue of old ones), and finished
pictures are kept by their two frames' addresses, so stepping back shows them
at once.  The thread ends by itself after :data:`IDLE_EXIT_S` without requests.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

from app.engine.trace.difference import picture_difference

log = logging.getLogger(__name__)

IDLE_EXIT_S = 3.0
KEPT_PICTURES = 64
"""Difference pictures kept (a 640×480 one is about 1 MB)."""


@dataclass(frozen=True)
class MadeDifference:
    """A finished difference: the picture, differing pixels and their box; or no picture and a sentence why."""

    image: QImage | None
    pixels: int
    bbox: tuple[int, int, int, int] | None
    why_none: str = ""


def difference_key(candidate: str, reference: str) -> str:
    """The key a difference is kept and announced under: both frames' addresses."""
    return f"{candidate}:{reference}"


class DifferenceMaker(QObject):
    sig_difference_made = Signal(str)
    """Emitted on the GUI thread with the key of a difference now in :meth:`made`."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lock = threading.Condition()
        self._made: OrderedDict[str, MadeDifference] = OrderedDict()
        self._pending: tuple[str, QImage, QImage] | None = None
        self._thread: threading.Thread | None = None
        self._busy = False
        self.computed = 0
        """How many differences were computed (tests read it)."""

    def made(self, key: str) -> MadeDifference | None:
        """The finished difference kept under ``key``, if any."""
        with self._lock:
            found = self._made.get(key)
            if found is not None:
                self._made.move_to_end(key)
            return found

    def request(self, key: str, candidate: QImage, reference: QImage) -> None:
        """Make the difference of two decoded frames (replacing a request not yet started)."""
        with self._lock:
            if key in self._made:
                return
            # Shallow copies: implicitly shared images may be read on another thread.
            self._pending = (key, QImage(candidate), QImage(reference))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="playcoder-differences", daemon=True)
                self._thread.start()
            self._lock.notify()

    def clear(self) -> None:
        """Forget the kept pictures (another database)."""
        with self._lock:
            self._made.clear()
            self._pending = None

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until no request is pending or being made (tests)."""
        with self._lock:
            return self._lock.wait_for(lambda: self._pending is None and not self._busy, timeout)

    def _run(self) -> None:
        while True:
            with self._lock:
                self._lock.wait_for(lambda: self._pending is not None, IDLE_EXIT_S)
                if self._pending is None:
                    self._thread = None  # idle: a new request starts another
                    return
                (key, candidate, reference), self._pending = self._pending, None
                self._busy = True
            try:
                try:
                    made = _make(candidate, reference)
                except (ValueError, MemoryError) as exc:  # a frame that does not convert: the pane says so
                    log.warning("could not make a difference picture: %s", exc)
                    made = MadeDifference(None, 0, None, "The difference could not be made from these two frames.")
                with self._lock:
                    self._made[key] = made
                    while len(self._made) > KEPT_PICTURES:
                        self._made.popitem(last=False)
                    self.computed += 1
                self.sig_difference_made.emit(key)
            finally:
                with self._lock:
                    self._busy = False
                    self._lock.notify_all()


def _make(candidate: QImage, reference: QImage) -> MadeDifference:
    found = picture_difference(_rgb(candidate), _rgb(reference))
    if found is None:
        return MadeDifference(None, 0, None, f"The reference's window is {reference.width()}×{reference.height()}, "
                                             f"the candidate's {candidate.width()}×{candidate.height()}: "
                                             "there is no pixel-by-pixel difference.")
    h, w = found.picture.shape[:2]
    image = QImage(found.picture.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()
    return MadeDifference(image, found.pixels, found.bbox)


def _rgb(image: QImage) -> np.ndarray:
    """An H×W×3 RGB array of ``image`` (a copy, independent of the image)."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    w, h, line = rgb.width(), rgb.height(), rgb.bytesPerLine()
    rows = np.frombuffer(rgb.constBits(), np.uint8, count=line * h).reshape(h, line)
    return rows[:, :w * 3].reshape(h, w, 3).copy()
