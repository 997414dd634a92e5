"""FilmPlayer: decodes the run's film off the GUI thread, the newest request first.

The run view asks for the picture at a time as the user scrubs (:meth:`FilmPlayer.request`);
a thread of the player's own decodes it with a :class:`~app.engine.trace.film_reader.FilmReader`
(a few milliseconds: at most one keyframe interval is decoded) and hands it back on the GUI
thread as :attr:`FilmPlayer.sig_frame_decoded`.  Requests that arrive while one is decoded
replace each other: a fast drag shows the newest position, never a queue of old ones.  The
thread ends by itself after :data:`IDLE_EXIT_S` without requests, so an idle view holds none.
"""

from __future__ import annotations

import logging
import threading

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

from app.engine.trace.film_reader import FilmError, FilmReader

log = logging.getLogger(__name__)

IDLE_EXIT_S = 3.0


class FilmPlayer(QObject):
    sig_frame_decoded = Signal(float, float, int, QImage)
    """Emitted on the GUI thread with the requested time, the frame's own time, its index and the picture."""
    sig_failed = Signal(str)
    """Emitted with one sentence when the film could not be decoded."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lock = threading.Condition()
        self._reader: FilmReader | None = None
        self._retired: list[FilmReader] = []
        self._pending: float | None = None
        self._thread: threading.Thread | None = None
        self._generation = 0
        self.decoded = 0

    @property
    def reader(self) -> FilmReader | None:
        """The film shown (its ``times`` and ``flags`` may be read on any thread; decoding is the player's)."""
        return self._reader

    def set_reader(self, reader: FilmReader | None) -> None:
        """Show another film (None: none); the old one is closed by the player's thread."""
        with self._lock:
            if self._reader is not None:
                self._retired.append(self._reader)
            self._reader = reader
            self._pending = None
            self._generation += 1
            self._start_locked()

    def request(self, t: float) -> None:
        """Decode the picture on screen at wall time ``t`` (replacing a request not yet started)."""
        with self._lock:
            if self._reader is None:
                return
            self._pending = t
            self._start_locked()
            self._lock.notify()

    def close(self) -> None:
        """Stop the thread and close the film (the view is going away)."""
        self.set_reader(None)
        thread = self._thread
        if thread is not None:
            with self._lock:
                self._lock.notify()
            thread.join(timeout=5)

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until no request is pending or being decoded (tests)."""
        with self._lock:
            return self._lock.wait_for(lambda: self._pending is None and not self._busy, timeout)

    _busy = False

    def _start_locked(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="playcoder-film-player", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                self._close_retired()
                woke = self._lock.wait_for(lambda: self._pending is not None or bool(self._retired), IDLE_EXIT_S)
                self._close_retired()
                if self._pending is None:
                    if woke and self._reader is not None:
                        continue
                    self._thread = None  # idle, or nothing left to show: a new request starts another
                    return
                t, self._pending = self._pending, None
                reader, generation = self._reader, self._generation
                self._busy = True
            try:
                if reader is not None:
                    self._decode(reader, generation, t)
            finally:
                with self._lock:
                    self._busy = False
                    self._lock.notify_all()

    def _close_retired(self) -> None:
        for old in self._retired:
            old.close()
        self._retired.clear()

    def _decode(self, reader: FilmReader, generation: int, t: float) -> None:
        try:
            frame = reader.frame_at(t)
        except (FilmError, OSError, ValueError, IndexError) as exc:
            log.warning("the film could not be decoded: %s", exc)
            self.sig_failed.emit(f"The film could not be read at this moment ({exc}).")
            return
        image = QImage(frame.rgb, frame.width, frame.height, frame.width * 3, QImage.Format.Format_RGB888).copy()
        self.decoded += 1
        if generation == self._generation:
            self.sig_frame_decoded.emit(t, frame.t, frame.index, image)
