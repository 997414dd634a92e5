"""Seeds a played Python program from the run's seed, without touching its code.

The engine puts this folder first on the program's PYTHONPATH, so Python runs
it at start-up (``site`` imports ``sitecustomize``).  It seeds ``random`` from
PLAYCODER_SEED at once and numpy's global generator the moment the program
imports ``numpy.random`` (numpy is never imported here), then runs the
``sitecustomize`` that would otherwise have run.

With PLAYCODER_FRAME_GATE (two inherited pipe ends, "READ_FD,WRITE_FD") it
also puts a pygame game on the engine's frame gate (:mod:`app.engine.play.gate`):
``pygame.time.Clock.tick`` ends each frame by taking one frame of credit the
engine granted, and waits for more when there is none, so several programs
played side by side stand still at the same frame; ``tick`` then returns the
frame's nominal length, ``pygame.time.get_ticks`` counts game time in
frames, ``pygame.time.set_timer`` events fire on game time and
``pygame.time.wait``/``delay`` are frames played (a GAME OVER screen held for
3 s), so a game that moves by elapsed time, by timer events or by pauses moves
the same in every run.

With PLAYCODER_CLOCK (an inherited memfd holding one double) Python's clocks
(``time.monotonic``, ``perf_counter``, ``time`` and their ``_ns`` forms) read
the engine's time instead of the machine's: game time on the frame gate, else
the seconds the engine has let pass (it moves them on the same for every
program at each step), from a fixed date.  A stopwatch shows the same digits
in every run.  A program that waits on the clock (thousands of reads with no
change) gets the wall clock back from that moment, so it never hangs.

What it cannot pin: clocks read in C (``datetime.now``, Tk's and Qt's timers),
threads and their scheduling, OS entropy read directly (``os.urandom``,
``secrets``), generators a program creates with its own fresh seed
(``random.Random()``, ``numpy.random.default_rng()``), and the frames of a
program that does not pace itself with pygame's Clock.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import mmap
import os
import select
import struct
import sys
import time
from types import ModuleType
from typing import Any, Callable, Sequence

_HERE = os.path.dirname(os.path.abspath(__file__))


def _seed_random(seed: int) -> None:
    import random

    random.seed(seed)


class _AfterImport:
    """A meta-path finder that calls ``then(module)`` right after the program imports module ``name``
    (once; an error in ``then`` never reaches the program)."""

    def __init__(self, name: str, then: Callable[[ModuleType], None]) -> None:
        self.name = name
        self.then = then

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> Any:
        if name != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader: Any = spec.loader
        exec_module, then = loader.exec_module, self.then

        def exec_and_then(module: ModuleType) -> None:
            exec_module(module)
            try:
                then(module)
            except Exception:
                pass

        loader.exec_module = exec_and_then
        return spec


HELLO = 0
"""The byte a gated program writes when it imports pygame.time (the engine then waits for its first frame)."""


class _FrameGate:
    """The program's end of the engine's frame gate: one byte of credit per frame."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.read_fd, self.write_fd = read_fd, write_fd
        self.credit = 0
        self.open = True
        os.set_blocking(read_fd, False)

    def held(self) -> bool:
        """Is the engine still holding the program (the credit pipe not closed)?  Reads no credit away."""
        if not self.open:
            return False
        try:
            self.credit += self._read()
        except OSError:
            self.open = False
        return self.open

    def game_seconds(self) -> float | None:
        """Game time while the gate holds the program (set once pygame.time is gated), else None."""
        return None

    side_fd = -1
    """A second descriptor read while the program stands (a scout's messages: _playcoder_fork), or -1."""

    def side(self) -> bool:
        """Read what came on :attr:`side_fd`; True when this frame must end at once (a branch just forked)."""
        return False

    def frame(self, fps: float) -> None:
        """End a frame: take one credit, or tell the engine we stand still (our fps) and wait for more."""
        if not self.open:
            return
        try:
            if self.side():
                return
            if self.credit == 0:
                self.credit = self._read()
                if self.credit == 0:
                    os.write(self.write_fd, bytes([max(1, min(255, round(fps or 60)))]))
                    waits = [self.read_fd] + ([self.side_fd] if self.side_fd >= 0 else [])
                    while self.credit == 0 and self.open:
                        select.select(waits, [], [])
                        if self.side():
                            return
                        self.credit = self._read()
            if self.credit:
                self.credit -= 1
        except OSError:
            self.open = False  # the engine is gone: run on the wall clock

    def _read(self) -> int:
        try:
            data = os.read(self.read_fd, 65536)
        except BlockingIOError:
            return 0
        if not data:
            self.open = False  # the engine let go of the game: it runs freely from here
        return len(data)


MONOTONIC_BASE = 1000.0
"""What ``time.monotonic`` and ``perf_counter`` read at the engine's time 0."""
WALL_BASE = 1767268800.0
"""What ``time.time`` reads at the engine's time 0: 2026-01-01 12:00 UTC, the same date in every run."""
BUSY_READS = 20000
"""Reads of an unchanged engine time after which a program is taken to wait on the clock."""


class _EngineClock:
    """Python's clocks on the engine's time (game time while the frame gate holds the program)."""

    def __init__(self, view: mmap.mmap, gate: _FrameGate | None) -> None:
        self.view = view
        self.gate = gate
        self.last = -1.0
        self.reads = 0
        self.real = time.monotonic
        self.wall_from: float | None = None
        self.wall_base = 0.0

    def engine_seconds(self) -> float:
        """The engine's time as it wrote it (no game time, no move to the wall clock): what Tk timers on the
        engine's clock are due by (``_playcoder_tk``)."""
        return float(struct.unpack_from("d", self.view, 0)[0])

    def now(self) -> float:
        if self.wall_from is not None:
            return self.wall_base + (self.real() - self.wall_from)
        game = self.gate.game_seconds() if self.gate is not None else None
        value = game if game is not None else struct.unpack_from("d", self.view, 0)[0]
        if value == self.last:
            self.reads += 1
            if self.reads > BUSY_READS:  # a program that waits on the clock runs on the wall clock from now
                self.wall_from, self.wall_base = self.real(), value
        else:
            self.last, self.reads = value, 0
        return value


def _set_clocks(clock: _EngineClock) -> None:
    def monotonic() -> float:
        return MONOTONIC_BASE + clock.now()

    def wall() -> float:
        return WALL_BASE + clock.now()

    def monotonic_ns() -> int:
        return int(monotonic() * 1e9)

    def wall_ns() -> int:
        return int(wall() * 1e9)

    setattr(time, "monotonic", monotonic)
    setattr(time, "perf_counter", monotonic)
    setattr(time, "time", wall)
    setattr(time, "monotonic_ns", monotonic_ns)
    setattr(time, "perf_counter_ns", monotonic_ns)
    setattr(time, "time_ns", wall_ns)


def _open_clock(raw: str, gate: _FrameGate | None) -> _EngineClock | None:
    try:
        fd = int(raw)
        view = mmap.mmap(fd, 8, prot=mmap.PROT_READ)
    except (ValueError, OSError):
        return None
    os.environ.pop("PLAYCODER_CLOCK", None)
    try:
        os.close(fd)  # the mapping stays
    except OSError:
        pass
    clock = _EngineClock(view, gate)
    _set_clocks(clock)
    return clock


def _gate_pygame(module: ModuleType, gate: _FrameGate) -> None:
    """Replace ``Clock``, ``get_ticks`` and ``set_timer`` in pygame.time by versions on the game clock."""
    real_clock = getattr(module, "Clock")
    real_ticks = getattr(module, "get_ticks")
    real_set_timer = getattr(module, "set_timer", None)
    real_wait = {name: getattr(module, name, None) for name in ("wait", "delay")}
    game_ms = [0.0]
    state: dict[str, Any] = {"gated": False, "released": False, "fps": 60.0}
    timers: dict[int, list[Any]] = {}
    """event type -> [event, interval ms, due (game ms; None while pygame's own timer runs it), loops left]"""

    def post(event: Any) -> None:
        import pygame.event as events

        events.post(events.Event(event) if isinstance(event, int) else event)

    def on_game_clock() -> None:
        """The first gated frame: timers started before it move from SDL's clock to the game's."""
        state["gated"] = True
        for timer in timers.values():
            if timer[2] is None and real_set_timer is not None:
                real_set_timer(timer[0], 0)
                timer[2] = game_ms[0] + timer[1]

    def off_game_clock() -> None:
        """The engine let go: the timers run on SDL's clock again."""
        state["released"] = True
        for timer in timers.values():
            if timer[2] is not None and real_set_timer is not None:
                real_set_timer(timer[0], int(timer[1]), timer[3])
                timer[2] = None

    def fire_due() -> None:
        for key, timer in list(timers.items()):
            while timer[2] is not None and timer[2] <= game_ms[0]:
                post(timer[0])
                timer[2] += timer[1]
                if timer[3]:
                    timer[3] -= 1
                    if timer[3] == 0:
                        timers.pop(key, None)
                        break

    def set_timer(event: Any, millis: int, loops: int = 0) -> None:
        key = event if isinstance(event, int) else getattr(event, "type", event)
        timers.pop(key, None)
        on_clock = state["gated"] and gate.open
        if millis > 0:
            timers[key] = [event, float(millis), game_ms[0] + millis if on_clock else None, int(loops)]
        if not on_clock and real_set_timer is not None:
            real_set_timer(event, millis, loops)

    class Clock:
        def __init__(self) -> None:
            self._real = real_clock()
            self._ms = 0.0
            self._fps = 0.0

        def _tick(self, framerate: float = 0, busy: bool = False) -> int:
            if gate.open:
                if not state["gated"]:
                    on_game_clock()
                gate.frame(framerate)
            if not gate.open:  # never gated, or let go (then game time goes on at the wall clock's pace)
                if state["gated"] and not state["released"]:
                    off_game_clock()
                self._ms = float(self._real.tick_busy_loop(framerate) if busy else self._real.tick(framerate))
                game_ms[0] += self._ms
                return int(self._ms)
            self._fps = state["fps"] = float(framerate or 60)
            self._ms = 1000.0 / self._fps
            game_ms[0] += self._ms
            fire_due()
            return int(round(self._ms))

        def tick(self, framerate: float = 0) -> int:
            return self._tick(framerate)

        def tick_busy_loop(self, framerate: float = 0) -> int:
            return self._tick(framerate, busy=True)

        def get_time(self) -> int:
            return int(round(self._ms))

        def get_rawtime(self) -> int:
            return int(round(self._ms))

        def get_fps(self) -> float:
            return self._fps if gate.open else float(self._real.get_fps())

    def gated_wait(name: str) -> Any:
        real = real_wait[name]

        def wait(milliseconds: int) -> int:
            """A pause (a GAME OVER screen held for 3 s) is game time on the gate: its frames, played."""
            if not (state["gated"] and gate.open) or real is None:
                return int(real(milliseconds)) if real is not None else 0
            fps = state["fps"]
            for _ in range(max(1, round(milliseconds * fps / 1000.0))):
                gate.frame(fps)
                if not gate.open:
                    break
                game_ms[0] += 1000.0 / fps
                fire_due()
            return int(milliseconds)

        return wait

    def get_ticks() -> int:
        # Game time from the start: a game that notes get_ticks() before its first frame must read the
        # same in every run (0), unless the engine has let it go.
        if state["gated"] or gate.held():
            return int(game_ms[0])
        return int(real_ticks())

    def game_seconds() -> float | None:
        return game_ms[0] / 1000.0 if state["gated"] and gate.open else None

    gate.game_seconds = game_seconds  # type: ignore[method-assign]
    setattr(module, "Clock", Clock)
    setattr(module, "get_ticks", get_ticks)
    if real_set_timer is not None:
        setattr(module, "set_timer", set_timer)
    for name, real in real_wait.items():
        if real is not None:
            setattr(module, name, gated_wait(name))


def _gate_on_import(gate: _FrameGate) -> Callable[[ModuleType], None]:
    """What happens once the program imports pygame.time: it is gated, and the engine hears hello."""

    def gate_module(module: ModuleType) -> None:
        try:
            _gate_pygame(module, gate)
            os.write(gate.write_fd, bytes([HELLO]))
        except Exception:
            gate.open = False

    return gate_module


def _open_gate(raw: str) -> _FrameGate | None:
    try:
        read_fd, write_fd = (int(x) for x in raw.split(","))
        os.fstat(read_fd)
        os.fstat(write_fd)
    except (ValueError, OSError):
        return None
    # A program the game starts must not inherit the gate's pipes or its variable.
    os.environ.pop("PLAYCODER_FRAME_GATE", None)
    os.set_inheritable(read_fd, False)
    os.set_inheritable(write_fd, False)
    gate = _FrameGate(read_fd, write_fd)
    sys.meta_path.insert(0, _AfterImport("pygame.time", _gate_on_import(gate)))
    fork = os.environ.pop("PLAYCODER_FORK", "")
    if fork.isdigit():  # a scout of the survival search: the engine may fork it at a frame
        try:
            import _playcoder_fork

            _playcoder_fork.install(gate, int(fork))
        except Exception:
            pass
    return gate


def _chain() -> None:
    """Run the next sitecustomize on the path (a distribution's own), as Python would have."""
    rest = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None and spec.origin != os.path.abspath(__file__):
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


_raw = os.environ.get("PLAYCODER_SEED")
if _raw is not None and _raw.lstrip("-").isdigit():
    _seed_random(int(_raw))
    _numpy_seed = int(_raw) % (2 ** 32)
    sys.meta_path.insert(0, _AfterImport("numpy.random", lambda module: getattr(module, "seed")(_numpy_seed)))
_gate = os.environ.get("PLAYCODER_FRAME_GATE")
_frame_gate = _open_gate(_gate) if _gate else None
_clock = os.environ.get("PLAYCODER_CLOCK")
_engine_clock = _open_clock(_clock, _frame_gate) if _clock else None
_timers_on_clock = os.environ.pop("PLAYCODER_TIMERS_ON_CLOCK", "") == "1"
if os.environ.get("PLAYCODER_INSIDE"):  # the engine's inside channel (app.engine.play.inside): never breaks the program
    try:
        import _playcoder_inside

        if _engine_clock is not None and _timers_on_clock:  # lockstep play: Tk's timers run on the engine's time
            _playcoder_inside.ENGINE_TIME = _engine_clock.engine_seconds
        _playcoder_inside.start(_AfterImport)
    except Exception:
        pass
try:
    _chain()
except Exception:
    pass
