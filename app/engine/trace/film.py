"""The run's film: every distinct picture of the target window, as a video stream with an exact index.

A :class:`FilmRecorder` takes every capture the observer makes (:meth:`offer`,
from any thread, cheap: a picture equal to the last one is dropped at once),
and a thread of its own shows each distinct picture to the watchers (the flash
oracle) and encodes it, at most ``fps`` a second, into a film *segment*:

    <database>.films/run-<run id>-<seq>.mkv   H.264 in Matroska, variable frame rate
    <database>.films/run-<run id>-<seq>.idx   one 16-byte record per frame (see INDEX)

A new segment starts when the window changes size.  Timestamps are milliseconds
since the segment's ``t0`` (wall time, in the ``films`` table), so a frame is
linked to the steps by time.  Kill -9 safety: every packet is its own Matroska
cluster, flushed to the file as the next packet is written, and a frame's index
record is appended only once its packet is complete in the file; a picture that
stays still is followed by one repeat after :data:`KEEPALIVE_S`, which pushes it
out.  So a killed engine leaves a stream that opens up to its last complete
frame and an index that names only complete frames (docs/design-notes.md).
"""

from __future__ import annotations

import logging
import os
import queue
import struct
import threading
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Generic, Protocol, Sequence, TypeVar

import av
import numpy as np

FILM_FPS = 30
"""Default film rate (RunConfig.film_fps; 0 records no film): a window changing this often keeps every change."""
RATE_SLACK = 1.25
"""Pictures are written up to this factor above the film rate, so a 30 fps game's frames, captured with
jitter, are all kept; pictures closer together than that are merged (the later one wins)."""
CODEC = "libx264"
PRESET = "superfast"
CRF = 23
"""Quality: visually faithful for window content, about 1–15 KB a frame (benchmark/film_storage.py)."""
KEYFRAME_EVERY = 15
"""Frames between keyframes: a seek decodes at most this many, about 15 ms for an 800×600 window."""
KEEPALIVE_S = 1.0
"""A picture still for this long is written again once, so the previous one reaches the file (kill -9)."""
QUEUE_FRAMES = 24
"""Distinct pictures waiting for the film's thread; more are dropped (and counted) rather than slow the run."""
MUXER_OPTIONS = {"cluster_size_limit": "1", "flush_packets": "1"}
"""One Matroska cluster per packet, flushed at once: a killed file ends on a whole cluster."""
TIME_BASE = Fraction(1, 1000)

INDEX = np.dtype([("pts", "<i8"), ("flags", "<u4"), ("size", "<u4")])
"""An index record: pts (ms since the segment's t0), flags (KEY, REPEAT, OVERLAY), packet bytes."""
KEY, REPEAT, OVERLAY = 1, 2, 4
_RECORD = struct.Struct("<qII")

log = logging.getLogger(__name__)


class Picture(Protocol):
    """What the recorder films: raw BGRX pixels and the wall time they were captured."""

    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def bgrx(self) -> bytes: ...
    @property
    def t(self) -> float: ...


P = TypeVar("P", bound=Picture)
P_contra = TypeVar("P_contra", bound=Picture, contravariant=True)


class FilmWatcher(Protocol[P_contra]):
    """Shown every distinct picture in order, on the film's thread (the flash oracle)."""

    def see(self, picture: P_contra, overlaid: bool) -> None: ...
    def restart(self) -> None: ...


class FilmRows(Protocol):
    """Where segments are registered (:class:`~app.engine.trace.store.TrajectoryStore`)."""

    def add_film(self, run_id: int, *, seq: int, file: str, codec: str, width: int, height: int,
                 t0: float) -> int: ...
    def finish_film(self, film_id: int, *, t1: float, frames: int, size: int) -> None: ...
    def close(self) -> None: ...


@dataclass(frozen=True)
class FilmStats:
    frames: int
    """Distinct pictures written (repeats not counted)."""
    segments: int
    dropped: int
    """Pictures dropped because the film's thread fell behind."""
    error: str = ""


def segment_name(run_id: int, seq: int) -> str:
    return f"run-{run_id}-{seq}"


class FilmRecorder(Generic[P]):
    """Films one run; ``open_rows`` opens the store's rows on the film's own thread (its own connection)."""

    def __init__(self, folder: Path, run_id: int, open_rows: Callable[[], FilmRows], *, fps: float = FILM_FPS,
                 watchers: Sequence[FilmWatcher[P]] = ()) -> None:
        self.folder = folder
        self.run_id = run_id
        self.fps = fps
        self.watchers = list(watchers)
        self._open_rows = open_rows
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=QUEUE_FRAMES)
        self._offer_lock = threading.Lock()
        self._last_offered: P | None = None
        self.dropped = 0
        self.frames = 0
        self.error = ""
        self._segments = 0
        self._thread = threading.Thread(target=self._run, name="playcoder-film", daemon=True)
        self._thread.start()

    # -- any thread ---------------------------------------------------------------------
    def offer(self, picture: P, overlaid: bool = False) -> None:
        """A capture of the window; kept only when it differs from the previous one."""
        with self._offer_lock:
            last = self._last_offered
            if last is not None and last.width == picture.width and last.height == picture.height \
                    and last.bgrx == picture.bgrx:
                return
            self._last_offered = picture
            try:
                self._queue.put_nowait((picture, overlaid))
            except queue.Full:
                self.dropped += 1
                self._last_offered = None  # the next capture goes in even if it is the same picture

    @property
    def backlog(self) -> int:
        """Pictures waiting for the film's thread."""
        return self._queue.qsize()

    def restart(self) -> None:
        """The pictures now come from another window (a restarted program): no neighbour across."""
        with self._offer_lock:
            self._last_offered = None
        self._queue.put(_RESTART)

    def close(self, timeout: float = 60.0) -> FilmStats:
        """Write what is queued, close the segments; safe to call twice."""
        if self._thread.is_alive():
            self._queue.put(_STOP)
            self._thread.join(timeout)
        return FilmStats(self.frames, self._segments, self.dropped, self.error)

    # -- the film's thread ------------------------------------------------------------------
    def _run(self) -> None:
        rows: FilmRows | None = None
        segment: _Segment | None = None
        pending: tuple[P, bool] | None = None
        last: tuple[P, bool] | None = None
        written_at = 0.0  # wall time of the last picture written
        repeated = True
        interval = 1.0 / (self.fps * RATE_SLACK) if self.fps > 0 else 0.0
        try:
            rows = self._open_rows()
            while True:
                try:
                    item = self._queue.get(timeout=_wait(pending is not None, repeated, written_at, interval))
                except queue.Empty:
                    item = None
                if item is _STOP:
                    if pending is not None:  # the last picture, held for its slot, is what the window showed last
                        segment = self._write(rows, segment, pending[0], pending[1], pending[0].t, 0)
                    break
                if item is _RESTART:
                    if pending is not None:
                        segment = self._write(rows, segment, pending[0], pending[1], pending[0].t, 0)
                        pending = None
                    for watcher in self.watchers:
                        watcher.restart()
                    continue
                if item is None:  # a timeout: the slot opened for a held picture, or the window stayed still
                    if pending is not None:
                        picture, overlaid = pending
                        pending = None
                        segment = self._write(rows, segment, picture, overlaid, picture.t, 0)
                        last, written_at, repeated = (picture, overlaid), picture.t, False
                    elif last is not None and segment is not None and not repeated:
                        segment.write(last[0], time.time(), REPEAT | (OVERLAY if last[1] else 0))
                        repeated = True
                    continue
                picture, overlaid = item
                self._watch(picture, overlaid)
                if segment is not None and (picture.width, picture.height) == segment.size \
                        and picture.t - written_at < interval:
                    pending = (picture, overlaid)  # too soon: written when its slot opens, unless superseded
                    continue
                pending = None
                segment = self._write(rows, segment, picture, overlaid, picture.t, 0)
                last, written_at, repeated = (picture, overlaid), picture.t, False
        except Exception as exc:  # a full disk, a codec failure: the run goes on without its film
            self.error = f"{type(exc).__name__}: {exc}"
            log.warning("the film of run %s stopped: %s", self.run_id, self.error)
            self._drain()
        finally:
            if segment is not None:
                self._finish(rows, segment)
            if rows is not None:
                rows.close()

    def _watch(self, picture: P, overlaid: bool) -> None:
        for watcher in list(self.watchers):
            try:
                watcher.see(picture, overlaid)
            except Exception as exc:  # an oracle's bug must not stop the film
                log.warning("a film watcher failed and was removed: %s", exc)
                self.watchers.remove(watcher)

    def _write(self, rows: FilmRows, segment: _Segment | None, picture: P, overlaid: bool, t: float,
               flags: int) -> _Segment:
        if segment is None or (picture.width, picture.height) != segment.size:
            if segment is not None:
                self._finish(rows, segment)
            seq = self._segments
            self._segments += 1
            self.folder.mkdir(parents=True, exist_ok=True)
            segment = _Segment(self.folder / segment_name(self.run_id, seq), picture.width, picture.height, t)
            segment.film_id = rows.add_film(self.run_id, seq=seq, file=segment.path.name, codec=CODEC,
                                            width=picture.width, height=picture.height, t0=segment.t0)
        segment.write(picture, t, flags | (OVERLAY if overlaid else 0))
        self.frames += 1
        return segment

    def _finish(self, rows: FilmRows | None, segment: _Segment) -> None:
        try:
            segment.close()
        except Exception as exc:
            self.error = self.error or f"{type(exc).__name__}: {exc}"
            log.warning("a film segment of run %s did not close: %s", self.run_id, exc)
        if rows is not None and segment.film_id is not None:
            try:
                rows.finish_film(segment.film_id, t1=segment.t1, frames=segment.frames, size=segment.size_bytes())
            except Exception as exc:
                log.warning("the film of run %s could not be registered: %s", self.run_id, exc)

    def _drain(self) -> None:
        """After a failure: keep taking (and forgetting) pictures so offer() never blocks, until STOP."""
        while True:
            item = self._queue.get()
            if item is _STOP:
                return


_STOP = object()
_RESTART = object()


class _Segment:
    """One Matroska file of one window size, with its index; written by the film's thread only."""

    def __init__(self, stem: Path, width: int, height: int, t0: float) -> None:
        self.path = stem.with_suffix(".mkv")
        self.index_path = stem.with_suffix(".idx")
        self.size = (width, height)
        self.t0 = t0
        self.t1 = t0
        self.frames = 0
        self.film_id: int | None = None
        self._even = (width + (width & 1), height + (height & 1))  # 4:2:0 needs even sides
        self._last_pts = -1
        self._held: tuple[int, int, int] | None = None
        self._index = os.open(self.index_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        self._container: Any = av.open(str(self.path), "w", format="matroska", options=dict(MUXER_OPTIONS))
        stream: Any = self._container.add_stream(CODEC)
        stream.width, stream.height = self._even
        stream.pix_fmt = "yuv420p"
        stream.time_base = TIME_BASE
        stream.codec_context.time_base = TIME_BASE
        stream.codec_context.framerate = Fraction(FILM_FPS)
        stream.codec_context.options = {"preset": PRESET, "crf": str(CRF), "tune": "zerolatency",
                                        "g": str(KEYFRAME_EVERY), "bf": "0", "threads": "1"}
        self._stream: Any = stream

    def write(self, picture: Picture, t: float, flags: int) -> None:
        pts = max(self._last_pts + 1, round((t - self.t0) * 1000))
        self._last_pts = pts
        pixels = np.frombuffer(picture.bgrx, dtype=np.uint8).reshape(picture.height, picture.width, 4)
        if (picture.width, picture.height) != self._even:
            pixels = np.pad(pixels, ((0, self._even[1] - picture.height), (0, self._even[0] - picture.width), (0, 0)),
                            mode="edge")
        frame = av.VideoFrame.from_ndarray(pixels, format="bgra")
        frame.pts = pts
        frame.time_base = TIME_BASE
        for packet in self._stream.encode(frame):
            self._mux(packet, flags)
        self.t1 = self.t0 + pts / 1000
        if not flags & REPEAT:
            self.frames += 1

    def _mux(self, packet: Any, flags: int) -> None:
        self._container.mux(packet)
        # The previous packet's cluster is complete in the file now: its record may be written.
        self._flush_held()
        self._held = (int(packet.pts or 0), flags | (KEY if packet.is_keyframe else 0), int(packet.size))

    def _flush_held(self) -> None:
        if self._held is not None:
            os.write(self._index, _RECORD.pack(*self._held))
            self._held = None

    def close(self) -> None:
        try:
            for packet in self._stream.encode(None):
                self._container.mux(packet)
                self._flush_held()
                self._held = (int(packet.pts or 0), KEY if packet.is_keyframe else 0, int(packet.size))
            self._container.close()
            self._flush_held()
        finally:
            os.close(self._index)

    def size_bytes(self) -> int:
        try:
            return self.path.stat().st_size + self.index_path.stat().st_size
        except OSError:
            return 0


def _wait(holding: bool, repeated: bool, written_at: float, interval: float) -> float | None:
    """How long the film's writer waits for the next picture: until a held picture's slot opens, until a still
    window's picture is due again (so a still window keeps its time in the film), or for ever."""
    now = time.time()
    if holding:
        return max(0.0, written_at + interval - now)
    if not repeated:
        return max(0.0, written_at + KEEPALIVE_S - now)
    return None
