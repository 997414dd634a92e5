"""Short clips of the run's film around each finding, for the HTML report (an animated WebP each).

A clip shows :data:`CLIP_BEFORE_S` before the finding's moment and :data:`CLIP_AFTER_S`
after it, every frame the film kept, at the speed they were shown; the frame on
screen at the moment itself is outlined in red and held for :data:`MOMENT_HOLD_MS`,
so a one-frame flash can be seen.  The moment is the finding's ``evidence["film"]["t"]``
(the flash; for a freeze or a crash, the window's last change, see
:mod:`app.engine.run.film`), else the end of its step.  The picture is embedded as a
data URI: the report stays one self-contained file.
"""

from __future__ import annotations

import base64
import html
import io
from typing import Any

from PIL import Image, ImageDraw

from app.engine.trace.film_reader import FilmError, FilmFrame, FilmReader
from app.engine.trace.store import TrajectoryStore

CLIP_BEFORE_S = 2.0
CLIP_AFTER_S = 0.6
CLIP_WIDTH = 360
"""Clips are scaled down to at most this wide."""
CLIP_MAX_FRAMES = 60
"""Frames in one clip; a busier stretch is thinned, but the frames around the moment are all kept."""
MOMENT_NEIGHBOURS = 3
"""Frames either side of the moment's frame that thinning never drops."""
MOMENT_HOLD_MS = 900
MIN_FRAME_MS = 20
"""Browsers show a shorter frame of an animated image for 100 ms; a frame is shown at least this long."""
WEBP_QUALITY = 70
MAX_CLIPS = 12
"""Clips in one report (the first findings with a moment); the film stays in the bundle."""
OUTLINE = (229, 72, 77)


class ClipMaker:
    """Makes the clips of one run's report; the film is opened on first use and closed by :meth:`close`."""

    def __init__(self, store: TrajectoryStore, run: dict[str, Any], steps: list[dict[str, Any]]) -> None:
        self.store = store
        self.run = run
        self.steps = {int(s["idx"]): s for s in steps}
        self._reader: FilmReader | None = None
        self._opened = False
        self.made = 0

    @property
    def reader(self) -> FilmReader | None:
        if not self._opened:
            self._opened = True
            self._reader = FilmReader.open(self.store, int(self.run["id"]))
        return self._reader

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()

    def moment(self, finding: dict[str, Any]) -> float | None:
        """The wall time a finding's clip centres on (None: no time is known for it)."""
        evidence = finding.get("evidence")
        film = evidence.get("film") if isinstance(evidence, dict) else None
        if isinstance(film, dict) and isinstance(film.get("t"), (int, float)):
            return float(film["t"])
        step = self.steps.get(finding["step"]) if isinstance(finding.get("step"), int) else None
        if step is not None and step.get("ended_at") is not None:
            return float(step["ended_at"])
        return None

    def html(self, finding: dict[str, Any]) -> str:
        """A ``<figure>`` with the finding's clip, or "" (no film, no moment, or the report has enough clips)."""
        if self.made >= MAX_CLIPS:
            return ""
        moment = self.moment(finding)
        reader = self.reader if moment is not None else None
        if reader is None or moment is None or moment < reader.start - CLIP_BEFORE_S:
            return ""
        try:
            data, shown = self._webp(reader, moment)
        except (FilmError, OSError, ValueError) as exc:
            return f"<p class=muted>The film around this moment could not be read ({html.escape(str(exc))}).</p>"
        if not data:
            return ""
        self.made += 1
        t0 = float(self.run["started_at"])
        caption = (f"film t+{moment - t0:.2f} s (outlined, held), {shown} frames from "
                   f"t+{max(moment - CLIP_BEFORE_S, reader.start) - t0:.2f} s to t+{moment + CLIP_AFTER_S - t0:.2f} s")
        uri = "data:image/webp;base64," + base64.b64encode(data).decode("ascii")
        return (f'<figure class=clip><img src="{uri}" alt="clip of the film around the finding">'
                f"<figcaption>{html.escape(caption)}</figcaption></figure>")

    def _webp(self, reader: FilmReader, moment: float) -> tuple[bytes, int]:
        first = reader.index_at(moment - CLIP_BEFORE_S)
        last = reader.index_at(moment + CLIP_AFTER_S)
        at = reader.index_at(moment)
        chosen = _thin(list(range(first, last + 1)), at)
        frames: list[FilmFrame] = [reader.frame(i, CLIP_WIDTH) for i in chosen]
        if not frames:
            return b"", 0
        end = min(moment + CLIP_AFTER_S, max(reader.end, frames[-1].t))  # a film that ended (a crash) ends there
        images: list[Image.Image] = []
        durations: list[int] = []
        for n, frame in enumerate(frames):
            image = frame.image()
            until = frames[n + 1].t if n + 1 < len(frames) else max(end, frame.t)
            ms = max(MIN_FRAME_MS, round((until - max(frame.t, moment - CLIP_BEFORE_S)) * 1000))
            if frame.index == at:
                draw = ImageDraw.Draw(image)
                draw.rectangle((0, 0, image.width - 1, image.height - 1), outline=OUTLINE, width=3)
                ms = max(ms, MOMENT_HOLD_MS)
            images.append(image)
            durations.append(ms)
        buf = io.BytesIO()
        images[0].save(buf, format="WEBP", save_all=True, append_images=images[1:], duration=durations, loop=0,
                       quality=WEBP_QUALITY, method=4)
        return buf.getvalue(), len(images)


def _thin(indices: list[int], at: int) -> list[int]:
    """At most :data:`CLIP_MAX_FRAMES` of ``indices``, evenly, keeping those near ``at``."""
    if len(indices) <= CLIP_MAX_FRAMES:
        return indices
    keep = {i for i in indices if abs(i - at) <= MOMENT_NEIGHBOURS}
    room = max(1, CLIP_MAX_FRAMES - len(keep))
    step = len(indices) / room
    keep.update(indices[int(k * step)] for k in range(room))
    return sorted(keep)
