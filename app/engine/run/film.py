"""RunFilm: a session's film — the observer's captures into the film, the flash oracle beside it.

The session owns one per run.  It attaches to the current observer (a restarted
program brings a new one), turns flashes into ``glitch`` findings with their two
pictures stored as frames, and stamps every finding with film times
(``evidence["film"]``): ``t``, the moment a clip of the finding centres on (the
flash itself; for a freeze the window's last change; for a crash or an exit the
last picture the program drew), and
``last_change_t``, when the program last changed its window by itself.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Iterable

from app.engine.judge.glitch import Flash, FlashWatcher
from app.engine.judge.oracles import Finding
from app.engine.play.observer import Frame, VisualObserver
from app.engine.play.targetspec import Timing
from app.engine.trace.film import FilmRecorder, FilmStats
from app.engine.trace.store import TrajectoryStore

POLLS_PER_FRAME = 2
"""The window is polled this many times per film frame: a game drawing at the film's rate loses none."""
GLITCH_FINDINGS = 5
"""Glitch findings one run records (one per step at most); later flashes are only counted in the last."""
MODE_CHANGE_SLACK_S = 0.25
"""A flash this close to a display mode change the program said it made belongs to that change."""
LAST_CHANGE_KINDS = ("freeze", "blank")
"""Findings whose clip centres on the window's last change: what it showed as it stopped."""
LAST_DRAWN_KINDS = ("crash", "exit")
"""Findings whose clip centres on the last picture the program drew (its window may be gone since)."""


class RunFilm:
    """The film of one run; ``fps`` 0 films nothing (findings are still stamped with times)."""

    def __init__(self, store: TrajectoryStore, run_id: int, fps: float, timing: Timing) -> None:
        self.store = store
        self.watcher = FlashWatcher(timing)
        self.recorder: FilmRecorder[Frame] | None = None
        if fps > 0:
            path = store.path
            self.recorder = FilmRecorder(store.films_dir, run_id, lambda: TrajectoryStore(path), fps=fps,
                                         watchers=[self.watcher])
        self.fps = fps
        self._observer: VisualObserver | None = None
        self.stats: FilmStats | None = None
        self._glitches = 0

    def attach(self, observer: VisualObserver | None) -> None:
        """Film ``observer`` from now on (a no-op when it is the one already filmed)."""
        if observer is self._observer or self.recorder is None:
            return
        self.detach()
        if observer is None:
            return
        self._observer = observer
        observer.tap = self.recorder.offer
        observer.stream(self.fps * POLLS_PER_FRAME)

    def detach(self) -> None:
        old, self._observer = self._observer, None
        if old is not None:
            old.tap = None
            old.stop_stream()
            if self.recorder is not None:
                self.recorder.restart()

    @property
    def frames(self) -> int:
        return self.recorder.frames if self.recorder is not None else 0

    def glitches(self, step: int | None, display_changes: Iterable[float] = ()) -> list[Finding]:
        """The flashes seen since the last call, as one non-fatal ``glitch`` finding (their pictures stored).

        ``display_changes``: when the program changed its display mode (wall time). A flash around one is the
        toolkit's new, empty surface shown until the program drew again (a fullscreen toggle), not a glitch."""
        changes = list(display_changes)
        flashes = [f for f in self.watcher.take()
                   if not any(f.t - MODE_CHANGE_SLACK_S <= c <= f.t + f.seconds + MODE_CHANGE_SLACK_S for c in changes)]
        if not flashes or self._glitches >= GLITCH_FINDINGS:
            return []
        self._glitches += 1
        first = flashes[0]
        with self.store.transaction():
            before = _put(self.store, first.before)
            flash = _put(self.store, first.flash)
        more = f" ({len(flashes)} such flashes since the last step)" if len(flashes) > 1 else ""
        if self._glitches == GLITCH_FINDINGS:
            more += "; later flashes are not reported"
        return [Finding(
            "glitch",
            f"a picture flashed up for {first.seconds * 1000:.0f} ms between two equal ones, changing "
            f"{first.share:.0%} of the window{more}",
            step, {**first.evidence(), "count": len(flashes), "frame_before": before, "frame_flash": flash,
                   "film": {"t": round(first.t, 4), "t_end": round(first.t + first.seconds, 4)}})]

    def stamp(self, finding: Finding) -> Finding:
        """``finding`` with its film times in ``evidence["film"]`` (kept when already there)."""
        now = time.time()
        film: dict[str, Any] = dict(finding.evidence.get("film") or {})
        last = self.watcher.last_change_t
        if last is not None:
            film.setdefault("last_change_t", round(last, 4))
        drawn = self.watcher.last_drawn_t
        anchor = last if finding.kind in LAST_CHANGE_KINDS and last is not None else \
            drawn if finding.kind in LAST_DRAWN_KINDS and drawn is not None else now
        film.setdefault("t", round(anchor, 4))
        film.setdefault("found_t", round(now, 4))
        return replace(finding, evidence={**finding.evidence, "film": film})

    def close(self) -> FilmStats | None:
        self.detach()
        if self.recorder is not None and self.stats is None:
            self.stats = self.recorder.close()
        return self.stats


def _put(store: TrajectoryStore, frame: Frame) -> str:
    return store.put_frame(frame.width, frame.height, frame.bgrx)


__all__ = ["Flash", "RunFilm"]
