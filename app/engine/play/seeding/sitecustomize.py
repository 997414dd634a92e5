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
frames and ``pygame.time.set_timer`` events fire on game time, so a game that
moves by elapsed time or by timer events moves the same in every run.

What it cannot pin: the wall clock read directly (``time.time``,
``time.monotonic``), threads and their scheduling, OS entropy read directly
(``os.urandom``, ``secrets``), generators a program creates with its own fresh
seed (``random.Random()``, ``numpy.random.default_rng()``), and the frames of
a program that does not pace itself with pygame's Clock.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import select
import sys
from types import ModuleType
from typing import Any, Sequence

_HERE = os.path.dirname(os.path.abspath(__file__))


def _seed_random(seed: int) -> None:
    import random

    random.seed(seed)


class _SeedNumpyOnImport:
    """A meta-path finder that seeds numpy.random right after the program imports it."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> Any:
        if name != "numpy.random":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader: Any = spec.loader
        seed = self.seed
        exec_module = loader.exec_module

        def exec_and_seed(module: ModuleType) -> None:
            exec_module(module)
            try:
                getattr(module, "seed")(seed % (2 ** 32))
            except Exception:
                pass

        loader.exec_module = exec_and_seed
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

    def frame(self, fps: float) -> None:
        """End a frame: take one credit, or tell the engine we stand still (our fps) and wait for more."""
        if not self.open:
            return
        try:
            if self.credit == 0:
                self.credit = self._read()
                if self.credit == 0:
                    os.write(self.write_fd, bytes([max(1, min(255, round(fps or 60)))]))
                    while self.credit == 0 and self.open:
                        select.select([self.read_fd], [], [])
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


def _gate_pygame(module: ModuleType, gate: _FrameGate) -> None:
    """Replace ``Clock``, ``get_ticks`` and ``set_timer`` in pygame.time by versions on the game clock."""
    real_clock = getattr(module, "Clock")
    real_ticks = getattr(module, "get_ticks")
    real_set_timer = getattr(module, "set_timer", None)
    game_ms = [0.0]
    state = {"gated": False, "released": False}
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
            self._fps = float(framerate or 60)
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

    def get_ticks() -> int:
        return int(game_ms[0]) if state["gated"] else int(real_ticks())

    setattr(module, "Clock", Clock)
    setattr(module, "get_ticks", get_ticks)
    if real_set_timer is not None:
        setattr(module, "set_timer", set_timer)


class _GatePygameOnImport:
    """A meta-path finder that gates pygame.time right after the program imports it."""

    def __init__(self, gate: _FrameGate) -> None:
        self.gate = gate

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> Any:
        if name != "pygame.time":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader: Any = spec.loader
        gate = self.gate
        exec_module = loader.exec_module

        def exec_and_gate(module: ModuleType) -> None:
            exec_module(module)
            try:
                _gate_pygame(module, gate)
                os.write(gate.write_fd, bytes([HELLO]))
            except Exception:
                gate.open = False

        loader.exec_module = exec_and_gate
        return spec


def _open_gate(raw: str) -> None:
    try:
        read_fd, write_fd = (int(x) for x in raw.split(","))
        os.fstat(read_fd)
        os.fstat(write_fd)
    except (ValueError, OSError):
        return
    # A program the game starts must not inherit the gate's pipes or its variable.
    os.environ.pop("PLAYCODER_FRAME_GATE", None)
    os.set_inheritable(read_fd, False)
    os.set_inheritable(write_fd, False)
    sys.meta_path.insert(0, _GatePygameOnImport(_FrameGate(read_fd, write_fd)))


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
    sys.meta_path.insert(0, _SeedNumpyOnImport(int(_raw)))
_gate = os.environ.get("PLAYCODER_FRAME_GATE")
if _gate:
    _open_gate(_gate)
try:
    _chain()
except Exception:
    pass
