"""A gated pygame game that the engine can fork at a frame: the survival search's scouts, inside the program.

Loaded by the seeding ``sitecustomize`` when PLAYCODER_FORK names an inherited
socket (a ``SOCK_SEQPACKET`` end) beside the frame gate.  The engine starts
such a copy of the game on SDL's dummy video driver (no X server: a forked
child cannot share an X connection) and keeps it at the game's frame, sending
the game's inputs as events on this socket while the copy stands on its gate
(the *trunk*).  To look ahead, it asks the trunk to fork: the child (a
*branch*) leaves the gate, plays a plan of inputs frame by frame at full speed
on the game's clock, sends a small picture of the display at the frames asked
for, and at the end the program's lines it ran that the trunk never had; then
it ends.  The trunk stands where it was.  A look ahead then costs the frames
of the plan, not a start of the program and a replay of the whole game.

Messages from the engine are JSON objects:

- ``{"op": "events", "events": [EVENT, ...]}``: post these now (the trunk
  stands at the frame the game had them at);
- ``{"op": "fork", "id": N, "events": {"OFFSET": [EVENT, ...]}, "marks":
  [FRAMES, ...], "end": FRAMES, "timeout": S, "scale": K}``: a branch.

An EVENT is ``["key", NAME, DOWN, TEXT]`` (a pygame key name),
``["button", X, Y, BUTTON, DOWN]`` or ``["move", X, Y]``.  A branch answers
``{"id": N, "mark": FRAMES, "w": W, "h": H}`` followed by a newline and the
display shrunk by ``scale`` as RGB bytes; then ``{"id": N, "end": FRAMES,
"alive": BOOL, "lines": [[FILE, LINE], ...], "ran": [[FILE, LINE], ...], "near": [[FILE, LINE, COLUMN,
LEAST, LAST], ...]}`` (lines new to the trunk, every line of the program's own files the branch ran, and
the least and the last distance of each equality test of the program's state: :mod:`_playcoder_near`).  A branch that ends (the game
quit, or raised) answers its end with ``"alive": false``; one that hangs is
ended by an alarm after ``timeout`` seconds.  Nothing here may break the
game: every error leaves it as it was.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import signal
import sys
import threading
import time
from typing import Any, Optional

import _playcoder_near

PROBE_COLOUR = (3, 251, 7)
"""The colour a branch paints its display with before the game's first frame in it: a game that paints over
all of it redraws the whole display each frame."""
DRAWS = ("rect", "circle", "ellipse", "arc", "line", "lines", "aaline", "aalines", "polygon")
"""``pygame.draw`` functions left undone, on the display, in a frame no picture is taken of."""
QUIET_CALLS = 600
"""Calls in a row that ran no line new to the branch before a function (without an equality test) is traced no
more in it: a helper a drawing loop calls for each of 400 cells ..."""
HEAVY_EVENTS = 200
HEAVY_WEIGHT = 200
"""... or 3 calls of a function that ran :data:`HEAVY_EVENTS` lines each (the drawing loop itself).  A
function the game calls once a frame stays traced for a branch's whole plan (600 frames is 10 s): its rare
line (a pipe passed, a point scored) is what ranks the branch."""

_STATE: dict[str, Any] = {"unseen": False, "drew": False, "deferred": [], "held": set(), "buttons": set(), "pos": (0, 0), "patched": False, "children": []}


def _pygame() -> Any:
    return sys.modules.get("pygame")


def _patch(pg: Any) -> None:
    """Key and button state read by polling shows what the engine holds down (SDL's own state knows no
    posted event)."""
    if _STATE["patched"]:
        return
    _STATE["patched"] = True
    real_keys, real_mouse, real_pos = pg.key.get_pressed, pg.mouse.get_pressed, pg.mouse.get_pos
    held, buttons = _STATE["held"], _STATE["buttons"]

    class Pressed:
        def __init__(self, real: Any) -> None:
            self.real = real

        def __getitem__(self, key: int) -> bool:
            return key in held or bool(self.real[key])

        def __len__(self) -> int:
            return len(self.real)

        def __iter__(self) -> Any:
            return iter(self.real)

    def get_pressed() -> Any:
        return Pressed(real_keys()) if held else real_keys()

    def mouse_pressed(num_buttons: int = 3) -> Any:
        real = tuple(real_mouse(num_buttons))
        return tuple(bool(b) or (i + 1) in buttons for i, b in enumerate(real))

    def mouse_pos() -> Any:
        return _STATE["pos"] if _STATE.get("moved") else real_pos()

    pg.key.get_pressed = get_pressed
    pg.mouse.get_pressed = mouse_pressed
    pg.mouse.get_pos = mouse_pos


UNTRACED: set[Any] = set()
"""Code objects of this module's wrappers, which the branch's tracer passes at once (a call event each)."""


def _patch_draw(pg: Any) -> None:
    """``pygame.draw`` on the display is put off while ``_STATE["unseen"]`` (a branch's frame no picture is
    taken of, in a game that redraws the whole display each frame): what it draws is painted over in the next
    frame that draws, before any picture.  A game's drawing is most of a branch's time (a snake's 400 board
    cells a frame).  What a frame put off is drawn after all when a picture is taken and no frame drew since
    (the game stopped drawing: a GAME OVER that waits, a puzzle that draws only when a key comes)."""
    if _STATE.get("draw_patched"):
        return
    _STATE["draw_patched"] = True
    get_surface, rect = pg.display.get_surface, pg.Rect
    reals = _STATE["draw_reals"] = {}
    for name in DRAWS:
        real = getattr(pg.draw, name, None)
        if real is None:
            continue
        reals[name] = real

        def quiet(surface: Any, *args: Any, _real: Any = real, **kwargs: Any) -> Any:
            if surface is get_surface():
                _STATE["drew"] = True
                if _STATE["unseen"]:
                    _STATE["deferred"].append((_real, surface, args, kwargs))
                    return rect(0, 0, 0, 0)
            return _real(surface, *args, **kwargs)
        UNTRACED.add(quiet.__code__)
        setattr(pg.draw, name, quiet)


def _unpatch_draw(pg: Any) -> None:
    """The game's own ``pygame.draw`` back (a game that does not redraw its whole display draws every frame:
    the wrappers would only cost a Python call each)."""
    for name, real in _STATE.pop("draw_reals", {}).items():
        setattr(pg.draw, name, real)
    _STATE["draw_patched"] = False


def _post(events: list[Any]) -> None:
    pg = _pygame()
    if pg is None:
        return
    _patch(pg)
    for ev in events:
        try:
            if ev[0] == "key":
                _, name, down, text = ev
                code = pg.key.key_code(name)
                if down:
                    _STATE["held"].add(code)
                    pg.event.post(pg.event.Event(pg.KEYDOWN, key=code, mod=0, unicode=text, scancode=0))
                else:
                    _STATE["held"].discard(code)
                    pg.event.post(pg.event.Event(pg.KEYUP, key=code, mod=0, unicode=text, scancode=0))
            elif ev[0] == "move":
                _STATE["pos"], _STATE["moved"] = (int(ev[1]), int(ev[2])), True
                pg.event.post(pg.event.Event(pg.MOUSEMOTION, pos=_STATE["pos"], rel=(0, 0), buttons=(0, 0, 0)))
            elif ev[0] == "button":
                _, x, y, button, down = ev
                _STATE["pos"], _STATE["moved"] = (int(x), int(y)), True
                (_STATE["buttons"].add if down else _STATE["buttons"].discard)(int(button))
                kind = pg.MOUSEBUTTONDOWN if down else pg.MOUSEBUTTONUP
                pg.event.post(pg.event.Event(kind, pos=_STATE["pos"], button=int(button)))
        except Exception:
            pass


class _Branch:
    """A forked child playing one plan."""

    def __init__(self, sock: int, msg: dict[str, Any]) -> None:
        self.sock = sock
        self.id = int(msg["id"])
        self.events = {int(k): v for k, v in msg.get("events", {}).items()}
        self.marks = set(int(m) for m in msg.get("marks", []))
        self.end = int(msg["end"])
        self.scale = max(1, int(msg.get("scale", 8)))
        self.frames = 0
        self.ran: set[tuple[str, int]] = set()
        self.nearest = _playcoder_near.Nearest()
        self.full = bool(os.environ.get("PLAYCODER_FORK_FULL"))
        """Every frame drawn and every line traced (to measure what the shortcuts save, and to test them)."""
        self.saved: Any = None
        """The display before the probe painted it (see :meth:`probe`)."""
        self.redraws = False
        self.put_off: list[Any] = []
        """The drawing the last frame that drew put off (drawn if a picture is taken before another frame
        draws)."""

    def begin(self, timeout: float) -> None:
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.close(null)
        except OSError:
            pass
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(max(1, int(timeout + 0.999)))
        tracer = _tracer()
        if tracer is not None:
            # A thread of the trunk's (the coverage answer) may have held the tracer's lock at the fork: the
            # child has no such thread, so a lock copied held would never be let go.
            tracer.lock = threading.Lock()
            tracer.take()  # what the trunk ran is not this branch's
            self.trace(tracer)
        atexit.register(self.ended)
        _no_sleep()
        if not self.full:
            self.probe()
        _post(self.events.pop(0, []))

    def trace(self, tracer: Any) -> None:
        """Every line of the program's own files the branch runs, not only those new to the trunk: a branch
        that runs lines few branches run (a snake eating) is told from one that only lives.  At each line
        that starts an equality test of the program's state, how far the test is from holding
        (:mod:`_playcoder_near`): a snake that turned toward its food is told from one that turned away.

        A line event costs a call of this Python tracer, and a game's drawing loop runs hundreds of lines a
        frame (a snake's board of 400 cells).  So a function without an equality test that ran nothing new to
        the branch for :data:`QUIET_CALLS` calls (a heavy call counts :data:`HEAVY_WEIGHT`) is traced no more
        in this branch: a rare line of it is lost to the ranking, not to coverage (the coverage tracer is
        apart)."""
        ran, own, nearest = self.ran, tracer.own, self.nearest
        prev = sys.gettrace()  # the coverage tracer before Python 3.12: it goes on seeing lines new to the trunk
        quiet: dict[Any, int] = {}
        skip: set[Any] = set()
        tested: dict[Any, bool] = {}

        def has_tests(code: Any, tests: dict[int, Any]) -> bool:
            known = tested.get(code)
            if known is None:
                try:
                    known = bool(tests) and any(line in tests for _, _, line in code.co_lines())
                except Exception:
                    known = True  # (never skipped)
                tested[code] = known
            return known

        def chained(before: Any, mine: bool, tests: dict[int, Any], code: Any = None) -> Any:
            events = fresh = 0

            def local(frame: Any, event: str, arg: Any) -> Any:
                nonlocal before, events, fresh
                if before is not None:
                    before = before(frame, event, arg)
                if mine:
                    if event == "line":
                        key = (frame.f_code.co_filename, frame.f_lineno)
                        events += 1
                        if key not in ran:
                            ran.add(key)
                            fresh += 1
                        if tests:
                            nearest.line(frame, tests)
                    elif event == "return" and code is not None:
                        if fresh:
                            quiet[code] = 0
                        else:
                            quiet[code] = quiet.get(code, 0) + (HEAVY_WEIGHT if events >= HEAVY_EVENTS else 1)
                            if quiet[code] >= QUIET_CALLS:
                                skip.add(code)
                return local
            return local

        def tests_of(filename: str) -> dict[int, Any]:
            try:
                return _playcoder_near.sites(filename)
            except Exception:
                return {}

        def call(frame: Any, event: Any, arg: Any) -> Any:
            before = prev(frame, event, arg) if prev is not None else None
            code = frame.f_code
            if code in skip or code in UNTRACED:
                return chained(before, False, {}) if before is not None else None
            try:
                mine = own(code.co_filename) is not None
            except Exception:
                mine = False
            if not (mine or before is not None):
                return None
            if not mine:
                return chained(before, False, {})
            tests = tests_of(code.co_filename)
            return chained(before, True, tests, None if self.full or has_tests(code, tests) else code)

        frame: Any = sys._getframe(1)
        while frame is not None:  # the game's loop is running already: its frames are traced from here on
            if own(frame.f_code.co_filename) is not None:
                frame.f_trace = chained(frame.f_trace, True, tests_of(frame.f_code.co_filename))
            frame = frame.f_back
        sys.settrace(call)

    def probe(self) -> None:
        """Paint the display with :data:`PROBE_COLOUR` before the game's next frame; :meth:`frame` then tells
        whether the game painted over all of it."""
        pg = _pygame()
        try:
            surface = pg.display.get_surface() if pg is not None else None
            if surface is None:
                return
            self.saved = surface.copy()
            surface.fill(PROBE_COLOUR)
            _patch_draw(pg)
        except Exception:
            self.saved = None

    def probed(self) -> None:
        """After the game's first frame in the branch: a display painted over everywhere redraws whole, and its
        frames no picture is taken of need no drawing; else what the game did not paint is given back."""
        saved, self.saved = self.saved, None
        pg = _pygame()
        try:
            surface = pg.display.get_surface()
            left = pg.mask.from_threshold(surface, PROBE_COLOUR, (1, 1, 1, 255)).count()
            if left == 0:
                self.redraws = True
                return
            _unpatch_draw(pg)
            now = surface.copy()
            now.set_colorkey(PROBE_COLOUR)
            surface.blit(saved, (0, 0))
            surface.blit(now, (0, 0))
        except Exception:
            with contextlib.suppress(Exception):
                pg.display.get_surface().blit(saved, (0, 0))

    def frame(self) -> None:
        self.frames += 1
        if self.saved is not None:
            self.probed()
        if _STATE["drew"]:
            self.put_off = _STATE["deferred"]
        _STATE["drew"], _STATE["deferred"] = False, []
        _post(self.events.pop(self.frames, []))
        if self.frames in self.marks:
            if self.put_off:
                for draw, surface, args, kwargs in self.put_off:
                    with contextlib.suppress(Exception):
                        draw(surface, *args, **kwargs)
                self.put_off = []
            self.picture()
        if self.frames >= self.end:
            self.finish(True)
        _STATE["unseen"] = self.redraws and self.frames + 1 not in self.marks

    def picture(self) -> None:
        pg = _pygame()
        try:
            surface = pg.display.get_surface()
            w, h = surface.get_size()
            size = (max(1, w // self.scale), max(1, h // self.scale))
            try:
                small = pg.transform.smoothscale(surface, size)
            except Exception:
                small = pg.transform.scale(surface, size)
            data = pg.image.tobytes(small, "RGB")
            head = {"id": self.id, "mark": self.frames, "w": size[0], "h": size[1]}
            _send(self.sock, json.dumps(head).encode() + b"\n" + data)
        except Exception:
            pass

    def finish(self, alive: bool) -> None:
        lines: list[list[Any]] = []
        tracer = _tracer()
        if tracer is not None:
            try:
                lines = [[f, n] for f, ns in tracer.take().items() for n in sorted(ns)]
            except Exception:
                lines = []
        sys.settrace(None)
        ran: list[list[Any]] = []
        near: list[list[Any]] = []
        if tracer is not None:
            for filename, line in self.ran:
                rel = tracer.own(filename)
                if rel is not None:
                    ran.append([rel, line])
            for (filename, line, column), d in self.nearest.least.items():
                rel = tracer.own(filename)
                if rel is not None:
                    near.append([rel, line, column, d, self.nearest.last.get((filename, line, column), d)])
        try:
            _send(self.sock, json.dumps({"id": self.id, "end": self.frames, "alive": alive, "lines": lines[:4000],
                                         "ran": ran[:4000], "near": near[:1000]}).encode())
        except OSError:
            pass
        os._exit(0)

    def ended(self) -> None:
        """The program ended (it quit, or raised) before the plan's end."""
        self.finish(False)


def _send(sock: int, data: bytes) -> None:
    """Write one packet, waiting while the socket is full (it is non-blocking: the trunk shares it, and branches
    side by side can fill it faster than the engine reads)."""
    while True:
        try:
            os.write(sock, data)
            return
        except (BlockingIOError, InterruptedError):
            select.select([], [sock], [], 1.0)


def _tracer() -> Optional[Any]:
    inside = sys.modules.get("_playcoder_inside")
    return getattr(inside, "TRACER", None) if inside is not None else None


def install(gate: Any, sock: int) -> None:
    """The trunk reads the engine's messages beside its credits while it stands (``gate.side``); a branch
    forked from it plays free (its ``gate.frame`` is the branch's)."""
    os.set_inheritable(sock, False)
    os.set_blocking(sock, False)

    def drain() -> bool:
        """Apply the engine's messages; True in a branch just forked (it must not read any more)."""
        for pid in list(_STATE["children"]):
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    _STATE["children"].remove(pid)
            except ChildProcessError:
                _STATE["children"].remove(pid)
        while True:
            try:
                data = os.read(sock, 1 << 20)  # one packet
            except OSError:  # nothing more now (non-blocking), or the engine is gone
                return False
            if not data:
                return False
            try:
                msg = json.loads(data)
            except ValueError:
                continue
            if msg.get("op") == "events":
                _post(msg.get("events", []))
            elif msg.get("op") == "fork":
                pid = os.fork()
                if pid == 0:
                    branch(msg)
                    return True
                _STATE["children"].append(pid)

    def branch(msg: dict[str, Any]) -> None:
        child = _Branch(sock, msg)
        for fd in (gate.read_fd, gate.write_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        gate.held = lambda: True
        gate._read = lambda: 0
        gate.side = lambda: False
        gate.side_fd = -1
        gate.frame = lambda fps: child.frame()
        child.begin(float(msg.get("timeout", 10)))

    gate.side_fd = sock
    gate.side = drain


def _no_sleep() -> None:
    """A branch plays at full speed: a sleep of the program (a GAME OVER shown for 3 s before it quits, a loop
    paced by ``time.sleep``) waits for wall time the branch does not live by, and would spend the look's."""
    time.sleep = lambda seconds: None  # type: ignore[assignment]
    pgtime = sys.modules.get("pygame.time")
    if pgtime is not None:
        for name in ("wait", "delay"):
            try:
                setattr(pgtime, name, lambda ms: max(0, int(ms)))
            except Exception:
                pass
