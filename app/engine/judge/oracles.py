"""Generic oracles every tester shares: crash, exception, freeze, no response, blank.

They need no knowledge of the program's logic, only its process, its log and
its window.  Freeze has two faces: an animating window that stops repainting,
and a window that stops handling X events.  The second is detected with a
*repaint probe*: a small override-redirect window is mapped over the target
and removed; a live program repaints the exposed area, a frozen one leaves it
wrong.  A Python program on Tk or Qt is asked from inside instead
(:class:`~app.engine.play.inside.Inside`): a loop that has not come back to
idle for ``timing.freeze_s`` is frozen, known directly; the repaint probe and
the image checks stay the fallback for programs that cannot be asked.
"""

from __future__ import annotations

import signal
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Callable

import imagehash
import numpy as np
from Xlib import X
from Xlib import error as xerror

from app.engine.step_numbers import step_number
from app.engine.play.idle_settle import sees_loop
from app.engine.play.observer import Frame, Observation, VisualObserver, changed_mask, is_blank
from app.engine.play.sandbox import TARGET_LIMITS
from app.engine.play.target import TargetProcess
from app.engine.play.targetspec import Timing
from app.engine.judge.key_states import KeyStates
from app.engine.judge.repaint_probe import LAST_PROBE, probe_residue, repaint_probe

KEY_CALLS = ("press(", "tap(", "hotkey(")
"""Inputs (as :func:`~app.engine.play.actions.action_to_call` writes them) that reach the program wherever the
pointer is."""
FAILING_KINDS = ("crash", "exception", "freeze", "no-response", "blank", "error", "exit", "diverged", "glitch",
                 "paced")
"""Finding kinds that make a run fail.  "glitch": the film saw a picture flash up between two equal ones
(:mod:`app.engine.judge.glitch`); it does not end the run.  "exit": the program quit by itself while being played and
its target does not declare ``exit_ok`` — a tester never asks it to.  "diverged": under differential
play, the program showed something its reference did not, after the same inputs.  "paced": under differential
play, off the frame gate and the pinned clocks, its pace (pictures or motion per second) or its still picture
differed from the reference's (:mod:`app.engine.testers.paced`); it does not end the run."""
ANIMATION_PROBE_S = 1.0
"""At start the window is watched this long with no input: long enough to see a caret blink once."""
ANIMATED_MOTION = 0.3
"""A window whose samples change this often while idle is animating."""
IDLE_LEARN_S = 1.2
"""Before calling a window unresponsive, it is watched this long to learn what changes by itself."""
FREEZE_CONFIRM_S = 0.8
FREEZE_REPROBE_S = 0.5
"""While a freeze is suspected, the process and the repaint probe are checked this often."""
STATIC_STEPS_BEFORE_PROBE = 3
RECENT_KEPT = 256
"""Recent inputs remembered on a still window (a bound on memory, not a judgement setting)."""
MIN_DISTINCT_INPUTS = 6
"""No-response needs at least this many different inputs among the recent unanswered ones."""
SMALL_CHANGE_SHARE = 0.03
"""Recent answers that together touch less than this share of the window are checked against idle change."""
LOOP_ASK_S = 0.5
"""How long a program that can be asked from inside has to say its loop is idle before a freeze is suspected."""
DRAWING_LOOK_S = 0.5
"""While a program's loop is away, the window is looked at this often: a new picture says it still runs."""
BUSY_DRAWING_MAX_S = 60.0
"""A loop away this long is frozen even if the window kept changing (a bound on one step's wait)."""
BUSY_CPU_PERCENT = 80.0
TRACEBACK_MARK = "Traceback (most recent call last)"
BLANK_CONFIRM_S = 1.5
BLANK_LOOK_S = 0.1
"""A window is blank when it shows one colour at two steps and at every look (this often) for BLANK_CONFIRM_S."""
TRACEBACK_EXIT_GRACE_S = 1.0
"""After a traceback, how long the process may take to exit before it counts as 'exception' (alive)."""


@dataclass(frozen=True)
class Finding:
    kind: str
    message: str
    step: int | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    criterion: str | None = None
    fatal: bool = False

    def row(self) -> dict[str, Any]:
        return {"step": self.step, "criterion": self.criterion, "kind": self.kind,
                "message": self.message, "evidence": self.evidence}


@dataclass
class _Input:
    """One recent input on a still window and what it changed (before the idle mask)."""

    step: int
    action: str
    t: float
    change: np.ndarray | None
    screen: str = ""
    """The screen the input was sent to (a perceptual hash of the frame before)."""
    heard: bool = False
    """The program said from inside that its loop handled the input and was idle with no reaction due."""
    late: bool = False
    """The window changed beyond a caret after the step was judged, before any other input: a late answer."""


class GenericOracles:
    """Crash, exception, freeze, no-response and blank, judged the same way for every tester.

    Responsiveness is judged on *recent* input to a *still* window: the last
    ``timing.no_response_tries`` inputs, spanning at least ``timing.no_response_s``,
    none of which changed anything but what the window changes by itself while
    idle (a blinking caret, a clock, a hover highlight: the *idle mask*, measured
    at start, during waits and again before the oracle fires).  A freeze needs
    ``timing.freeze_s`` of sustained unresponsiveness and never fires on a process
    that exits meanwhile (the exit is reported instead).
    """

    def __init__(self, target: TargetProcess, observer: VisualObserver,
                 sleep: Callable[[float], None] = time.sleep, timing: Timing | None = None,
                 declared_keys: tuple[str, ...] = ()) -> None:
        self.target = target
        self.declared_keys = frozenset(declared_keys)
        """Inputs (call form, e.g. ``press("enter")``) the target says it answers: its ``keys``, for an app."""
        self.pressed_on: dict[str, list[Frame]] = {}
        """Per declared key: the still screens it was pressed on (the whole run, every episode), one
        frame per screen that differs from the others by more than a caret or a thin line."""
        self.observer = observer
        self.sleep = sleep
        self.timing = timing or Timing()
        self.animated = False
        self.static_streak = 0
        self.idle: np.ndarray | None = None
        self.recent: deque[_Input] = deque(maxlen=max(RECENT_KEPT, self.timing.no_response_tries))
        self._verified_at = -1
        self.silent_before: list[_Input] = []
        """Inputs that earlier instances of the program, each ended by the tester's restart, never answered after
        their last answer (the end of each episode, in order).  A tester that restarts to return to a state cuts
        a silence short, and the fresh program answers again: a program that stops answering after a few inputs
        in every episode shows its dead input only across them."""
        self.handled_inputs: set[str] = set()
        """Inputs during whose step the program's state changed (its state digest, said from inside): a key that
        picks a drawing mode did something, though its effect shows only at the next click."""
        self.visible_answers: set[str] = set()
        """Inputs that changed the window beyond a caret somewhere in the run (for the dead-key rule)."""
        self.answering: dict[str, dict[str, int]] = {}
        """Per screen (a perceptual hash): the inputs the program answered there at some point of the run."""
        self.key_states = KeyStates()
        """The states the inputs put the program in: a key of a kind that matters only in some is judged in them."""
        self.control_of: dict[str, str] = {}
        """Inputs that reach a control shared with others (grid points over one surface): that control."""
        self._log_seen = 0
        self._blank_streak = 0
        self._exceptions_seen: set[str] = set()
        self._motion_ended = False
        """The window moved by itself, then stood still, and no input has been answered since: an end screen
        (a game over that waits for nothing) cannot be told from dead input, so no-response is not judged."""
        self._step = -1
        self._self_moved_step: int | None = None
        """The latest step before which the window changed by itself beyond a caret, seen between steps (a
        Tk game on a timer settles from inside at once, so its motion shows only there, not as animation)."""
        self._answered_step = -1
        """The latest step whose input changed the window at once."""
        self._ticked_step: int | None = None
        """The latest step after which the program said from inside that a repeating timer was due (a game's
        loop on a timer); :attr:`_ticking` whether it still says so after the latest step."""
        self._ticking = False
        self._drift: np.ndarray | None = None
        """What the window changed by itself between steps since the last input it answered at once."""

    # -- idle change -----------------------------------------------------
    def _idle_for(self, frame: Frame) -> np.ndarray:
        if self.idle is None or self.idle.shape != (frame.height, frame.width):
            self.idle = np.zeros((frame.height, frame.width), dtype=bool)
            self.recent.clear()
        return self.idle

    def learn_idle(self, frame: Frame, duration_s: float) -> float:
        """Watch the window with no input for ``duration_s``; returns the share of samples that changed."""
        return self.observer.motion(duration_s, self.sleep, into=self._idle_for(frame))

    def note_idle(self, before: Frame, after: Frame) -> None:
        """Two frames with no input between them: whatever differs changes by itself."""
        mask = changed_mask(before, after)
        if mask is not None:
            # Motion is what it changed by itself since the last answer, taken together: a trail drawn 3 px at a
            # time (a light cycle) or a ball moving a few pixels a tick adds up; a caret blinks in one place.
            same = self._drift is not None and self._drift.shape == mask.shape
            self._drift = (self._drift | mask) if same and self._drift is not None else mask.copy()
            if self._beyond_caret(mask) or _trail(self._drift):
                self._self_moved_step = self._step
        if self.recent and not self.recent[-1].late and self._beyond_caret(mask):
            # The last input's answer came after its step was judged (a turtle program that draws on its
            # next timer tick): that input was answered; what changed is learnt as idle all the same.
            self.recent[-1].late = True
            self._motion_ended = False
            self.answering.setdefault(self.recent[-1].screen, {})[self.recent[-1].action] = self.recent[-1].step
        idle = self._idle_for(after)
        if mask is not None and mask.shape == idle.shape:
            idle |= mask

    # -- start -----------------------------------------------------------
    def check_start(self, obs: Observation) -> list[Finding]:
        self.animated = self.learn_idle(obs.frame, ANIMATION_PROBE_S) >= ANIMATED_MOTION
        return self._common(obs.frame, None)

    # -- after each action --------------------------------------------------
    def check_step(self, step: int, action_name: str, before: Frame, obs: Observation,
                   action_key: str | None = None, covered: bool = False, control: str | None = None) -> list[Finding]:
        """Judge one step.  ``action_key`` tells inputs apart (e.g. ``click(10, 20)``); default the name.
        ``covered``: another window of the program may have had the input (:mod:`.covered`): unanswered, it is
        no evidence of dead input.  ``control``: the control the input reached when it is shared with others."""
        self._step = step
        self._ticking = obs.ticking
        if obs.ticking:
            self._ticked_step = step
        findings = self._common(obs.frame, step)
        if not findings and obs.busy and sees_loop(self.target.inside):
            findings = self._loop_freeze(step, obs.settle_ms / 1000, "it did not come back from the input")
        if any(f.fatal for f in findings):
            return findings
        is_input = action_name not in ("wait", "finish")
        changed = obs.changed_bbox is not None
        # Animation is a property of this step, not of the program: a still title screen
        # can lead to a scrolling game and back to a still game-over screen.
        was_animated, self.animated = self.animated, not obs.settled
        if was_animated and not self.animated:
            self._motion_ended = True
        if not is_input and action_name == "wait" and obs.settled:
            self.note_idle(before, obs.frame)
        self.static_streak = 0 if changed else self.static_streak + 1
        if was_animated and not changed:
            findings += self._check_stopped_animation(step)
        elif not self.animated and self.static_streak and self.static_streak % STATIC_STEPS_BEFORE_PROBE == 0:
            findings += self._check_unresponsive(step)
        if any(f.fatal for f in findings) or not self.target.alive():
            return findings + ([] if any(f.fatal for f in findings) else self._common(obs.frame, step))
        if is_input:
            self.key_states.note(action_key or action_name)
            if self.animated or was_animated:
                self.recent.clear()  # a moving window answers nothing we can attribute to input
            else:
                item = _Input(step, action_key or action_name, time.monotonic(), changed_mask(before, obs.frame),
                              screen_key(before), obs.how == "inside" and obs.settled and not obs.ticking)
                if control:
                    self.control_of[item.action] = control
                answered = self._answered(item)
                if answered or not covered:
                    self.recent.append(item)
                if answered:
                    self._motion_ended = False
                    self._answered_step, self._drift = step, None
                    self.answering.setdefault(item.screen, {})[item.action] = item.step
                    if self._beyond_caret(item.change):
                        self.visible_answers.add(item.action)
                findings += self._check_no_response(step, obs.frame)
                if not findings and item.action in self.declared_keys and not covered:
                    findings += self._check_dead_key(step, item, before)
        return findings

    def _answered(self, item: _Input) -> bool:
        if item.change is None or item.late:
            return True  # the window changed size: that is an answer
        idle = self.idle
        if idle is not None and idle.shape == item.change.shape:
            return bool((item.change & ~idle).any())
        return bool(item.change.any())

    def carry_silence(self, before: GenericOracles) -> None:
        """The tester restarted the program: what the ended instance left unanswered at its end stays evidence,
        unless its last input was answered (then no instance so far ended silent)."""
        tail = before.silent_tail()
        self.silent_before = (before.silent_before + tail)[-RECENT_KEPT:] if tail else []

    def silent_tail(self) -> list[_Input]:
        """The recent inputs after the last one that was answered."""
        tail: list[_Input] = []
        for item in reversed(self.recent):
            if self._answered(item):
                break
            tail.append(item)
        return tail[::-1]

    def _window(self) -> list[_Input]:
        """The shortest run of latest inputs with at least ``no_response_tries`` of them over ``no_response_s``.

        Inputs the program said from inside it had handled (its loop idle, no reaction scheduled) need no
        time span: the span only gives a program that cannot be asked the time to answer."""
        t = self.timing
        items = list(self.recent)
        for start in range(len(items) - t.no_response_tries, -1, -1):
            if items[-1].t - items[start].t >= t.no_response_s or all(i.heard for i in items[start:]):
                return items[start:]
        return self._pooled_window()

    def _pooled_window(self) -> list[_Input]:
        """The silences earlier instances ended with, and this one's, when this one has been silent for at least
        half the tries: together they are the window (the same counts and span as one episode's)."""
        t = self.timing
        tail = self.silent_tail() if self.silent_before else []
        if len(tail) < max(2, t.no_response_tries // 2):
            return []
        items = self.silent_before + tail
        if len(items) < t.no_response_tries or items[-1].t - items[0].t < t.no_response_s:
            return []
        return items

    def _check_no_response(self, step: int, frame: Frame) -> list[Finding]:
        t = self.timing
        items = self._window()
        if not items:
            return []
        if self._motion_ended:
            return []  # the window stood still after moving by itself, and nothing answered since: an end screen
        # An input the program answered earlier in the run and that is silent now is spent (a full column,
        # a tile already turned, a dot drawn where one is): it says nothing about the others being dead.
        # Inputs that reach one control (points of a grid over a board) are spent together: a column filled
        # by clicks at one point takes no more from another point of it either.
        spent = {self.control_of.get(a, a) for answers in self.answering.values() for a in answers}
        counts = Counter(i.action for i in items if self.control_of.get(i.action, i.action) not in spent)
        # Points of a grid over one drawing surface are blind samples of it: a board that answers only on its
        # pieces (a stick, a card) is not dead where the points missed them.  The surface counts as one input,
        # tried as often as its least-tried point.
        tries: dict[str, int] = {}
        for action, n in counts.items():
            control = self.control_of.get(action, action)
            tries[control] = min(tries.get(control, n), n)
        if len(tries) < min(MIN_DISTINCT_INPUTS, t.no_response_tries) and (len(tries) < 2 or min(tries.values()) < 2):
            # The same input again and again proves little (a tester stuck on one key); fewer
            # different inputs count once each has been tried twice (the tester went round its options).
            return []
        if any(self._answered(i) for i in items):
            # Answers that are all small may be self-changing pixels not yet learnt (a caret that did not blink).
            union = np.zeros((frame.height, frame.width), dtype=bool)
            for i in items:
                if i.change is None or i.change.shape != union.shape:
                    return []
                union |= i.change & ~self._idle_for(frame)
            if union.mean() >= SMALL_CHANGE_SHARE:
                return []
        if step - self._verified_at < t.no_response_tries:
            return []  # looked closely a moment ago
        # The idle mask accumulated over the run is only a reason to look closely: a caret
        # that moved as text was typed has been learnt at places that now hold real answers.
        # Decide on what changes by itself *now*.
        self._verified_at = step
        self.idle = np.zeros((frame.height, frame.width), dtype=bool)
        self.learn_idle(frame, IDLE_LEARN_S)
        if any(self._answered(i) for i in items):
            return []
        if self._self_moved_step is not None and self._answered_step <= self._self_moved_step and self._still_now():
            # It moved by itself between steps, stands still now, and no input has changed it since: an end
            # screen (a game on a timer that stopped), which cannot be told from dead input.
            self._motion_ended = True
            return []
        if self._ticked_step is not None and not self._ticking and self._answered_step <= self._ticked_step \
                and self._still_now():
            # Its repeating timer ran (a game's loop), has stopped, and no input has changed the window since: an
            # end screen all the same.  A tick that fell inside a step reads as that step's answer, so the
            # motion never showed between steps (a light cycle 4 px a tick, 30 ms steps).
            self._motion_ended = True
            return []
        for i in self.recent:  # an 'answer' that was only a caret blinking is no answer
            if self.answering.get(i.screen, {}).get(i.action) == i.step and not self._answered(i):
                del self.answering[i.screen][i.action]
        known = {a for i in items for a in self.answering.get(i.screen, {})}
        if known and not any(i.action in known for i in items):
            # Lately only inputs were tried that never did anything on these screens, while
            # others did (a menu that waits for Enter, a stopped stopwatch that waits for
            # Start): dead input is not shown until one of those is tried again.
            self._verified_at = -1  # look again as soon as one of them has been
            return []
        keys = {a for answers in self.answering.values() for a in answers
                if a.startswith(KEY_CALLS) and a in self.visible_answers}
        game = getattr(getattr(self.target, "spec", None), "kind", "") == "game"
        if keys and game and not any(i.action in keys for i in items):
            # In a game, a key that answered on other screens, beyond a caret, was not tried lately (the explorer
            # clicked what it took for buttons: the bricks of a breakout whose paddle moves by arrow keys).  Unlike
            # a click, a key does not depend on where it lands, and a moving game's screens seldom repeat: dead
            # input is not shown until one of those keys is tried again.  (An app's form whose Entry swallows
            # every key is judged as before: Tab's focus move is no answer of its other keys.)
            self._verified_at = -1
            return []
        alive = self._loop_alive()
        if alive is None:
            alive = repaint_probe(self.target, self.observer, self.sleep)
        if alive is False:
            return self._sustained_freeze(step, "it stopped answering input and did not repaint its window")
        span = items[-1].t - items[0].t
        across = " after its answers, across the tester's restarts" if any(i is items[0] for i in self.silent_before) else ""
        self.recent.clear()
        self.silent_before = []
        return [Finding(
            "no-response",
            f"none of the last {len(items)} inputs ({len({i.action for i in items})} different, over {span:.1f} s{across}) "
            "changed the window beyond what it changes by itself, although it still repaints",
            step, {"tries": len(items), "seconds": round(span, 2), "first_step": items[0].step,
                   "idle_share": round(float(self.idle.mean()), 4) if self.idle is not None else 0.0},
            fatal=True)]

    def _still_now(self) -> bool:
        """What changes by itself now (the idle mask just learnt) is at most a caret or a thin line."""
        return self.idle is None or not _sizeable(self.idle)

    def _other_screen(self, a: Frame, b: Frame) -> bool:
        """Whether two still frames show different screens: more than what changes by itself,
        a blinking caret or a one-line underline (a perceptual hash flips on those)."""
        return self._beyond_caret(changed_mask(a, b))

    def _beyond_caret(self, mask: np.ndarray | None) -> bool:
        """Whether a change is more than what changes by itself and more than a caret or a thin line:
        over :data:`SCREEN_MIN_PX` pixels spanning at least :data:`SCREEN_MIN_SIDE` each way."""
        if mask is None:
            return True
        idle = self.idle
        if idle is not None and idle.shape == mask.shape:
            mask = mask & ~idle
        return _sizeable(mask)

    def note_state_changed(self, action: str) -> None:
        """The program's state changed during a step of ``action``."""
        self.handled_inputs.add(action)

    def _check_dead_key(self, step: int, item: _Input, before: Frame) -> list[Finding]:
        """A key the app declares it answers that changed nothing on any of many still screens.

        The rest of the program may answer well (its other keys, its buttons): one dead key,
        such as an Enter that no longer adds the typed task, is dead input all the same.
        Screens that differ only by a blinking caret count once."""
        screens = self.pressed_on.setdefault(item.action, [])
        if len(screens) < self.timing.dead_key_screens and all(self._other_screen(s, before) for s in screens):
            screens.append(before)
        if not self.timing.dead_key_screens or len(screens) < self.timing.dead_key_screens:
            return []
        if item.action in self.visible_answers:
            return []  # (a caret that moved or blinked after the key, under load, is no answer)
        if item.action in self.handled_inputs:
            return []  # it changed the program's state: its effect may show later (a mode key)
        if any(item.action in answers for answers in self.answering.values()):
            return []  # it changed something once in the run: it answers in some state
        if not self.key_states.tried_where_it_matters(item.action):
            return []  # never pressed where keys of its kind matter (Return with text typed, Delete on a pick)
        if not any(self.answering.values()):
            return []  # nothing answers at all: the window-wide check above judges that
        self.declared_keys -= {item.action}  # said once
        return [Finding(
            "no-response",
            f"{item.action}, one of the keys playcoder.toml says the program answers, never changed the window "
            f"on any of the {len(screens)} different screens it was pressed on, while other inputs did",
            step, {"key": item.action, "screens": len(screens)}, fatal=True)]

    def _check_stopped_animation(self, step: int) -> list[Finding]:
        if self._loop_alive():
            return []  # its loop is idle: it stopped moving on purpose
        if self.observer.motion(FREEZE_CONFIRM_S, self.sleep) > 0:
            self.animated = True
            return []
        repainted = repaint_probe(self.target, self.observer, self.sleep)
        if repainted is not False:
            self.animated = False  # it stopped moving on purpose (a pause or an end screen)
            return []
        return self._sustained_freeze(step, f"the window stopped repainting: it animated before step {step_number(step)}")

    def _check_unresponsive(self, step: int) -> list[Finding]:
        alive = self._loop_alive()
        if alive is not None:
            return [] if alive else self._loop_freeze(step, LOOP_ASK_S, "it stopped handling events")
        repainted = repaint_probe(self.target, self.observer, self.sleep)
        if repainted is not False:
            return []
        return self._sustained_freeze(step, "the program stopped handling X events: it did not repaint its window "
                                            "after it was covered")

    def _sustained_freeze(self, step: int, what: str) -> list[Finding]:
        """A failed repaint probe is a suspicion; a freeze needs ``timing.freeze_s`` of it.

        A program that sleeps on a game-over screen and then exits (or restarts) is not
        frozen: when it exits meanwhile, the exit is reported (or, declared, ends an episode).
        A program that can be asked from inside is judged by its loop alone (:meth:`_loop_freeze`).
        """
        if sees_loop(self.target.inside):
            return self._loop_freeze(step, 0.0, what)
        region, damaged = LAST_PROBE.get(id(self.observer), (None, None))
        deadline = time.monotonic() + self.timing.freeze_s
        while time.monotonic() < deadline:
            if not self.target.alive():
                return self._common(self.observer.last or self.observer.capture(), step)
            self.sleep(FREEZE_REPROBE_S)
            if not self.target.alive():
                return self._common(self.observer.last or self.observer.capture(), step)
            # No new probe (it would paint another part of a frozen window): the question is
            # only whether the program has repainted what the first probe exposed.
            if region is None or damaged is None:
                if repaint_probe(self.target, self.observer, self.sleep) is True:
                    return []
                region, damaged = LAST_PROBE.get(id(self.observer), (None, None))
                continue
            x, y, w, h = region
            now = self.observer.capture().array()[y:y + h, x:x + w, :3]
            if not np.array_equal(now, damaged):
                return []  # the program drew over what the probe exposed: it is alive
        # The suspicion held for freeze_s.  One last probe (the first one may have been taken
        # during a scene change and saved the new scene as its 'damaged' picture): a program
        # that repaints it is alive.
        if self.target.alive() and repaint_probe(self.target, self.observer, self.sleep) is True:
            return []
        return self._frozen(step, f"{what}, and stayed so for {self.timing.freeze_s:g} s", "repaint_probe")

    def _loop_alive(self) -> bool | None:
        """From inside: did the program's event loop come back to idle within :data:`LOOP_ASK_S`?
        None: the program cannot be asked (not Python, pygame, an unknown toolkit)."""
        inside = self.target.inside
        if not sees_loop(inside):
            return None
        return inside.idle(LOOP_ASK_S) is not None

    def _loop_freeze(self, step: int, waited_s: float, what: str) -> list[Finding]:
        """A loop that has not come back to idle for ``timing.freeze_s`` (``waited_s`` of it already spent)
        is frozen: known from inside, not inferred from repaints.  An exit meanwhile is reported instead.

        A program that keeps drawing new pictures while its loop is away is busy, not frozen: a handler that
        plays an animation itself (flash a tile, sleep, flash the next, calling ``update()`` between) can only
        change the window because it runs.  The wait counts from the window's last change, up to
        :data:`BUSY_DRAWING_MAX_S` in all."""
        freeze_s = self.timing.freeze_s
        start = time.monotonic()
        still_since = start - waited_s
        last = self.observer.last
        while self.target.alive():
            now = time.monotonic()
            left = freeze_s - (now - still_since)
            if left <= 0 or now - start >= BUSY_DRAWING_MAX_S:
                break
            look_s = min(left, DRAWING_LOOK_S)
            if self.target.inside.idle(look_s) is not None:
                return []
            # A channel that closed (the program is ending) answers at once: keep the pace, and let an exit
            # meanwhile be reported as the exit it is.
            self.sleep(max(0.0, look_s - (time.monotonic() - now)))
            frame = self.observer.capture()
            if last is not None and not frame.same_as(last):
                still_since = time.monotonic()  # it drew something: it runs
            last = frame
        return self._frozen(step, f"{what}: its event loop did not come back to idle for {freeze_s:g} s (asked from "
                                  "inside the program)", "idle_probe")

    def _frozen(self, step: int, message: str, probe: str) -> list[Finding]:
        """The freeze finding (with the process's CPU use), or what ended the program meanwhile.
        ``probe``: the evidence key of the check that found no sign of life."""
        if not self.target.alive():
            return self._common(self.observer.last or self.observer.capture(), step)
        cpu = self.target.cpu_percent(0.2)
        busy = cpu is not None and cpu >= BUSY_CPU_PERCENT
        self.target.inside.stop_frozen()  # a page's script is stopped: the step keeps the lines it ran
        return [Finding(
            "freeze",
            message + (f"; the process is busy at {cpu:.0f}% CPU" if busy else
                       (f"; the process uses {cpu:.0f}% CPU" if cpu is not None else "")),
            step, {"cpu_percent": cpu, probe: False, "seconds": self.timing.freeze_s}, fatal=True)]

    # -- process, log and render ---------------------------------------------
    def _common(self, frame: Frame, step: int | None) -> list[Finding]:
        findings: list[Finding] = []
        lines, self._log_seen = self.target.read_since(self._log_seen)
        if self.target.alive() and any(TRACEBACK_MARK in text for stream, _, text in lines if stream == "stderr"):
            # A traceback often precedes the exit by a few hundred ms: wait before calling it an exception.
            deadline = time.monotonic() + TRACEBACK_EXIT_GRACE_S
            while self.target.alive() and time.monotonic() < deadline:
                self.sleep(0.05)
        if not self.target.alive():
            self.target.drain_output()
            self._log_seen = self.target.log.count
            code = self.target.returncode
            tail = [text for stream, _, text in self.target.lines()[-12:] if stream == "stderr"]
            has_tb = any(TRACEBACK_MARK in text for _, _, text in self.target.lines())
            if code == 0 and not has_tb:
                findings.append(Finding(
                    "exit", "the program exited by itself with code 0 while being played; if it is meant to end "
                    "(a game over that quits), declare exit_ok = true in its playcoder.toml",
                    step, {"code": code}, fatal=True))
            elif (limit := file_size_limit(code, tail)) is not None:
                findings.append(Finding("limit", limit, step, {"code": code, "log": tail}, fatal=True))
            else:
                last = next((t for t in reversed(tail) if t.strip()), "")
                findings.append(Finding(
                    "crash", f"the program exited with code {code}" + (f": {last.strip()}" if last else ""),
                    step, {"code": code, "log": tail}, fatal=True))
            return findings
        findings += self._page_errors(step)
        if any(TRACEBACK_MARK in text for stream, _, text in lines if stream == "stderr"):
            tail = [t for s, _, t in lines if s == "stderr"][-8:]
            last = tail[-1].strip()
            if last not in self._exceptions_seen:  # the same error again adds no evidence
                self._exceptions_seen.add(last)
                findings.append(Finding(
                    "exception", "an exception was printed while the program kept running: " + last,
                    step, {"log": tail}))
        region = LAST_PROBE.get(id(self.observer), (None, None))[0]
        if is_blank(frame) and not (region is not None and probe_residue(frame, region)):
            self._blank_streak += 1
            if self._blank_streak >= 2:
                # One colour for a moment is no blank render: a surface re-created for a mode change (pygame's
                # fullscreen toggle) or a scene change shows it briefly; blank is one colour that stays for
                # BLANK_CONFIRM_S.  A program that quits (Escape in a pygame example) clears its window a moment
                # before its process ends: the exit is reported instead.  A window that is gone (unmapped,
                # destroyed: pygame.quit() before a slow interpreter exit) shows the bare screen, not a render:
                # the program is closing it, and gets freeze_s to end.
                gone = not window_shown(self.target)
                deadline = time.monotonic() + (self.timing.freeze_s if gone else BLANK_CONFIRM_S)
                while self.target.alive() and time.monotonic() < deadline:
                    self.sleep(BLANK_LOOK_S)
                    if not gone and self.target.alive() and not is_blank(self.observer.capture()):
                        self._blank_streak = 0
                        return findings
                if not self.target.alive():
                    return findings + self._common(frame, step)
                if gone and not window_shown(self.target):
                    self._blank_streak = 0  # no window to judge
                    return findings
                findings.append(Finding("blank", "the window shows nothing but one colour", step, fatal=True))
        else:
            self._blank_streak = 0
        return findings


    def _page_errors(self, step: int | None) -> list[Finding]:
        """A web page's uncaught exceptions and unhandled rejections: a crash naming its script and line (the
        page keeps running, so the run goes on; the same error again adds no evidence)."""
        findings = []
        for error in self.target.page_errors():
            key = f"{error.where}: {error.message}"
            if key in self._exceptions_seen:
                continue
            self._exceptions_seen.add(key)
            findings.append(Finding(
                "crash", error.message if error.crashed else f"uncaught error in {error.where}: {error.message}",
                step, {"script": error.script, "line": error.line, "column": error.column, "log": list(error.stack)},
                fatal=error.crashed))
        return findings


def _sizeable(mask: np.ndarray) -> bool:
    """More than a caret or a thin line: over SCREEN_MIN_PX pixels spanning at least SCREEN_MIN_SIDE each way."""
    if int(mask.sum()) < SCREEN_MIN_PX:
        return False
    ys, xs = np.nonzero(mask)
    return bool(xs.max() - xs.min() >= SCREEN_MIN_SIDE and ys.max() - ys.min() >= SCREEN_MIN_SIDE)


TRAIL_MIN_SIDE = 3
"""A change at least this thick (a light cycle's 3 px trail) is no caret (1-2 px wide) nor underline."""


def _trail(mask: np.ndarray) -> bool:
    """Self-changes that together are motion: over SCREEN_MIN_PX pixels in a box at least TRAIL_MIN_SIDE thick."""
    if int(mask.sum()) < SCREEN_MIN_PX:
        return False
    ys, xs = np.nonzero(mask)
    return bool(min(xs.max() - xs.min(), ys.max() - ys.min()) + 1 >= TRAIL_MIN_SIDE)


def window_shown(target: TargetProcess) -> bool:
    """Whether the program's window still exists and is mapped (True when that cannot be told)."""
    window = getattr(target, "window", None)
    if window is None or not hasattr(target, "xconn"):
        return True
    try:
        shown = target.xconn().create_resource_object("window", window.id).get_attributes().map_state == X.IsViewable
    except (xerror.XError, xerror.BadWindow):
        return False
    return bool(shown)


SCREEN_MIN_PX = 40
SCREEN_MIN_SIDE = 4
"""Two still screens differ when more than this many pixels changed, over a box at least this wide and tall."""


def screen_key(frame: Frame) -> str:
    """Which screen a frame shows, robust to small self-changing details (a perceptual hash)."""
    return str(imagehash.phash(frame.image(), hash_size=8))


FILE_TOO_LARGE = ("File too large", "EFBIG")
"""What a program (Python ignores SIGXFSZ) says when a write passes RLIMIT_FSIZE."""


def file_size_limit(code: int | None, tail: list[str]) -> str | None:
    """The sandbox's file-size limit ended the program (SIGXFSZ, or a write refused with EFBIG): one sentence
    that says so, since it is the engine's bound, not the program's crash; else None."""
    if code != -signal.SIGXFSZ and not any(mark in text for text in tail[-4:] for mark in FILE_TOO_LARGE):
        return None
    return (f"the program was stopped by the sandbox's file-size limit: it wrote a file past {TARGET_LIMITS.fsize_mb} MB "
            "(a bound of the engine, not a crash of the program); keep its files smaller to play it")
