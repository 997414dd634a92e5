"""Reading a run's film: the picture on screen at any moment, exactly, in a few milliseconds.

The index (``.idx`` beside each segment, see :mod:`app.engine.trace.film`) gives every
frame's time and the keyframes without touching the video, so opening a film of
any length reads a few hundred kilobytes.  A frame is decoded from the keyframe
before it (at most ``KEYFRAME_EVERY`` frames), or straight on from the frame
decoded last when that is nearer: scrubbing forward and playing a clip decode
each frame once.  Frames are found by their timestamps, so a seek is exact.

Not thread-safe: one reader per thread (the workbench decodes on a thread of its own).
"""

from __future__ import annotations

import bisect
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import av
import numpy as np
from PIL import Image

from app.engine.trace.film import INDEX, KEY, KEYFRAME_EVERY, OVERLAY, REPEAT
from app.engine.trace.store import TrajectoryStore


TIME_TOLERANCE_S = 0.001
"""Frame timestamps are rounded to the millisecond (and made to increase); see :meth:`FilmReader.index_at`."""


class FilmError(Exception):
    """A segment could not be decoded (a damaged or missing file)."""


@dataclass(frozen=True)
class FilmFrame:
    """One decoded picture: RGB pixels of the window and the wall time it was first on screen."""

    t: float
    width: int
    height: int
    rgb: bytes
    index: int
    """Its position in the film (all segments, repeats included)."""
    overlaid: bool = False
    """The engine had drawn over the window (a repaint probe) when it was captured."""

    def image(self) -> Image.Image:
        return Image.frombytes("RGB", (self.width, self.height), self.rgb)


@dataclass
class _Segment:
    row: dict[str, Any]
    path: Path
    records: np.ndarray
    first: int
    """Global index of its first frame."""
    container: Any = None
    stream: Any = None
    packets: Iterator[Any] | None = None
    pos: int = -1
    """Local index of the frame the decoder gave last (-1: none since the last seek)."""
    last: Any = None

    @property
    def width(self) -> int:
        return int(self.row["width"])

    @property
    def height(self) -> int:
        return int(self.row["height"])


class FilmReader:
    """The frames of one run's film across its segments; see the module docstring."""

    def __init__(self, folder: Path, rows: list[dict[str, Any]]) -> None:
        self._segments: list[_Segment] = []
        times: list[np.ndarray] = []
        flags: list[np.ndarray] = []
        first = 0
        for row in rows:
            path = folder / str(row["file"])
            records = _read_index(path.with_suffix(".idx"))
            if records.size == 0 or not path.exists():
                continue
            self._segments.append(_Segment(row, path, records, first))
            times.append(float(row["t0"]) + records["pts"].astype(np.float64) / 1000.0)
            flags.append(records["flags"])
            first += int(records.size)
        self.times: np.ndarray = np.concatenate(times) if times else np.zeros(0)
        """Wall time of every frame, ascending."""
        self.flags: np.ndarray = np.concatenate(flags) if flags else np.zeros(0, dtype=np.uint32)
        self._starts = [s.first for s in self._segments]

    @classmethod
    def open(cls, store: TrajectoryStore, run_id: int) -> FilmReader | None:
        """The run's film, or None when it has none (recorded without one, or its files are gone)."""
        rows = store.films(run_id)
        if not rows:
            return None
        reader = cls(store.films_dir, rows)
        return reader if len(reader) else None

    def __len__(self) -> int:
        return int(self.times.size)

    @property
    def start(self) -> float:
        return float(self.times[0])

    @property
    def end(self) -> float:
        """The time of the last frame, or of the segment's close when later (a still picture lasts until then)."""
        last = float(self.times[-1])
        ends = [float(s.row["t1"]) for s in self._segments if s.row.get("t1") is not None]
        return max([last, *ends])

    def change_times(self) -> np.ndarray:
        """Times at which the picture changed (repeats left out)."""
        return self.times[(self.flags & REPEAT) == 0]

    def index_at(self, t: float) -> int:
        """The frame on screen at ``t``: the last one at or before it (the first one before the film starts).

        Timestamps are whole milliseconds: a capture time given to the microsecond finds its own frame."""
        return max(0, int(np.searchsorted(self.times, t + TIME_TOLERANCE_S, side="right")) - 1)

    def frame_at(self, t: float, max_width: int | None = None) -> FilmFrame:
        return self.frame(self.index_at(t), max_width)

    def frame(self, index: int, max_width: int | None = None) -> FilmFrame:
        """Frame ``index``, decoded exactly; ``max_width``: scaled down to at most this wide."""
        if not 0 <= index < len(self):
            raise IndexError(index)
        seg = self._segments[bisect.bisect_right(self._starts, index) - 1]
        local = index - seg.first
        decoded = self._decode(seg, local)
        width, height = seg.width, seg.height
        out_w, out_h = width, height
        if max_width is not None and width > max_width:
            out_w, out_h = max_width, max(1, round(height * max_width / width))
        # Crop the even padding first (4:2:0 video has even sides), then convert (and scale) once.
        if (decoded.width, decoded.height) != (width, height):
            rgb = decoded.to_ndarray(format="rgb24")[:height, :width]
            image = Image.fromarray(np.ascontiguousarray(rgb), "RGB")
            if (out_w, out_h) != (width, height):
                image = image.resize((out_w, out_h), Image.Resampling.BILINEAR)
            data = image.tobytes()
        else:
            data = decoded.reformat(width=out_w, height=out_h, format="rgb24",
                                    interpolation="BILINEAR" if (out_w, out_h) != (width, height)
                                    else "FAST_BILINEAR").to_ndarray().tobytes()
        return FilmFrame(float(self.times[index]), out_w, out_h, data, index,
                         bool(int(seg.records["flags"][local]) & OVERLAY))

    def frames_between(self, t0: float, t1: float, max_width: int | None = None) -> Iterator[FilmFrame]:
        """Every frame on screen from ``t0`` to ``t1`` (the one showing at ``t0`` first), decoded in order."""
        if not len(self):
            return
        first = self.index_at(t0)
        last = max(first, self.index_at(t1))
        for index in range(first, last + 1):
            yield self.frame(index, max_width)

    def close(self) -> None:
        for seg in self._segments:
            if seg.container is not None:
                seg.container.close()
                seg.container = seg.stream = seg.packets = None
                seg.pos = -1

    def __enter__(self) -> FilmReader:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- decoding --------------------------------------------------------------------------
    def _decode(self, seg: _Segment, local: int) -> Any:
        if seg.pos == local and seg.last is not None:
            return seg.last
        key = _keyframe_at_or_before(seg.records, local)
        try:
            if seg.container is None:
                seg.container = av.open(str(seg.path))
                seg.stream = seg.container.streams.video[0]
                seg.stream.thread_type = "SLICE"
            if not (0 <= seg.pos < local and seg.pos >= key - 1 and seg.packets is not None):
                seg.container.seek(int(seg.records["pts"][key]), stream=seg.stream, backward=True)
                seg.stream.codec_context.flush_buffers()
                seg.packets = seg.container.demux(seg.stream)
                seg.pos = -1
            want = int(seg.records["pts"][local])
            assert seg.packets is not None
            for packet in seg.packets:
                for frame in packet.decode():
                    if frame.pts is None:
                        continue
                    seg.pos = int(np.searchsorted(seg.records["pts"], frame.pts))
                    seg.last = frame
                    if frame.pts >= want:
                        if frame.pts != want:
                            raise FilmError(f"{seg.path.name} has no frame at {want} ms")
                        return frame
        except (av.FFmpegError, OSError) as exc:
            seg.pos = -1
            raise FilmError(f"{seg.path.name} could not be decoded ({exc})") from exc
        seg.pos = -1
        raise FilmError(f"{seg.path.name} ends before its frame at {int(seg.records['pts'][local])} ms")


def _keyframe_at_or_before(records: np.ndarray, local: int) -> int:
    keys = np.flatnonzero((records["flags"][:local + 1] & KEY) != 0)
    return int(keys[-1]) if keys.size else 0


def _read_index(path: Path) -> np.ndarray:
    """The complete records of an index file (a record cut by a kill is left out)."""
    try:
        size = os.path.getsize(path)
    except OSError:
        return np.zeros(0, dtype=INDEX)
    count = size // INDEX.itemsize
    if not count:
        return np.zeros(0, dtype=INDEX)
    return np.fromfile(path, dtype=INDEX, count=count)


__all__ = ["FilmError", "FilmFrame", "FilmReader", "KEYFRAME_EVERY"]
