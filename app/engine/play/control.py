"""RunControl: pause / resume / step / stop for a run loop, from any thread.

The loop calls :meth:`RunControl.checkpoint` before every action.  Pause makes
the checkpoint wait; "step" lets exactly one more action through and pauses
again; stop makes the checkpoint raise :class:`RunStopped`.  Control lines
(``pause``, ``resume``, ``step``, ``stop``, and ``act {json action}`` for a
human take-over action while paused) read from a stream — the engine's
stdin when the workbench drives it — map onto the same calls.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from typing import Any, Callable, TextIO

from app.engine.errors import RunStopped

COMMANDS = ("pause", "resume", "step", "stop")
HOLD_POLL_S = 0.25
"""While the engine holds a run, how often it looks whether the reason is gone."""


class RunControl:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._paused = False
        self._step_credits = 0
        self._stopped = False
        self._listeners: list[Callable[[str], None]] = []
        self._human: deque[dict[str, Any]] = deque()
        self._stepped = False
        self.reason = ""
        """Why the run is paused when the engine paused it (:meth:`hold`); empty for a user's pause."""

    # -- commands (any thread) ---------------------------------------------
    def pause(self) -> None:
        self._set(paused=True)

    def resume(self) -> None:
        self._set(paused=False)

    def step(self) -> None:
        """Run one more action, then pause (pauses first if running)."""
        with self._cond:
            self._paused = True
            self._step_credits += 1
            self._cond.notify_all()
        self._notify("stepping")

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        self._notify("stopping")

    def take_over(self, action: dict[str, Any]) -> None:
        """Queue a human action; the loop performs it at its next checkpoint, paused or not."""
        with self._cond:
            self._human.append(action)
            self._cond.notify_all()

    def command(self, line: str) -> bool:
        """Apply one control line; returns False for an unknown or malformed line."""
        text = line.strip()
        if text.lower().startswith("act "):
            try:
                action = json.loads(text[4:])
            except ValueError:
                return False
            if not isinstance(action, dict):
                return False
            self.take_over(action)
            return True
        word = text.lower()
        if word not in COMMANDS:
            return False
        getattr(self, word)()
        return True

    # -- state ---------------------------------------------------------------
    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def stopped(self) -> bool:
        return self._stopped

    def on_change(self, listener: Callable[[str], None]) -> None:
        self._listeners.append(listener)

    # -- loop side -------------------------------------------------------------
    def checkpoint(self) -> dict[str, Any] | None:
        """Block while paused; raise RunStopped when stopped.

        Returns a queued human action (take-over) to perform instead of asking the
        tester, or None when the tester may take its next step.
        """
        with self._cond:
            while True:
                if self._stopped:
                    raise RunStopped()
                if self._human:
                    return self._human.popleft()
                if not self._paused:
                    return None
                if self._step_credits > 0:
                    self._step_credits -= 1
                    self._stepped = True
                    return None
                self._cond.wait()

    def step_done(self) -> None:
        """Called by the loop after each action: a single step ends in the paused state again."""
        with self._cond:
            stepped, self._stepped = self._stepped, False
            still_paused = self._paused and not self._stopped
        if stepped and still_paused:
            self._notify("paused")

    def sleep(self, seconds: float) -> None:
        """Sleep that wakes early (raising RunStopped) when the run is stopped."""
        with self._cond:
            if self._stopped:
                raise RunStopped()
            self._cond.wait_for(lambda: self._stopped, timeout=seconds)
            if self._stopped:
                raise RunStopped()

    def hold(self, reason: str, ready: Callable[[], bool], poll_s: float = HOLD_POLL_S) -> None:
        """Pause mid-step for a reason the user must see (the target is covered, hidden, ...).

        Returns when the user resumes or steps, or when ``ready()`` turns true: the cause is
        gone and the run goes on by itself (unless the user paused it meanwhile, or was
        stepping).  Raises :class:`RunStopped` when the run is stopped.  Listeners hear
        "paused" with :attr:`reason` set.
        """
        with self._cond:
            if self._stopped:
                raise RunStopped()
            was_paused = self._paused
            self._paused = True
            self.reason = reason
        self._notify("paused")
        try:
            while True:
                with self._cond:
                    if self._stopped:
                        raise RunStopped()
                    if not self._paused:
                        return
                    if self._step_credits > 0:
                        self._step_credits -= 1
                        self._stepped = True
                        return
                    self._cond.wait(poll_s)
                    ours = self.reason == reason
                if ours and ready():
                    if was_paused:
                        return
                    self.resume()
                    return
        finally:
            self.reason = ""

    def listen(self, stream: TextIO) -> threading.Thread:
        """Read control lines from ``stream`` on a daemon thread; EOF means stop."""

        def reader() -> None:
            for line in stream:
                self.command(line)
            self.stop()

        thread = threading.Thread(target=reader, name="playcoder-control", daemon=True)
        thread.start()
        return thread

    def _set(self, *, paused: bool) -> None:
        with self._cond:
            self._paused = paused
            self.reason = ""
            self._step_credits = 0
            self._cond.notify_all()
        self._notify("paused" if paused else "running")

    def _notify(self, state: str) -> None:
        for listener in list(self._listeners):
            listener(state)
