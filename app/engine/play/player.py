"""Player: one program being played on one display — its process, observer and executor, restartable.

The session plays the candidate with one; the differential tester plays the
reference (twice) with others, on their own private displays.  A ``gated``
player puts a pygame game on a frame gate (:mod:`app.engine.play.gate`): its
pauses, its looks and its oracles' waits are frames the game plays, so every
program played in lockstep stands still at the same frame when it is looked at.
"""

from __future__ import annotations

import contextlib
import threading
import time
from concurrent.futures import Future
from dataclasses import replace
from typing import Any, Callable, Iterable

from app.engine.play.desktop import DesktopCapture, Hold
from app.engine.play.desktop_input import DesktopBackend, DesktopExecutor
from app.engine.play.actions import Action, Wait
from app.engine.play.display import XDisplay
from app.engine.play.executor import EVENT_LOOP_PACE, ActionExecutor, XTestBackend, make_executor
from app.engine.play.web_gate import WebGate
from app.engine.play.gate import FrameGate
from app.engine.play.idle_settle import sees_loop, settle_mode
from app.engine.play.observer import Frame, Observation, VisualObserver, changed_bbox
from app.engine.play.target import TargetProcess, WindowInfo
from app.engine.play.targetspec import TargetSpec, Timing


CLOCK_FIRE_S = 2.0
"""How long a Tk program on the engine's clock may take to run the timers a step made due (a busy one is
left to finish them during the step: the step's settle waits for its loop anyway)."""


class Player:
    """A program on a display; ``start`` (again after an exit) gives its window."""

    def __init__(self, spec: TargetSpec, display: XDisplay, seed: int,
                 sleep: Callable[[float], None], hold: Hold | None = None, gated: bool = False,
                 steps_clock: bool = False) -> None:
        """``hold``: on the user's desktop, how the run pauses when the target cannot be seen or
        reached (:meth:`RunControl.hold`); without it such a run ends with the reason as an error.
        ``gated``: on a private display, put a pygame game on a frame gate (lockstep play).  ``steps_clock``:
        the tester moves the engine's clock on at every step (:meth:`advance_clock`), so a Tk program's timers
        run on it too (differential play)."""
        self.steps_clock = steps_clock
        self.hold = hold
        self.gated = gated and display.isolated
        self.gate: FrameGate | None = None
        """The program's frame gate and clock (gated players); it holds the program while ``lockstep``."""
        self.spec = spec
        self.display = display
        self.seed = seed
        self.sleep = sleep
        self.never_ticked = False
        """A start before found a pygame program that never reached a frame of its gate (no ``Clock.tick``):
        the next start lets it go without waiting :data:`~app.engine.play.gate.FIRST_FRAME_S` again."""
        self.target: TargetProcess | None = None
        self.observer: VisualObserver | None = None
        self.executor: ActionExecutor | None = None

    def start(self) -> WindowInfo:
        inside = settle_mode() != "pixels"  # PLAYCODER_SETTLE=pixels: the fallback for every program
        gate = None if not self.gated else WebGate() if self.spec.web is not None else \
            FrameGate(timers_on_clock=self.steps_clock)  # a web page's gate holds its clock
        self.gate = None
        target = self.target = TargetProcess(self.spec, self.display, self.seed, gate=gate)
        win = target.wait_for_window()
        self.gate = gate
        if gate is not None:  # a program off the frame gate still reads the engine's clock
            if gate.engage(target.alive, first_frame_s=0.0 if self.never_ticked else None):
                self.never_ticked = False
            elif gate.said_hello and target.alive():
                # A pygame program that played no gated frame: a restart (an episode's end) need not wait for
                # one again (5 s of a 15 s run, at every restart).
                self.never_ticked = True

        def geometry() -> tuple[int, int, int, int]:
            w = target.window if target.window is not None else win
            return (w.x, w.y, w.width, w.height)

        if not self.display.isolated:
            self._start_desktop(target, geometry)
            return win
        self.observer = VisualObserver(self.display.name, geometry)
        self.observer.probe = target.inside if inside else None
        if isinstance(gate, WebGate):
            gate.picture = self.observer.capture  # a played frame counts once it is on the screen
        self.executor = make_executor(self.display.name, self.display.isolated, win.id, geometry, self.display.size,
                                      sleep=self.input_pause, hold_s=self.spec.timing.hold_ms / 1000)
        if inside and sees_loop(target.inside):
            # Tk or Qt reads every event in order: no pauses of a person's pace.  A hold the target declares
            # changes only the hold (the executor's own, from timing.hold_ms), never the rest of the pace.
            declared = self.spec.timing.hold_ms != Timing.hold_ms
            self.executor.pace = replace(EVENT_LOOP_PACE, hold_s=None) if declared else EVENT_LOOP_PACE
        if isinstance(gate, WebGate) and isinstance(self.executor.backend, XTestBackend):
            backend = self.executor.backend
            gate.sent = lambda: backend.sent  # the page gets every input before its next frame is played
        self.executor.park()  # Xvfb puts the pointer mid-screen: over a centred button, which would glow
        return win

    @property
    def settle_source(self) -> str:
        """How this program's steps are settled: "gate" (frames played), "inside" (its loop says idle) or "pixels"."""
        if self.lockstep:
            return "gate"
        return "inside" if self.observer is not None and sees_loop(self.observer.probe) else "pixels"

    def _start_desktop(self, target: TargetProcess, geometry: Callable[[], tuple[int, int, int, int]]) -> None:
        """A shared desktop: frames of the window's own pixels, input that reaches the target or waits."""
        window, refresh = (lambda: target.window), target.refresh_geometry
        capture = DesktopCapture(self.display.name, window, refresh, target.alive, self.hold, self.sleep)
        self.observer = VisualObserver(self.display.name, geometry, source=capture)
        backend = DesktopBackend(self.display.name, window, refresh, self.hold, self.sleep)
        self.executor = DesktopExecutor(backend, geometry, sleep=self.sleep, hold_s=self.spec.timing.hold_ms / 1000)

    # The current process, as testers see it (it changes when a declared exit restarts the program).
    @property
    def pid(self) -> int:
        assert self.target is not None
        return self.target.pid

    @property
    def window(self) -> WindowInfo | None:
        return self.target.window if self.target is not None else None

    def xconn(self) -> Any:
        assert self.target is not None
        return self.target.xconn()

    def pause(self, seconds: float) -> None:
        """The player's sleep: on the gate, the frames of that time played, in that much wall time (an
        oracle that watches for 5 s watches 5 s of game, not the hundreds of frames a fast machine
        could play meanwhile); a stop still ends it."""
        if self.gate is not None and self.gate.active:
            t0 = time.monotonic()
            self.sleep(0)
            self.gate.sleep(seconds)
            left = seconds - (time.monotonic() - t0)
            if left > 0:
                self.sleep(left)
        else:
            self.sleep(seconds)

    def input_pause(self, seconds: float) -> None:
        """The executor's pauses around an input (approach, hold, release): on the gate, only the frames of
        that time played.  The program reads its events and its clocks by the frame, so a hold of 3 frames is
        the same hold however soon the 3 frames are played; waiting out the wall time too only slowed every
        input of a lockstep run (a click cost 260 ms, three programs side by side).  Off the gate, a sleep."""
        if self.gate is not None and self.gate.active:
            self.sleep(0)
            self.gate.sleep(seconds)
        else:
            self.sleep(seconds)

    @property
    def lockstep(self) -> bool:
        """Is the program standing still on its frame gate between looks?"""
        return self.gate is not None and self.gate.active

    def advance_clock(self, seconds: float) -> None:
        """Move on the time the program's Python clocks read (gated players; others read the machine's).  A Tk
        program whose timers run on that time (``steps_clock``) fires those due before this returns: the input
        that follows comes after them in every run, as in its reference runs."""
        if self.gate is None:
            return
        self.gate.advance_clock(seconds)
        target = self.target
        if self.steps_clock and seconds > 0 and target is not None and target.inside.toolkit == "tk":
            target.inside.idle(CLOCK_FIRE_S)  # its idle answer comes after the due timers ran and Tk painted

    @property
    def frames(self) -> int:
        """Frames the gated program has played since it started (0 off the gate)."""
        return self.gate.frames if self.gate is not None else 0

    def catch_up(self, frames: int) -> None:
        """Let a gated program play until it has played ``frames`` frames in all (no input)."""
        if self.gate is not None and self.gate.active and frames > self.gate.frames:
            self.gate.advance(frames - self.gate.frames)

    def look_s(self) -> float:
        """Game time played between an input and the look, on the gate: a game is looked at when a
        moving window would be (it must not run away from the player); an app when it has settled."""
        timing = self.spec.timing
        return (timing.animated_cap_ms if self.spec.kind == "game" else timing.settle_cap_ms) / 1000

    def look(self, before: Frame | None, seconds: float) -> Observation:
        """On the gate: play ``seconds`` of game time, then look (the program stands still); the window counts
        as settled when its last frame changed nothing."""
        assert self.observer is not None and self.gate is not None
        t0 = time.monotonic()
        frames = self.gate.frames_for(seconds)
        prev = None
        if frames > 1:
            self.gate.advance(frames - 1)
            prev = self.observer.capture()
        self.gate.advance(1)
        frame = self.observer.capture()
        box = changed_bbox(before, frame) if before is not None else None
        # Settled: the last frame played changed nothing (a moving game is not, though it stands still now).
        settled = prev is None or frame.same_as(prev)
        elapsed = (time.monotonic() - t0) * 1000.0  # the program played its frames all along: busy throughout
        return Observation(frame, settled, elapsed, box, 2 if prev is not None else 1, "gate", busy_ms=elapsed)

    def settle(self, cap_s: float, quiet_s: float) -> Observation:
        assert self.observer is not None
        if self.lockstep:
            return self.look(None, 0)
        return self.observer.settle(cap_s=cap_s, quiet_s=quiet_s)

    def act(self, action: Action, before: Observation) -> Observation:
        """Send one action and settle, as the session does for the candidate: a moving window gets
        the shorter cap, a wait only its own settle (what a second program played in step needs)."""
        assert self.executor is not None and self.observer is not None
        timing = self.spec.timing
        self.executor.execute(action)
        if self.lockstep:
            return self.look(before.frame, self.look_s())
        if isinstance(action, Wait):
            return self.observer.settle(before.frame, cap_s=timing.settle_cap_ms / 1000,
                                        quiet_s=timing.quiet_ms / 1000)
        cap = timing.animated_cap_ms / 1000 if not before.settled else timing.settle_cap_ms / 1000
        return self.observer.settle(before.frame, cap_s=cap, quiet_s=timing.quiet_ms / 1000,
                                    react_s=timing.react_ms / 1000)

    def stop(self, flush: Callable[[TargetProcess], None] | None = None) -> None:
        # Closing an X connection to a server that died raises; the program must be shut down all the same.
        executor, observer, self.executor, self.observer = self.executor, self.observer, None, None
        if executor is not None:
            with contextlib.suppress(Exception):
                executor.close()
        if observer is not None:
            with contextlib.suppress(Exception):
                observer.close()
        if self.target is not None:
            self.target.shutdown()
            if flush is not None:
                flush(self.target)

    close = stop


def stop_programs(players: Iterable[Player], displays: Iterable[XDisplay], pending: Future[Any] | None = None,
                  scratch: Any = None) -> None:
    """Stop programs a tester plays beside the candidate: let an action still being played end
    (at most 10 s), stop each program, close each display, delete the scratch copy (``cleanup()``)."""
    if pending is not None:
        with contextlib.suppress(Exception):
            pending.result(timeout=10)
    problems: list[BaseException] = []

    def stop(player: Player) -> None:
        try:
            player.stop()
        except BaseException as exc:  # raised below, once every program is stopped
            problems.append(exc)

    stopping = [threading.Thread(target=stop, args=(p,), name="stop-program", daemon=True) for p in players]
    for thread in stopping:  # at once: each may wait out its program's polite close
        thread.start()
    for thread in stopping:
        thread.join()
    if problems:
        raise problems[0]
    for display in displays:
        display.close()
    if scratch is not None:
        scratch.cleanup()
