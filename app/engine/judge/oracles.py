"""Generic oracles every tester shares: crash, exception, freeze, no response, blank.

They need no knowledge of the program's logic, only its process, its log and
its window.  Freeze has two faces: an animating window that stops repainting,
and a window that stops handling X events.  The second is detected with a
*repaint probe*: a small override-redirect window is mapped over the target
and removed; a live program repaints the exposed area, a frozen one leaves it
wrong.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from Xlib import X
from Xlib import error as xerror

from app.engine.play.observer import Frame, Observation, VisualObserver, is_blank
from app.engine.play.target import TargetProcess

FAILING_KINDS = ("crash", "exception", "freeze", "no-response", "blank", "error", "exit")
"""Finding kinds that make a run fail.  "exit": the program quit by itself while being played —
a tester never asks it to, so a window that vanishes mid-test is a defect (or an untestable target)."""
ANIMATION_PROBE_S = 0.5
ANIMATED_MOTION = 0.3
"""A window whose samples change this often while idle is animating."""
FREEZE_CONFIRM_S = 0.8
STATIC_STEPS_BEFORE_PROBE = 3
NO_RESPONSE_TRIES = 10
REPAINT_TIMEOUT_S = 1.0
BUSY_CPU_PERCENT = 80.0
PROBE_COLOUR = 0xFF00FF
TRACEBACK_MARK = "Traceback (most recent call last)"
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


class GenericOracles:
    def __init__(self, target: TargetProcess, observer: VisualObserver,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.target = target
        self.observer = observer
        self.sleep = sleep
        self.animated = False
        self.responded = False
        self.input_tries = 0
        self.static_streak = 0
        self._log_seen = 0
        self._blank_streak = 0
        self._probe_ok_at_try = -1
        self._exceptions_seen: set[str] = set()

    # -- start -----------------------------------------------------------
    def check_start(self, obs: Observation) -> list[Finding]:
        self.animated = self.observer.motion(ANIMATION_PROBE_S, self.sleep) >= ANIMATED_MOTION
        return self._common(obs.frame, None)

    # -- after each action --------------------------------------------------
    def check_step(self, step: int, action_name: str, before: Frame, obs: Observation) -> list[Finding]:
        findings = self._common(obs.frame, step)
        if any(f.fatal for f in findings):
            return findings
        is_input = action_name not in ("wait", "finish")
        changed = obs.changed_bbox is not None
        if is_input:
            self.input_tries += 1
            self.responded = self.responded or changed
        self.static_streak = 0 if changed else self.static_streak + 1
        if self.animated and not changed:
            findings += self._check_stopped_animation(step)
        elif not self.animated and self.static_streak and self.static_streak % STATIC_STEPS_BEFORE_PROBE == 0:
            findings += self._check_unresponsive(step)
        if (not any(f.fatal for f in findings) and not self.animated and not self.responded
                and self.input_tries >= NO_RESPONSE_TRIES):
            alive = self._probe_cached()
            if alive is not False:
                findings.append(Finding(
                    "no-response",
                    f"none of {self.input_tries} inputs (keys, clicks) changed the window, "
                    "although it still repaints",
                    step, {"tries": self.input_tries}, fatal=True))
        return findings

    def _probe_cached(self) -> bool | None:
        if self._probe_ok_at_try == self.input_tries:
            return True
        ok = repaint_probe(self.target, self.observer, self.sleep)
        if ok:
            self._probe_ok_at_try = self.input_tries
        return ok

    def _check_stopped_animation(self, step: int) -> list[Finding]:
        if self.observer.motion(FREEZE_CONFIRM_S, self.sleep) > 0:
            return []
        cpu = self.target.cpu_percent(0.2)
        repainted = repaint_probe(self.target, self.observer, self.sleep)
        if repainted:
            self.animated = False  # it stopped moving on purpose (a pause or an end screen)
            return []
        return [Finding(
            "freeze",
            f"the window stopped repainting: it animated before step {step} and has been still for "
            f"{FREEZE_CONFIRM_S:g} s since" + (f"; the process uses {cpu:.0f}% CPU" if cpu is not None else ""),
            step, {"cpu_percent": cpu, "repaint_probe": repainted}, fatal=True)]

    def _check_unresponsive(self, step: int) -> list[Finding]:
        repainted = repaint_probe(self.target, self.observer, self.sleep)
        if repainted is not False:
            if repainted:
                self._probe_ok_at_try = self.input_tries
            return []
        cpu = self.target.cpu_percent(0.2)
        busy = cpu is not None and cpu >= BUSY_CPU_PERCENT
        return [Finding(
            "freeze",
            "the program stopped handling X events: it did not repaint its window after it was covered"
            + (f" and it is busy at {cpu:.0f}% CPU" if busy else ""),
            step, {"cpu_percent": cpu, "repaint_probe": False}, fatal=True)]

    # -- process, log and render ---------------------------------------------
    def _common(self, frame: Frame, step: int | None) -> list[Finding]:
        findings: list[Finding] = []
        lines = self.target.lines(self._log_seen)
        self._log_seen += len(lines)
        if self.target.alive() and any(TRACEBACK_MARK in text for stream, _, text in lines if stream == "stderr"):
            # A traceback often precedes the exit by a few hundred ms: wait before calling it an exception.
            deadline = time.monotonic() + TRACEBACK_EXIT_GRACE_S
            while self.target.alive() and time.monotonic() < deadline:
                self.sleep(0.05)
        if not self.target.alive():
            self.target.drain_output()
            self._log_seen = len(self.target.lines())
            code = self.target.returncode
            tail = [text for stream, _, text in self.target.lines()[-12:] if stream == "stderr"]
            has_tb = any(TRACEBACK_MARK in text for _, _, text in self.target.lines())
            if code == 0 and not has_tb:
                findings.append(Finding("exit", "the program exited normally (code 0)", step, {"code": code}, fatal=True))
            else:
                last = next((t for t in reversed(tail) if t.strip()), "")
                findings.append(Finding(
                    "crash", f"the program exited with code {code}" + (f": {last.strip()}" if last else ""),
                    step, {"code": code, "log": tail}, fatal=True))
            return findings
        if any(TRACEBACK_MARK in text for stream, _, text in lines if stream == "stderr"):
            tail = [t for s, _, t in lines if s == "stderr"][-8:]
            last = tail[-1].strip()
            if last not in self._exceptions_seen:  # the same error again adds no evidence
                self._exceptions_seen.add(last)
                findings.append(Finding(
                    "exception", "an exception was printed while the program kept running: " + last,
                    step, {"log": tail}))
        if is_blank(frame):
            self._blank_streak += 1
            if self._blank_streak >= 2:
                findings.append(Finding("blank", "the window shows nothing but one colour", step, fatal=True))
        else:
            self._blank_streak = 0
        return findings


def _busiest_region(frame: Frame) -> tuple[int, int, int, int]:
    """The half-size window region with the most detail (x, y, w, h).

    The X server refills plain areas of a covered window with its background colour
    by itself, so only detailed content (text, drawings) proves the program repainted.
    """
    w, h = frame.width, frame.height
    rw, rh = max(1, w // 2), max(1, h // 2)
    grey = frame.array()[::2, ::2, :3].astype(np.int16).sum(axis=2)
    edges = (np.abs(np.diff(grey, axis=0))[:, :-1] + np.abs(np.diff(grey, axis=1))[:-1, :]) > 24
    best, best_score = (w // 4, h // 4), -1
    for fx in (0, 1, 2):
        for fy in (0, 1, 2):
            x, y = fx * w // 4, fy * h // 4
            score = int(edges[y // 2:(y + rh) // 2, x // 2:(x + rw) // 2].sum())
            if score > best_score:
                best, best_score = (x, y), score
    return best[0], best[1], rw, rh


def repaint_probe(target: TargetProcess, observer: VisualObserver,
                  sleep: Callable[[float], None] = time.sleep) -> bool | None:
    """Cover the middle of the window, uncover it, and see whether the program repaints.

    True: repainted as before.  False: the exposed area stayed wrong.  None:
    inconclusive (the area is one flat colour, or the window keeps changing).
    """
    win = target.refresh_geometry()
    if win is None or not target.alive():
        return None
    before = observer.capture()
    rx, ry, rw, rh = _busiest_region(before)
    region = before.array()[ry:ry + rh, rx:rx + rw, :3]
    if int(region.max()) - int(region.min()) < 8:
        return None
    conn = target.xconn()
    try:
        screen = conn.screen()
        probe = screen.root.create_window(
            win.x + rx, win.y + ry, rw, rh, 0, screen.root_depth, X.InputOutput, X.CopyFromParent,
            background_pixel=PROBE_COLOUR, override_redirect=True)
        probe.map()
        conn.sync()
        sleep(0.1)
        probe.destroy()
        conn.sync()
    except xerror.XError:
        return None
    deadline = time.monotonic() + REPAINT_TIMEOUT_S
    while time.monotonic() < deadline:
        sleep(0.03)
        now = observer.capture().array()[ry:ry + rh, rx:rx + rw, :3]
        if np.array_equal(now, region):
            return True
    return False
