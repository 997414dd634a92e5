"""Differential play's pictures: what the reference changes by itself, and each step's comparison.

:class:`ScreenComparison` is the part of :class:`~app.engine.testers.differential.DifferentialTester`
that compares the candidate's pictures with the reference runs' (:mod:`app.engine.judge.compare`):
the *noise* (what the two reference runs disagree on, what the reference changes by itself, the
target's declared ``[differential] ignore`` regions) is learnt and never compared; a settled screen
(or, on the frame gate, the same frame) that differs gets a second look side by side (a program
that had not yet shown the engine's time catches up), then a watch, before a ``diverged`` finding.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any

import numpy as np

from app.engine.judge.compare import Divergence, changed_text, compare, difference_mask, grow, significant
from app.engine.judge.oracles import Finding
from app.engine.play.observer import Frame, Observation
from app.engine.testers.differential_references import CONFIRM_SAMPLE_S, ReferenceRuns

NOISE_WATCH_S = 1.0
"""The reference is watched this long at start, and again before a divergence is called."""
CATCH_UP_SAMPLE_S = 0.02
"""Between two looks at programs catching up with the engine's time (a Qt timer of 30 ms has ticked by then)."""
CATCH_UP_S = 0.3
"""On a difference, how long the three programs are looked at again side by side before the watch: enough
for a Qt or Tk timer to show the engine's latest time in each (a tick at most a few tenths apart)."""
UNREPRODUCIBLE_SHARE = 0.25
"""Two reference runs that differ over this share of the window do not reproduce each other."""
MAX_IGNORED_SHARE = 0.5
"""A screen whose noise (grown) covers more than this share of the window is not compared."""


class ScreenComparison(ReferenceRuns):
    """Noise learnt from the reference runs, and the candidate's pictures judged against theirs."""

    noise: np.ndarray | None
    declared: np.ndarray | None
    diverged: Finding | None
    unreproducible: str
    compared: int
    animating: int
    masked: int
    caught_up: int
    lockstep_compared: int
    reference_frames: dict[int, Frame]
    agreed: set[int]
    _lock: threading.Lock

    def _learn_noise(self, seconds: float) -> None:
        """What the reference changes by itself, and where its two runs differ, is noise.  On the frame gate
        nothing changes by itself (every program stands still between frames it is granted), so only the two
        runs are compared; what changes from frame to frame is compared at the same frame at every step."""
        masks = [np.zeros_like(self.noise) if self.noise is not None else None for _ in self.players]
        jobs = []
        for player, mask in zip(self.players if not self._in_lockstep() else [], masks):
            assert player.observer is not None
            jobs.append(self.pool.submit(player.observer.motion, seconds, time.sleep, mask))
        for job in jobs:
            job.result()
        for mask in masks:
            self._add_noise(mask)
        a, b = self.players[0].observer, self.players[1].observer
        assert a is not None and b is not None
        self._self_check(a.capture(), b.capture())

    def _add_noise(self, mask: np.ndarray | None) -> None:
        """Add what changed by itself.  A change over a quarter of the window is a new scene (the
        program still drawing its first screen, a level that ends), not noise: masked, it would
        hide every later difference and the run would pass having compared nothing."""
        if mask is not None and self.noise is not None and mask.shape == self.noise.shape:
            if mask.mean() <= UNREPRODUCIBLE_SHARE:
                self.noise |= mask

    def _self_check(self, a: Frame, b: Frame) -> None:
        """Two runs of the reference, same seed, same inputs: what differs is noise — unless it is everything."""
        mask = difference_mask(a, b)
        if mask is None:
            self.unreproducible = "the reference opened windows of different sizes in two runs with the same seed"
            return
        count, _ = significant(mask & ~self._ignored(mask.shape))
        if count / mask.size > UNREPRODUCIBLE_SHARE:
            self.unreproducible = (f"the reference does not reproduce itself: two runs with the same seed and inputs "
                                   f"differ over {100 * count / mask.size:.0f}% of the window")
        self._add_noise(mask)


    def _ignored(self, shape: tuple[int, int]) -> np.ndarray:
        ignored = grow(self.noise) if self.noise is not None and self.noise.shape == shape else np.zeros(shape, bool)
        if self.declared is not None and self.declared.shape == shape:
            ignored = ignored | self.declared
        return ignored


    def _judge_pixels(self, step: int | None, observed: Observation) -> None:
        if self.unreproducible or self.diverged is not None:
            return
        if self._in_lockstep():
            self._judge_lockstep(step)
            return
        if not observed.settled or not all(o.settled for o in self.ref_obs):
            # A moving window runs on the wall clock: three programs started at different
            # moments show different moments of it.  Only settled screens are compared.
            self.animating += 1
            return
        candidate = observed.frame
        shape = (candidate.height, candidate.width)
        ignored = self._ignored(shape)
        if ignored.mean() > MAX_IGNORED_SHARE:
            self.masked += 1  # what changes by itself covers most of the window: nothing left to compare
            return
        self.compared += 1
        found = compare(candidate, self._references(), ignored) or self._text_differs(candidate, ignored)
        if found is None:
            self._agreed(step)
            return
        # A closer look before calling it.  First side by side: the programs' Python clocks stand still
        # between steps, but a Qt or Tk timer shows the engine's latest time only at its next tick (on the
        # wall clock), which one program may not have had when it was looked at.
        if self._look_again(step, shape):
            return
        # Then a caret or a wall clock may just have been in another phase.  Watch both programs, learn
        # what each changes by itself, and look for any pair of frames that agree.
        observers = [p.observer for p in self.players[:1]]
        playing = self.ctx.player if self.ctx is not None else None
        candidate_observer = playing.observer if playing is not None else None
        watched = [self.pool.submit(self._watch, o, NOISE_WATCH_S) for o in observers if o is not None]
        # The candidate is the program being judged: what it changes by itself is looked at (a caret in
        # another phase), never learnt as noise; noise is only what the references do.
        own = (self._watch(candidate_observer, NOISE_WATCH_S, learn=False) if candidate_observer is not None
               else [candidate])
        watched_frames = [w.result() for w in watched]
        seen = self._references() + [f for frames in watched_frames for f in frames]
        now = [frames[-1] for frames in watched_frames if frames]  # the text is read against what they show now
        ignored = self._ignored(shape)  # again: the closer look learnt more noise
        best = None
        for frame in [candidate, *own]:
            found = compare(frame, seen, ignored) or self._text_differs(frame, ignored, now or None)
            if found is None:
                self._agreed(step)
                return
            if best is None or found.pixels < best.pixels:
                best = found
        assert best is not None
        self._diverge(step, candidate, best)

    def _judge_lockstep(self, step: int | None) -> None:
        """Same frame, same inputs: the two reference runs must agree, and the candidate with them."""
        candidate, refs = self._same_frame()
        # The explorer goes on from the reference as it stands now; the step shows that frame.
        self.ref_obs = [dataclasses.replace(o, frame=f) for o, f in zip(self.ref_obs, refs)]
        if step is not None and refs:
            self.reference_frames[step] = refs[0]
        if len(refs) == 2:
            self._self_check(*refs)
            if self.unreproducible:
                self.unreproducible += f" (on the frame gate, at frame {self.lockstep_frame})"
                return
        shape = (candidate.height, candidate.width)
        ignored = self._ignored(shape)
        if ignored.mean() > MAX_IGNORED_SHARE:
            self.masked += 1
            return
        self.compared += 1
        self.lockstep_compared += 1
        found = compare(candidate, refs, ignored) or self._text_differs(candidate, ignored)
        if found is not None:
            self._diverge(step, candidate, found)
        else:
            self._agreed(step)

    def _agreed(self, step: int | None) -> None:
        if step is not None:
            self.agreed.add(step)

    def _look_again(self, step: int | None, shape: tuple[int, int]) -> bool:
        """Look at the candidate and both reference runs again, side by side, every :data:`CATCH_UP_SAMPLE_S`
        for up to :data:`CATCH_UP_S`: do they agree now (then the step agreed, the references' frames are
        these, and nothing is learnt as noise)?  Only the wall clock moved in between: a program that had
        not yet shown the engine's time has caught up."""
        candidate = self._candidate()
        observers = [p.observer for p in self.players if p.observer is not None]
        if candidate is None or candidate.observer is None or len(observers) < len(self.players):
            return False
        end = time.monotonic() + CATCH_UP_S
        while time.monotonic() < end:
            time.sleep(CATCH_UP_SAMPLE_S)
            jobs = [self.pool.submit(o.capture) for o in observers]
            mine = candidate.observer.capture()
            refs = [j.result() for j in jobs]
            if (mine.height, mine.width) != shape:
                return False
            ignored = self._ignored(shape)
            if compare(mine, refs, ignored) is None and self._text_differs(mine, ignored, refs) is None:
                self.ref_obs = [dataclasses.replace(o, frame=f) for o, f in zip(self.ref_obs, refs)]
                if step is not None:
                    self.reference_frames[step] = refs[0]
                self._agreed(step)
                self.caught_up += 1
                return True
        return False

    def _text_differs(self, frame: Frame, ignored: np.ndarray,
                      refs: list[Frame] | None = None) -> Divergence | None:
        """Small text (one-pixel strokes) that reads differently from what every reference run shows now
        (``refs``: their pictures taken now; by default those of the step's look)."""
        found = None
        for ref in refs if refs is not None else [obs.frame for obs in self.ref_obs]:
            found = changed_text(frame, ref, ignored)
            if found is None:
                return None
        return found

    def _watch(self, observer: Any, seconds: float, learn: bool = True) -> list[Frame]:
        """Frames of one program over ``seconds`` with no input; what a reference changes (``learn``) is
        added to the noise."""
        frames: list[Frame] = []
        end = time.monotonic() + seconds
        prev = observer.capture()
        while time.monotonic() < end:
            time.sleep(CONFIRM_SAMPLE_S)
            cur = observer.capture()
            if not cur.same_as(prev):
                if learn:
                    mask = difference_mask(prev, cur)
                    with self._lock:
                        self._add_noise(mask)
                frames.append(cur)
            prev = cur
        frames.append(prev)
        return frames

    def _diverge(self, step: int | None, candidate: Frame, found: Divergence) -> None:
        evidence: dict[str, Any] = {"bbox": list(found.bbox), "pixels": found.pixels, "share": round(found.share, 4)}
        if self.store is not None:
            ref = found.reference
            evidence["reference_frame"] = self.store.put_frame(ref.width, ref.height, ref.bgrx)
            evidence["candidate_frame"] = self.store.put_frame(candidate.width, candidate.height, candidate.bgrx)
        what = found.reason or (f"{found.pixels} pixels in [{', '.join(map(str, found.bbox))}] differ from what "
                                "the reference shows after the same inputs")
        finding = Finding("diverged", what, step, evidence, fatal=True)
        self.diverged = finding
        self.findings.append(finding)
