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
from typing import Any, Callable

from app.engine.play.gate import FRAME_GRACE_S, FrameGate
from app.engine.play.web_inside import WebInside

FPS = 60.0
STILL_S = 0.04
"""How long the window must show the same picture after frames were played."""
STILL_LOOK_S = 0.01
PRESENT_CAP_S = 1.5
"""Never wait longer for a played frame to be presented (a caret blinking on a held page never stands still)."""
ADVANCE_EXPRESSION = ("window.__playcoder && window.__playcoder.held ? window.__playcoder.advance({frames}, {sent})"
                      " : null")


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
        self.sent: Callable[[], int] | None = None
        """How many presses and releases the player's input has sent (its X backend's count)."""
        self.picture: Callable[[], Any] | None = None
        """Takes a picture of the window (the player's observer): after frames are played, the gate waits
        until the window stands still, since the browser presents a frame some time after drawing it."""

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
        sent = self.sent() if self.sent is not None else "null"
        played = self.inside.evaluate(ADVANCE_EXPRESSION.format(frames=int(frames), sent=sent), limit)
        if not isinstance(played, (int, float)):
            self.active = False
            self.lost = (f"the page did not play {frames} frames within {limit:.1f} s (its main thread busy, or the "
                         f"page gone after {time.monotonic() - start:.1f} s); it runs on the wall clock from here")
            return False
        self.frames += frames
        self._presented()
        return True

    def _presented(self) -> None:
        """Wait until the window has shown the same picture for :data:`STILL_S` (at most :data:`PRESENT_CAP_S`):
        time stands still on a held page, so a picture that stays is the frame just played."""
        if self.picture is None:
            return
        end = time.monotonic() + PRESENT_CAP_S
        last, since = self.picture(), time.monotonic()
        while time.monotonic() < end:
            time.sleep(STILL_LOOK_S)
            now = self.picture()
            if not now.same_as(last):
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= STILL_S:
                return

    def release(self) -> None:
        self.active = False

    def close(self) -> None:
        self.active = False
        self.inside = None
