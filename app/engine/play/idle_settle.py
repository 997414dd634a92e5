"""Settling from inside: the after-picture is taken when the program says its event loop is idle.

Pixel settling cannot tell "done" from "about to change": it watches every
input for ``react_ms`` and then waits for stillness, so a step costs about
400 ms and a reaction scheduled 400 ms later is still missed.  A Python
program on Tk or Qt says from inside (:class:`~app.engine.play.inside.Inside`)
when its loop is back with nothing queued and which timer is due next, as
Espresso's idling resources and Playwright's auto-waiting do:

- idle, no one-shot timer due within :data:`IDLE_HORIZON_MS`: capture, ask
  once more and capture again; two equal pictures are the settled answer;
- a one-shot timer due within the horizon (a reaction 150 ms or 400 ms after
  the click): wait until it is due, then ask again, up to the cap;
- a timer that repeats (a blinking caret, a clock) never holds a step, nor
  does a chain of one-shots (at most :data:`MAX_TIMER_WAITS` a step), nor a
  timer that stays overdue after it was waited for (it will not fire);
- a picture that changes at every idle answer (an animation run by a
  repeating timer) is looked at after ``moving_s``, as pixel settling does.

Programs without the probe (not Python, pygame, an unknown toolkit) keep
pixel settling (:meth:`VisualObserver.settle <app.engine.play.observer.VisualObserver.settle>`).
This module knows nothing of the observer: it gets a capture function and
returns what it saw, so the observer can use it without an import cycle.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Generic, Mapping, Protocol, TypeVar

from app.engine.errors import UserError
from app.engine.play.inside import IdleReport

IDLE_HORIZON_MS = 1000.0
"""A one-shot timer due within this long after the program went idle is waited for (a delayed reaction);
one due later is the program's own business and does not hold the step."""
TIMER_SLACK_S = 0.004
"""After a timer's due time, before the loop is asked again: the timer fires, then the loop paints."""
BUSY_RETRY_S = 0.002
"""The loop answered but still had events queued: ask again after this long."""
CONFIRM_GAP_S = 0.001
"""Between an idle picture and the next question (the confirming picture follows the next idle answer)."""
BROKEN_SHARE = 0.5
"""A first question that comes back unanswered in less than this share of its timeout means the channel
cannot answer (the program ended, or its toolkit cannot tell): the caller falls back to pixels."""
MAX_TIMER_WAITS = 2
"""One-shot timers waited for in one step at most: a chain of them (a poll or an animation that schedules a
new callback each time, which the program side cannot tell from a reaction) does not hold the step to its cap."""
LOOP_TOOLKITS = ("tk", "qt", "web")
"""Toolkits whose event loop the probe sees (a web page's through the DevTools protocol); pygame's frames are
the frame gate's business."""


SETTLE_ENV = "PLAYCODER_SETTLE"
"""``pixels``: settle every program from pixels at a person's pace, even one that can be asked from inside
(to compare verdicts and speed with the fallback); ``auto`` (the default): from inside where the program
can be asked."""
SETTLE_MODES = ("auto", "pixels")


def settle_mode(environ: Mapping[str, str] | None = None) -> str:
    """The settling asked for in :data:`SETTLE_ENV` ("auto" when unset); an unknown value is a user error."""
    value = (os.environ if environ is None else environ).get(SETTLE_ENV, "").strip().lower() or "auto"
    if value == "inside":
        value = "auto"  # inside is only ever possible where the program can be asked
    if value not in SETTLE_MODES:
        raise UserError(f"{SETTLE_ENV}={value!r} is not a settling; use 'auto' (from inside where the program "
                        "can be asked) or 'pixels'.")
    return value


class Picture(Protocol):
    """A capture (:class:`~app.engine.play.observer.Frame`): all settling needs is to compare two."""

    def same_as(self, other: Any) -> bool: ...


P = TypeVar("P", bound=Picture)


class IdleProbe(Protocol):
    """What settling needs of :class:`~app.engine.play.inside.Inside`."""

    @property
    def available(self) -> bool: ...
    @property
    def toolkit(self) -> str: ...
    def idle(self, timeout_s: float, quick: bool = False) -> IdleReport | None: ...


def sees_loop(probe: IdleProbe | None) -> bool:
    """Can this probe tell when the program's event loop is idle (a Python program on Tk or Qt)?"""
    return probe is not None and probe.available and probe.toolkit in LOOP_TOOLKITS


@dataclass(frozen=True)
class IdleOutcome(Generic[P]):
    """What settling from inside saw.  ``answered`` False: the probe could not answer, use pixels."""

    frame: P | None
    settled: bool
    samples: int
    answered: bool
    busy: bool
    """The loop did not come back to idle before the cap (a long handler, or a frozen program)."""
    timers: int
    """One-shot timers waited for."""
    busy_s: float = 0.0
    """From the first question until the program had finished reacting: the idle answer (nothing due) whose
    picture was then confirmed; the whole wait when it never finished (the cap, an animation)."""
    ticking: bool = False
    """At the last idle answer a repeating timer was due within the horizon: the program may still answer the
    input on its next tick (a turtle game that draws what a click did from its timer), so idle is not proof
    that the input was handled and ignored."""


def settle_on_idle(capture: Callable[[], P], probe: IdleProbe, *, cap_s: float,
                   moving_s: float | None = None, horizon_ms: float = IDLE_HORIZON_MS,
                   sleep: Callable[[float], None] = time.sleep, before: P | None = None) -> IdleOutcome[P]:
    """Wait for the program's loop to be idle (and its due one-shot timers fired), then confirm the picture.

    The caller has sent its input and synced the X connection, so the input is queued to the program
    before the first question reaches it.  ``before``: the picture before the input; once a picture taken on
    an idle answer differs from it, the question that confirms it may be answered at once (a page not stirred
    since its drawn frame).  A picture equal to ``before`` may not be presented yet: it is confirmed a frame on."""
    start = time.monotonic()
    deadline = start + cap_s
    frame: P | None = None
    frame_idle_at = start
    """When the loop said idle before ``frame`` was taken: the program had finished reacting then."""
    changing_since: float | None = None
    samples = timers = 0
    answered = busy = False
    overdue_waited = False
    ticking = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        asked = time.monotonic()
        quick = frame is not None and before is not None and not frame.same_as(before)
        report = probe.idle(left, True) if quick else probe.idle(left)
        if report is None:
            if not answered and time.monotonic() - asked < left * BROKEN_SHARE:
                return IdleOutcome(frame, False, samples, False, False, timers)
            answered = busy = True  # silent until the cap: that is an answer (the loop is busy)
            break
        answered = True
        if not report.idle:
            sleep(BUSY_RETRY_S)
            continue
        due = report.next_timer_ms
        ticking = bool(report.repeating and due is not None and due <= horizon_ms)
        if due is not None and due <= 0 and overdue_waited:
            due = None  # still overdue after a wait: a timer the loop will not fire (cancelled behind our back)
        if due is not None and not report.repeating and due <= horizon_ms and timers < MAX_TIMER_WAITS:
            wait = max(0.0, due / 1000.0) + TIMER_SLACK_S
            if time.monotonic() + wait >= deadline:
                sleep(max(0.0, deadline - time.monotonic()))
                break
            sleep(wait)
            timers += 1
            overdue_waited = due <= 0
            frame, changing_since = None, None  # the timer may paint: the picture starts again
            continue
        idle_at = time.monotonic()
        shot = capture()
        samples += 1
        if frame is not None and shot.same_as(frame):
            return IdleOutcome(shot, True, samples, True, False, timers, frame_idle_at - start, ticking)
        now = time.monotonic()
        if frame is not None:
            changing_since = now if changing_since is None else changing_since
            if moving_s is not None and now - changing_since >= moving_s:
                return IdleOutcome(shot, False, samples, True, False, timers, now - start, ticking)
        frame, frame_idle_at = shot, idle_at
        sleep(CONFIRM_GAP_S)
    shot = capture()
    return IdleOutcome(shot, False, samples + 1, answered, busy, timers, time.monotonic() - start, ticking)
