"""The frame gate: programs played side by side stand still at the same frame.

Differential play compares a candidate game with its reference.  On the wall
clock, three programs started at different moments show different moments of
a moving game, so a moving screen could not be compared.  On the gate they
cannot differ by timing: a pygame game whose ``Clock.tick`` is gated (the
seeding ``sitecustomize`` does it, without touching the game's code) takes one
byte of credit per frame from a pipe and, when there is none, writes its frame
rate on a second pipe and waits.  The engine grants the same number of frames
to every program, sends each input while all of them stand still, and looks
once each has used its frames up: the pictures are of the same frame.

Beside the frame gate, every program played in lockstep reads Python's clocks
(``time.monotonic``, ``time.time`` ...) from the engine: game time while its
frames are gated, else seconds the engine moves on at each step, the same for
every program (:meth:`FrameGate.advance_clock`).  A stopwatch written with
``time.monotonic`` then shows the same digits in the candidate and its
reference.

The gate cannot be turned against the engine (a hostile program must not stall it): the clock is a
sealed memfd (it cannot shrink, grow or be written by anyone but the
engine's own mapping; a program that truncates it would otherwise kill the
engine with SIGBUS at its next clock write), handed to the program
read-only; credits are written without blocking (a full credit pipe means
the program stopped taking frames: it is let go, with the reason); and an
answer written out of turn (bytes before any frames were granted) lets the
program go too.

A program that never imports ``pygame.time`` is not gated (the engine learns
it at once: no hello byte); one that imports it but never ticks is let go
after :data:`FIRST_FRAME_S`.  Letting go closes the credit pipe: the program
runs on the wall clock from then on, as it would without the gate.
"""

from __future__ import annotations

import fcntl
import mmap
import os
import select
import struct
import time
from typing import Callable

from app.engine.play.channel_limits import Budget, read_some

ENV = "PLAYCODER_FRAME_GATE"
CLOCK_ENV = "PLAYCODER_CLOCK"
"""An inherited memfd of one double: the engine's time, which the program's Python clocks read."""
TIMERS_ENV = "PLAYCODER_TIMERS_ON_CLOCK"
"""``1``: the program's Tk timers are due by the engine's time too (the engine moves it on at every step)."""
HELLO = 0
"""Written by the program when it imports pygame.time (must match the sitecustomize)."""
HELLO_S = 0.3
"""How long after its window appears a program has to say it is a pygame program."""
FIRST_FRAME_S = 5.0
"""How long a pygame program has to reach its first frame before it is let go."""
GATE_ENDED = "the program closed its frame gate (it ended)"
"""Why a gate stopped holding a program that simply ended (no note: the run says how it ended)."""
FRAME_GRACE_S = 3.0
"""On top of the granted frames' own time: how long a program may take to use them up."""
CLOCK_BYTES = 8
ZERO_BUDGET = 64
"""Stray zero bytes one wait takes from a program before it counts as flooding its gate (a real one sends one)."""
FLOODED = ("the program flooded its frame gate with bytes it was never asked for; it runs on the wall clock "
           "from here")
F_SEAL_FUTURE_WRITE = getattr(fcntl, "F_SEAL_FUTURE_WRITE", 0x0010)
"""No write and no new writable mapping; the engine's mapping, made before, stays writable (Linux 5.1)."""
CLOCK_SEALS = fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | F_SEAL_FUTURE_WRITE | fcntl.F_SEAL_SEAL


class FrameGate:
    """The engine's end of one program's gate (one per program start)."""

    def __init__(self, timers_on_clock: bool = False) -> None:
        """``timers_on_clock``: the engine moves the clock on at every step (lockstep play), so the program's Tk
        timers may run on it: a Tk game then moves by the engine's steps, in step with its reference runs."""
        self.timers_on_clock = timers_on_clock
        self._credit_r, self._credit_w = os.pipe()
        os.set_blocking(self._credit_w, False)  # a program that stops taking frames never blocks the engine
        self._ack_r, self._ack_w = os.pipe()
        self.fps = 0.0
        self.frames = 0
        """Frames granted and used so far."""
        self.active = False
        self.said_hello = False
        """The program said it is a pygame program (whether or not it then reached a frame)."""
        self.lost = ""
        """Why the gate stopped holding the program (it did not use its frames in time), or ''."""
        self._open = True
        self._clock, self._clock_fd = _sealed_clock()
        self.clock_s = 0.0
        """The engine's time the program's Python clocks read (off the frame gate)."""

    # -- starting ------------------------------------------------------------------
    def env(self) -> dict[str, str]:
        return {ENV: f"{self._credit_r},{self._ack_w}", CLOCK_ENV: str(self._clock_fd),
                **({TIMERS_ENV: "1"} if self.timers_on_clock else {})}

    def child_fds(self) -> tuple[int, ...]:
        """The ends the program inherits."""
        return (self._credit_r, self._ack_w, self._clock_fd)

    def started(self) -> None:
        """The program has its ends: close the engine's copies (so a dead program reads as EOF)."""
        for fd in (self._credit_r, self._ack_w, self._clock_fd):
            _close(fd)
        self._credit_r = self._ack_w = self._clock_fd = -1

    def advance_clock(self, seconds: float) -> None:
        """Move the engine's time on: what the program's Python clocks read (off the frame gate)."""
        if seconds > 0 and not self._clock.closed:
            self.clock_s += seconds
            struct.pack_into("d", self._clock, 0, self.clock_s)

    def engage(self, alive: Callable[[], bool] = lambda: True, hello_s: float = HELLO_S,
               first_frame_s: float | None = None) -> bool:
        """After the program's window appeared: is it on the gate, standing at its first frame?  (``hello_s``:
        how long it has to say hello; longer for a program with no window to wait for.  ``first_frame_s``: how
        long it has to reach its first frame; default :data:`FIRST_FRAME_S`.)"""
        if not self._wait_byte(hello_s, hello=True):
            self.release()
            return False
        self.said_hello = True
        end = time.monotonic() + (FIRST_FRAME_S if first_frame_s is None else first_frame_s)
        while time.monotonic() < end and alive():
            if self._wait_byte(0.1):
                self.active = True
                return True
        self.release()
        return False

    # -- playing -------------------------------------------------------------------
    def frames_for(self, seconds: float) -> int:
        """Whole frames for ``seconds`` of game time (at least one)."""
        return max(1, round(seconds * (self.fps or 60)))

    def advance(self, frames: int) -> bool:
        """Let the program play ``frames`` frames and wait until it stands still again."""
        if not self.active or frames <= 0:
            return self.active
        if self._answered_out_of_turn():
            return self._let_go("the program answered its frame gate out of turn (frames it was never granted); "
                                "it runs on the wall clock from here")
        try:
            written = os.write(self._credit_w, b"\x01" * frames)
        except BlockingIOError:
            written = 0
        except OSError:
            self.active, self.lost = False, GATE_ENDED
            return False
        if written < frames:
            return self._let_go("the program stopped taking frames (its frame gate is full); it runs on the wall "
                                "clock from here")
        limit = frames / (self.fps or 60) + FRAME_GRACE_S
        if not self._wait_byte(limit):
            self.active = False
            self.lost = self.lost or (f"the program did not play {frames} frames within {limit:.1f} s (busy outside its "
                         "frame loop, or ended); it runs on the wall clock from here")
            self.release()
            return False
        self.frames += frames
        return True

    def sleep(self, seconds: float) -> None:
        """What an executor's pause means for a gated program: the frames of that time, played."""
        if self.active:
            self.advance(self.frames_for(seconds))
        else:
            time.sleep(seconds)

    def _answered_out_of_turn(self) -> bool:
        """Bytes from the program while it should stand still: not a program the gate holds."""
        if self._ack_r < 0:
            return False
        ready, _, _ = select.select([self._ack_r], [], [], 0)
        return bool(ready)

    def _let_go(self, why: str) -> bool:
        self.active, self.lost = False, why
        self.release()
        return False

    def release(self) -> None:
        """Let the program go: it runs on the wall clock from now on (its credit pipe reads EOF)."""
        self.active = False
        if self._credit_w >= 0:
            _close(self._credit_w)
            self._credit_w = -1

    def close(self) -> None:
        self.release()
        for fd in (self._ack_r, self._credit_r, self._ack_w, self._clock_fd):
            if fd >= 0:
                _close(fd)
        self._ack_r = self._credit_r = self._ack_w = self._clock_fd = -1
        if not self._clock.closed:
            self._clock.close()

    def _wait_byte(self, timeout: float, hello: bool = False) -> bool:
        """Wait for the program's next byte: the hello (``hello``) or a frame-rate byte.  The deadline holds
        whatever the program writes: more than :data:`ZERO_BUDGET` stray zero bytes in one wait is a flood, and
        the program is let go with that reason."""
        deadline = time.monotonic() + timeout
        budget = Budget(ZERO_BUDGET)
        while self._ack_r >= 0 and time.monotonic() <= deadline:
            data = read_some(self._ack_r, deadline, 1)
            if data is None:
                return False
            if not data:
                return False  # the program ended
            if data[0] == HELLO:
                if hello:
                    return True
                if not budget.take(1):
                    self._let_go(FLOODED)
                    return False
                continue
            self.fps = float(data[0])
            return True
        return False


def _sealed_clock() -> tuple[mmap.mmap, int]:
    """The engine's writable mapping of a sealed memfd, and a read-only descriptor of it for the program."""
    fd = os.memfd_create("playcoder-clock", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        os.ftruncate(fd, CLOCK_BYTES)
        view = mmap.mmap(fd, CLOCK_BYTES)
        try:
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, CLOCK_SEALS)
        except OSError:  # a kernel before 5.1 has no F_SEAL_FUTURE_WRITE: the size is what matters (SIGBUS)
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
        reader = os.open(f"/proc/self/fd/{fd}", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        os.close(fd)
    return view, reader


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
