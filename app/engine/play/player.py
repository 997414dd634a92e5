"""Player: one program being played on one display — its process, observer and executor, restartable.

The session plays the candidate with one; the differential tester plays the
reference (twice) with others, on their own private displays.
"""

from __future__ import annotations

import contextlib
from concurrent.futures import Future
from typing import Any, Callable, Iterable

from app.engine.play.desktop import DesktopCapture, Hold
from app.engine.play.desktop_input import DesktopBackend, DesktopExecutor
from app.engine.play.actions import Action, Wait
from app.engine.play.display import XDisplay
from app.engine.play.executor import ActionExecutor, make_executor
from app.engine.play.observer import Observation, VisualObserver
from app.engine.play.target import TargetProcess, WindowInfo
from app.engine.play.targetspec import TargetSpec


class Player:
    """A program on a display; ``start`` (again after an exit) gives its window."""

    def __init__(self, spec: TargetSpec, display: XDisplay, seed: int,
                 sleep: Callable[[float], None], hold: Hold | None = None) -> None:
        """``hold``: on the user's desktop, how the run pauses when the target cannot be seen or
        reached (:meth:`RunControl.hold`); without it such a run ends with the reason as an error."""
        self.hold = hold
        self.spec = spec
        self.display = display
        self.seed = seed
        self.sleep = sleep
        self.target: TargetProcess | None = None
        self.observer: VisualObserver | None = None
        self.executor: ActionExecutor | None = None

    def start(self) -> WindowInfo:
        target = self.target = TargetProcess(self.spec, self.display, self.seed)
        win = target.wait_for_window()

        def geometry() -> tuple[int, int, int, int]:
            w = target.window if target.window is not None else win
            return (w.x, w.y, w.width, w.height)

        if not self.display.isolated:
            self._start_desktop(target, geometry)
            return win
        self.observer = VisualObserver(self.display.name, geometry)
        self.executor = make_executor(self.display.name, self.display.isolated, win.id, geometry, self.display.size,
                                      sleep=self.sleep, hold_s=self.spec.timing.hold_ms / 1000)
        self.executor.park()  # Xvfb puts the pointer mid-screen: over a centred button, which would glow
        return win

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

    def settle(self, cap_s: float, quiet_s: float) -> Observation:
        assert self.observer is not None
        return self.observer.settle(cap_s=cap_s, quiet_s=quiet_s)

    def act(self, action: Action, before: Observation) -> Observation:
        """Send one action and settle, as the session does for the candidate: a moving window gets
        the shorter cap, a wait only its own settle (what a second program played in step needs)."""
        assert self.executor is not None and self.observer is not None
        timing = self.spec.timing
        self.executor.execute(action)
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
    for player in players:
        player.stop()
    for display in displays:
        display.close()
    if scratch is not None:
        scratch.cleanup()
