"""A web page's frame gate: the page's held clock, moved on by the engine a frame at a time.

With the gate, the engine's probe (``play/web_probe.js``) holds the page's time from its first script on:
``Date``, ``performance.now()``, timers and ``requestAnimationFrame`` all run on a clock that stands still
until the engine plays frames (each 1/60 s: the timers due in it, in order, then its animation frames), and
the answer comes once the result is painted.  A canvas game therefore shows the same frame after the same
inputs and frames on an idle machine and under load, as a pygame game on :class:`~app.engine.play.gate.
FrameGate` does; the player, differential play and ``--freeze-while-thinking`` use it through the same
interface.
"""

from __future__ import annotations

import time
from typing import Callable

from app.engine.play.gate import FRAME_GRACE_S, FrameGate
from app.engine.play.web_inside import WebInside

FPS = 60.0
ADVANCE_EXPRESSION = "window.__playcoder && window.__playcoder.held ? window.__playcoder.advance({frames}) : null"


class WebGate(FrameGate):
    """The engine's end of one page start's held clock (made by the player, joined to its page by
    :class:`~app.engine.play.target.TargetProcess`)."""

    def __init__(self) -> None:  # no pipes: the DevTools channel carries the frames
        self.timers_on_clock = True
        self.fps = FPS
        self.frames = 0
        self.active = False
        self.said_hello = False
        self.lost = ""
        self.clock_s = 0.0
        self.inside: WebInside | None = None

    def env(self) -> dict[str, str]:
        return {}

    def child_fds(self) -> tuple[int, ...]:
        return ()

    def started(self) -> None:
        pass

    def attach(self, inside: WebInside) -> None:
        """The page this gate holds (its probe is told to hold the clock before the page's scripts run)."""
        self.inside = inside

    def advance_clock(self, seconds: float) -> None:
        """A held page reads only its own frames' time: the engine's step clock has nothing to add."""
        self.clock_s += max(0.0, seconds)

    def engage(self, alive: Callable[[], bool] = lambda: True, hello_s: float = 0.0,
               first_frame_s: float | None = None) -> bool:
        """Is the page standing on its held clock (it loaded with the probe holding it)?"""
        self.said_hello = self.inside is not None and self.inside.available
        self.active = self.said_hello and alive()
        return self.active

    def advance(self, frames: int) -> bool:
        """Play ``frames`` frames of the page's clock and wait until they are painted."""
        if not self.active or frames <= 0 or self.inside is None:
            return self.active
        limit = frames / self.fps + FRAME_GRACE_S
        start = time.monotonic()
        played = self.inside.evaluate(ADVANCE_EXPRESSION.format(frames=int(frames)), limit)
        if not isinstance(played, (int, float)):
            self.active = False
            self.lost = (f"the page did not play {frames} frames within {limit:.1f} s (its main thread busy, or the "
                         f"page gone after {time.monotonic() - start:.1f} s); it runs on the wall clock from here")
            return False
        self.frames += frames
        return True

    def release(self) -> None:
        self.active = False

    def close(self) -> None:
        self.active = False
        self.inside = None
