"""The paced check: what lockstep hides, watched off the frame gate and off the pinned clocks.

Differential play compares a game frame by frame on the frame gate:
``Clock.tick`` returns the nominal frame time, frames are aligned by count and
Python's clocks read the engine's time (a fixed date, 2026-01-01 12:00 UTC).
A candidate that runs at another frame rate (no ``tick``, or a raised one),
moves by the frame where it should move by the time, or reads the date or
the time zone wrongly shows the same frames there as its reference.

So, before the lockstep run, the candidate and its reference are started
once more each, on private displays of their own, **not** on the gate and
**not** on the engine's clock (the machine's date and time), in a time zone
away from UTC (:data:`PACED_ZONE`, half an hour off as well), with the same
seed.  Both are watched at the same moment for :data:`PACED_WATCH_S` with no
input, sampling their windows as fast as the capture allows, and compared:

- **drawing requests per second** (the X server's DAMAGE events on the
  program's private display: its frame rate, however fast it draws),
  **pictures per second** (distinct successive pictures seen, up to the
  capture's rate) and **motion per second** (the share of the window
  that changed between samples, summed per second): a ratio beyond
  :data:`PACED_TOLERANCE` either way is a ``paced`` finding;
- where **both stood still** the whole watch, their pictures: a still window
  that differs from its reference's off the pinned clock (a date, a time
  zone) by more than a caret or a thin line is a ``paced`` finding too.

When that first watch finds nothing, both get the same key (the reference's
first hinted key, never Escape or ``q``) and are watched again for pace: a
game that moves only once played (a snake that starts at the first arrow).

A window that barely moves in both (below :data:`MIN_PICTURES_PER_S` and
:data:`MIN_MOTION_PER_S`) is not compared for pace.  What this cannot see: a
pace difference smaller than the tolerance, a frame rate above what the
capture can sample (both then read as the capture's rate; motion still
differs), the frame rates of two programs without a frame cap (both above
:data:`UNCAPPED_DRAWS_PER_S`: they draw as fast as the machine lets them, so
their rates tell the load, not the program), a lag after an input (only one
key is sent, and pace is averaged over the watch), what needs more than one input to start moving, and a date
bug that shows only on some dates.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from Xlib.ext import damage

from app.engine.judge.compare import compare
from app.engine.judge.oracles import SCREEN_MIN_SIDE, Finding
from app.engine.play.actions import Press
from app.engine.play.display import ISOLATED, XDisplay, open_display
from app.engine.play.observer import Frame, changed_mask
from app.engine.play.player import Player, stop_programs
from app.engine.play.xconn import open_x
from app.engine.play.targetspec import TargetSpec

PACED_WATCH_S = 3.0
"""How long both programs are watched, at the same moment, with no input."""
PACED_WARMUP_S = 1.0
"""After both windows appeared: time for each to draw its first screens before the watch."""
PACED_TOLERANCE = 1.5
"""Pictures or motion per second more than this many times the reference's (or less than its share) differ."""
UNCAPPED_DRAWS_PER_S = 250.0
"""Drawing requests per second above any frame cap a game sets (60, 120, 144, 240): a program drawing faster has
no cap and draws as fast as the machine lets it.  Two such programs' frame rates are the machine's load, not
theirs, and are not compared (a missing cap against a capped reference still is)."""
MIN_PICTURES_PER_S = 2.0
MIN_MOTION_PER_S = 0.002
"""Below both (a still window, a caret), a program's pace is not compared."""
PACED_ZONE = "<+0530>-5:30"
"""The time zone both programs run in (POSIX form, UTC+5:30: no zone file needed); this machine and CI run in UTC."""
WATCHES = 2
"""A pace difference counts only when every watch sees it (a busy machine can starve one program for a while)."""
ENDING_KEYS = {"escape", "q"}
"""Hinted keys the second watch never presses: by convention they end a program."""
PRESS_SETTLE_S = 0.3
"""After the key: time for both programs to take it before the second watch."""
SAMPLE_S = 0.002
"""The least time between two samples of a window (the capture itself takes longer)."""


@dataclass(frozen=True)
class Pace:
    """What one program did over a watch with no input."""

    seconds: float
    samples: int
    pictures: int
    """Samples that differed from the one before: new pictures seen."""
    changed: float
    """Changed share of the window, summed over successive samples."""
    last: Frame | None
    draws: int = 0
    """Drawing requests the X server reported on the program's private display (DAMAGE events): its frame
    rate, counted without the capture's limit."""

    @property
    def pictures_per_s(self) -> float:
        return self.pictures / self.seconds if self.seconds > 0 else 0.0

    @property
    def motion_per_s(self) -> float:
        return self.changed / self.seconds if self.seconds > 0 else 0.0

    @property
    def draws_per_s(self) -> float:
        return self.draws / self.seconds if self.seconds > 0 else 0.0

    @property
    def samples_per_s(self) -> float:
        return self.samples / self.seconds if self.seconds > 0 else 0.0

    @property
    def moving(self) -> bool:
        return (self.pictures_per_s >= MIN_PICTURES_PER_S or self.motion_per_s >= MIN_MOTION_PER_S
                or self.draws_per_s >= MIN_PICTURES_PER_S)

    def summary(self) -> dict[str, float]:
        return {"pictures_per_s": round(self.pictures_per_s, 1), "motion_per_s": round(self.motion_per_s, 4),
                "draws_per_s": round(self.draws_per_s, 1), "samples_per_s": round(self.samples_per_s, 1)}


def watch(capture: Callable[[], Frame], seconds: float, start_at: float | None = None,
          sleep: Callable[[float], None] = time.sleep) -> Pace:
    """Sample ``capture`` as fast as it goes for ``seconds`` (from ``start_at`` on the monotonic clock)."""
    if start_at is not None:
        sleep(max(0.0, start_at - time.monotonic()))
    prev = capture()
    t0 = time.monotonic()
    samples = pictures = 0
    changed = 0.0
    while time.monotonic() - t0 < seconds:
        sleep(SAMPLE_S)
        cur = capture()
        samples += 1
        if not cur.same_as(prev):
            mask = changed_mask(prev, cur)
            pictures += 1
            changed += float(mask.mean()) if mask is not None else 1.0
        prev = cur
    return Pace(time.monotonic() - t0, samples, pictures, changed, prev)


def count_draws(display_name: str, seconds: float, start_at: float | None = None,
                sleep: Callable[[float], None] = time.sleep) -> int:
    """DAMAGE events of the whole private display over ``seconds``: every drawing request of the program
    (a pygame flip is one or two), however fast it draws."""
    conn = open_x(display_name)
    try:
        conn.damage_query_version()
        conn.screen().root.damage_create(damage.DamageReportRawRectangles)  # freed with the connection
        if start_at is not None:
            sleep(max(0.0, start_at - time.monotonic()))
        while conn.pending_events():  # what was drawn before the watch
            conn.next_event()
        count = 0
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            while conn.pending_events():
                conn.next_event()
                count += 1
            sleep(SAMPLE_S)
        return count
    finally:
        conn.close()


def _ratio(a: float, b: float) -> float:
    if a == b:
        return 1.0
    if min(a, b) <= 0:
        return float("inf")
    return max(a, b) / min(a, b)


def judge_pace(candidate: Pace, reference: Pace, tolerance: float = PACED_TOLERANCE) -> str:
    """Why the candidate's pace differs from the reference's, or ''."""
    if not candidate.moving and not reference.moving:
        return ""
    why = []
    uncapped = min(candidate.draws_per_s, reference.draws_per_s) > UNCAPPED_DRAWS_PER_S
    if max(candidate.draws_per_s, reference.draws_per_s) >= MIN_PICTURES_PER_S and not uncapped and \
            _ratio(candidate.draws_per_s, reference.draws_per_s) > tolerance:
        why.append(f"{candidate.draws_per_s:.0f} drawing requests per second where the reference makes "
                   f"{reference.draws_per_s:.0f} (its frame rate)")
    if max(candidate.pictures_per_s, reference.pictures_per_s) >= MIN_PICTURES_PER_S and \
            _ratio(candidate.pictures_per_s, reference.pictures_per_s) > tolerance:
        why.append(f"{candidate.pictures_per_s:.0f} new pictures per second where the reference shows "
                   f"{reference.pictures_per_s:.0f}")
    if max(candidate.motion_per_s, reference.motion_per_s) >= MIN_MOTION_PER_S and \
            _ratio(candidate.motion_per_s, reference.motion_per_s) > tolerance:
        why.append(f"{100 * candidate.motion_per_s:.1f}% of the window changing per second where the reference "
                   f"changes {100 * reference.motion_per_s:.1f}%")
    return "; ".join(why)


def paced_spec(spec: TargetSpec) -> TargetSpec:
    """The program as the paced watch starts it: in :data:`PACED_ZONE`."""
    return dataclasses.replace(spec, env={**spec.env, "TZ": PACED_ZONE})


class PacedCheck:
    """Start the candidate and its reference off the gate and off the pinned clocks, watch both, compare."""

    def __init__(self, candidate: TargetSpec, reference: TargetSpec, seed: int,
                 put_frame: Callable[[Frame], str] | None = None, seconds: float = PACED_WATCH_S) -> None:
        self.specs = (paced_spec(candidate), paced_spec(reference))
        self.seed = seed
        self.put_frame = put_frame
        self.seconds = seconds
        self.paces: tuple[Pace, Pace] | None = None
        """The last watch of both (after the key, when one was pressed)."""
        self.pressed = ""
        self.note = ""
        """Why the check could not be made ('' when it was)."""
        self.unsteady = ""
        """Why the reference's last watches disagreed with each other on its pace ('' when they agreed)."""

    def run(self, ready: Callable[[], bool] | None = None) -> Finding | None:
        """Start both programs, watch, compare.  ``ready`` is waited for once both windows appeared (the
        caller starts other programs meanwhile, which must not share the machine with the watch); when it
        returns False the check is not made."""
        displays: list[XDisplay] = []
        players: list[Player] = []
        lock = threading.Lock()
        try:
            with ThreadPoolExecutor(max_workers=4, thread_name_prefix="paced") as pool:
                def start(spec: TargetSpec) -> Player:
                    display = open_display(ISOLATED, spec.size)
                    player = Player(spec, display, self.seed, time.sleep)  # not gated: the machine's clocks
                    with lock:
                        displays.append(display)
                        players.append(player)
                    player.start()
                    return player

                candidate, reference = [f.result() for f in [pool.submit(start, s) for s in self.specs]]
                both = (candidate, reference)
                warmed = time.monotonic() + PACED_WARMUP_S
                if ready is not None and not ready():
                    self.note = "the paced check was not made: the run ended before it"
                    return None
                paces = self._watch(pool, both, warmed)
                found = self._finding(*paces, "with no input")
                key = self._key()
                if found is None and key:
                    # A game that moves only once played (a snake that starts at the first arrow): the same
                    # key to both, then the same watch.
                    for job in [pool.submit(self._press, p, key) for p in both]:
                        job.result()
                    self.pressed = key
                    paces = self._watch(pool, both, time.monotonic() + PRESS_SETTLE_S)
                    found = self._finding(*paces, f"after one press of {key!r}", still=False)
        except Exception as exc:  # a program that does not start off the gate: the lockstep run says why
            self.note = f"the paced check could not be made: {exc}"
            return None
        finally:
            stop_programs(players, displays)
        self.paces = paces
        return found

    def _watch(self, pool: ThreadPoolExecutor, both: tuple[Player, Player], begin: float) -> tuple[Pace, Pace]:
        """Both programs watched at the same moment; a pace difference must be seen in every watch, and the
        reference must keep its own pace from watch to watch (:attr:`unsteady` says when it did not)."""
        paces: tuple[Pace, Pace] | None = None
        references: list[Pace] = []
        self.unsteady = ""
        for _ in range(WATCHES):
            time.sleep(max(0.0, begin - time.monotonic()))
            for player in both:  # a window that took its size since it opened is watched where it is now
                if player.target is not None:
                    player.target.refresh_geometry(before=player.display.hold)  # and its screen grows to hold it
            begin = time.monotonic()
            jobs = [pool.submit(watch, self._capture(p), self.seconds, begin) for p in both]
            draws = [pool.submit(count_draws, p.display.name, self.seconds, begin) for p in both]
            paces = (dataclasses.replace(jobs[0].result(), draws=draws[0].result()),
                     dataclasses.replace(jobs[1].result(), draws=draws[1].result()))
            references.append(paces[1])
            if not judge_pace(*paces):
                break
            begin = time.monotonic()
        assert paces is not None
        if len(references) > 1:
            # A reference that does not keep its own pace from one watch to the next (no frame cap: it draws
            # as fast as the machine lets it, or when it likes) has no pace to hold a candidate to; what two
            # looks at the reference disagree on is not compared, as in the lockstep run.
            self.unsteady = judge_pace(references[-1], references[0])
        return paces

    def _key(self) -> str:
        """The reference's first hinted key that does not end a program by convention."""
        return next((k for k in self.specs[1].keys if k.lower() not in ENDING_KEYS and "+" not in k), "")

    @staticmethod
    def _press(player: Player, key: str) -> None:
        assert player.executor is not None
        player.executor.execute(Press(key))

    @staticmethod
    def _capture(player: Player) -> Callable[[], Frame]:
        observer = player.observer
        assert observer is not None
        return observer.capture

    def _finding(self, candidate: Pace, reference: Pace, when: str, still: bool = True) -> Finding | None:
        evidence: dict[str, Any] = {"candidate": candidate.summary(), "reference": reference.summary(),
                                    "seconds": self.seconds, "tolerance": PACED_TOLERANCE, "zone": PACED_ZONE,
                                    "when": when}
        why = judge_pace(candidate, reference)
        if why and self.unsteady:
            self.note = ("off the frame gate, the pace was not compared: the reference's own pace differed between "
                         f"two watches ({self.unsteady.replace('the reference makes', 'its first watch made')})")
            why = ""
        if why:
            return Finding("paced", f"off the frame gate, watched {self.seconds:.0f} s {when}: {why} "
                                    "(its pace differs from the reference's)", None, evidence)
        if not still or candidate.pictures or reference.pictures or candidate.last is None or reference.last is None:
            return None
        if (candidate.last.width, candidate.last.height) != (reference.last.width, reference.last.height):
            return None  # a window still taking its size: the lockstep run compares sizes
        found = compare(candidate.last, [reference.last], np.zeros((reference.last.height, reference.last.width),
                                                                    dtype=bool))
        if found is None:
            return None
        x0, y0, x1, y1 = found.bbox
        if min(x1 - x0, y1 - y0) < SCREEN_MIN_SIDE:
            # A caret or a thin line: shown in one still picture and not in the other (a caret stops blinking
            # after a while, in whichever phase it was on the machine's clock); a date or a time is text.
            return None
        evidence.update({"bbox": list(found.bbox), "pixels": found.pixels})
        if self.put_frame is not None:
            evidence["candidate_frame"] = self.put_frame(candidate.last)
            evidence["reference_frame"] = self.put_frame(reference.last)
        return Finding("paced", "off the pinned clock (the machine's date and time, time zone UTC+5:30), the "
                                f"still window differs from the reference's: {found.pixels} pixels in "
                                f"[{', '.join(map(str, found.bbox))}]", None, evidence)
