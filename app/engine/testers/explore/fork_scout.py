"""Scouts that fork: the survival search's looks ahead cost a plan's frames, not a start and a replay.

A :class:`~app.engine.testers.explore.survival.PlayerScout` is a second copy
of the game on an X display of its own; every plan after the first needs it
restarted and the whole game so far replayed (3-4 s at 20 s of play on a
2-core machine, growing), so a look could try a few plans at most and a
snake starved.  Here one copy of the game, the *trunk*, runs on SDL's dummy
video driver (no X connection to share, so it can fork) and on its own frame
gate, and follows the game: the game's inputs reach it as events at the frames
the game had them (:mod:`app.engine.play.seeding._playcoder_fork` posts them
inside the program; key and button state read by polling shows them too).  A
plan is played by a *branch*: the trunk forks at the decision frame, the child
plays the plan at full speed on the game's clock, sends a small picture at
each look and, at the end, the program's lines it ran that the trunk never
had.  The trunk stands where it was for the next plan.

Only the game's own restarts (an episode's end, a return to an archived cell)
restart the trunk.  What the trunk cannot follow (text typed, a drag) puts it
out of step: it sits out until the game restarts.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import select
import socket
import time
from dataclasses import replace
from typing import Any

import numpy as np

from app.engine.play.actions import Action, Click, DoubleClick, Hotkey, Press, RightClick, Tap, Wait
from app.engine.play.channel_limits import Notes, ProgramFault, integer, parse_json
from app.engine.play.display import ISOLATED, XDisplay, open_display
from app.engine.play.executor import KEY_ALIASES, PERSON_PACE, TAP_GAP_S, TAP_HOLD_S, DOUBLE_CLICK_GAP_S, \
    DOUBLE_CLICK_HOLD_S
from app.engine.play.gate import FrameGate
from app.engine.play.target import TargetProcess
from app.engine.play.targetspec import TargetSpec
from app.engine.testers.explore.archive import Step, thumbnail_grey
from app.engine.testers.explore.scouts import NOTHING, NearSite, Timeline, Played, Scouts, Stillness

ENV = "PLAYCODER_FORK"
SCALE = 8
"""A branch's pictures are the display shrunk this many times a side (its blocks' grey levels)."""
START_S = 15.0
"""How long the trunk has to start and reach its first gated frame (no window to wait for)."""
FORK_EVALS = 16
"""Plans a look may play (a branch costs its frames: ~10 ms for 2 s of a small game) ..."""
FORK_CHEAP_PLANS = 8
"""... and at least this many once one lives (the others may run code few plans run) ..."""
FORK_LOOK_BUDGET_S = 1.5
"""... within this much wall time."""
BRANCH_GRACE_S = 3.0
"""On top of a plan's frames at 20 ms each: how long a branch may take before it is given up."""
PARALLEL = 4
"""Branches played side by side at most (no more than the machine's cores)."""
MAX_MESSAGE = 1 << 20
"""The longest message taken from a branch (bytes): a picture is a few KB, an end message a few hundred lines."""
MAX_SIDE = 1024
"""The largest side of a branch's picture (it is the display shrunk :data:`SCALE` times)."""
MAX_PAIRS = 100_000
"""Lines (and near sites) taken from one branch's end message."""
MAX_NAME = 1024
"""The longest file name taken from a branch."""
DRAIN_MAX = 4096
"""Late messages thrown away before a look at most ..."""
DRAIN_S = 0.25
"""... within this much time."""
SEND_S = 5.0
"""A message to the trunk that cannot be sent within this long fails (the search is then off for the run)."""

Event = list[object]
"""What the program posts: ["key", NAME, DOWN, TEXT], ["button", X, Y, BUTTON, DOWN] or ["move", X, Y]."""

PYGAME_NAMES = {"Return": "return", "Escape": "escape", "BackSpace": "backspace", "Prior": "page up",
                "Next": "page down", "Control_L": "left ctrl", "Shift_L": "left shift", "Alt_L": "left alt",
                "Super_L": "left meta", "Meta_L": "left meta", "Caps_Lock": "caps lock", "KP_Enter": "enter",
                "plus": "+", "minus": "-", "asterisk": "*", "slash": "/", "equal": "=", "period": ".",
                "comma": ",", "Tab": "tab", "Delete": "delete", "Insert": "insert", "Home": "home", "End": "end"}
TEXTS = {"space": " ", "return": "\r", "tab": "\t"}


def pygame_key(key: str) -> tuple[str, str]:
    """The pygame name of an executor's key (an X keysym or one of its aliases), and the text it types."""
    sym = KEY_ALIASES.get(key.lower(), key)
    name = PYGAME_NAMES.get(sym, sym.lower())
    text = TEXTS.get(name, name if len(name) == 1 else "")
    return name, text


class OutOfStep(Exception):
    """An input the trunk cannot be sent as the game had it."""


class ForkGate(FrameGate):
    """A frame gate with a socket beside it, on which the engine sends inputs and asks for branches."""

    def __init__(self) -> None:
        super().__init__()
        self.sock, self._child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.settimeout(SEND_S)  # a copy that stops reading cannot hold the engine in a send
        self._child.set_inheritable(True)

    def env(self) -> dict[str, str]:
        return {**super().env(), ENV: str(self._child.fileno())}

    def child_fds(self) -> tuple[int, ...]:
        return (*super().child_fds(), self._child.fileno())

    def started(self) -> None:
        super().started()
        self._child.close()

    def close(self) -> None:
        super().close()
        self._child.close()
        self.sock.close()


class Schedule:
    """An input as the frames it spans on the gate: (frame offset, events), as the executor plays it."""

    def __init__(self, fps: float, hold_s: float) -> None:
        self.fps, self.hold_s = fps or 60, hold_s

    def frames(self, seconds: float) -> int:
        return max(1, round(seconds * self.fps))

    def of(self, action: Action) -> list[tuple[int, list[Event]]]:
        if isinstance(action, Wait):
            return []
        if isinstance(action, (Press, Hotkey)):
            keys = [pygame_key(k) for k in ((action.key,) if isinstance(action, Press) else action.keys)]
            hold = self.frames(self.hold_s)
            return [(0, [["key", n, True, t] for n, t in keys]), (hold, [["key", n, False, t] for n, t in keys[::-1]])]
        if isinstance(action, Tap):
            name, text = pygame_key(action.key)
            out: list[tuple[int, list[Event]]] = []
            at = 0
            for i in range(action.times):
                if i:
                    at += self.frames(TAP_GAP_S)
                out.append((at, [["key", name, True, text]]))
                at += self.frames(TAP_HOLD_S)
                out.append((at, [["key", name, False, text]]))
            return out
        if isinstance(action, (Click, DoubleClick, RightClick)):
            x, y = action.x, action.y
            button = 3 if isinstance(action, RightClick) else 1
            count = 2 if isinstance(action, DoubleClick) else 1
            held = self.hold_s if count == 1 else min(self.hold_s, DOUBLE_CLICK_HOLD_S)
            at = self.frames(PERSON_PACE.approach_s)
            out = [(0, [["move", x + 1, y]]), (at, [["move", x, y]])]
            at += self.frames(PERSON_PACE.move_settle_s)
            for i in range(count):
                if i:
                    at += self.frames(DOUBLE_CLICK_GAP_S)
                out.append((at, [["button", x, y, button, True]]))
                at += self.frames(held)
                out.append((at, [["button", x, y, button, False]]))
            return out
        raise OutOfStep(f"a {action.name} cannot be sent to a forked scout")

    def plan(self, plan: Timeline) -> dict[int, list[Event]]:
        """A plan's events by frame offset from its first step."""
        start = plan[0][0]
        events: dict[int, list[Event]] = {}
        for at, action in plan:
            if action == NOTHING:
                continue
            for offset, evs in self.of(action):
                events.setdefault(at - start + offset, []).extend(evs)
        return events


class ForkScouts(Scouts):
    """The survival search's scouts as branches forked from one trunk that follows the game."""

    def __init__(self, spec: TargetSpec, seed: int) -> None:
        self.spec = replace(spec, env={**spec.env, "SDL_VIDEODRIVER": "dummy"})
        self.seed = seed
        self.display: XDisplay | None = None
        self.target: TargetProcess | None = None
        self.gate: ForkGate | None = None
        self.played: list[Step] = []
        self.out_of_step = False
        self.restarts = 0
        self.forks = 0
        self.lost = 0
        """Branches that never said how they ended (given up after their time, or the copy's socket ended)."""
        self.notes = Notes("fork scout socket")
        """What the forked copy sent that broke the socket's limits (dropped, each said once)."""
        self.parallel = max(1, min(PARALLEL, len(os.sched_getaffinity(0))))
        self.gated = False
        """Was the trunk's last start on the frame gate (else its branches are not the game's future)?"""

    # -- the trunk ---------------------------------------------------------------------------------
    def _restart(self) -> None:
        self._stop()
        self.restarts += 1
        if self.display is None:
            self.display = open_display(ISOLATED, self.spec.size)
        gate = ForkGate()
        self.target = TargetProcess(self.spec, self.display, self.seed, gate=gate)
        self.gate = gate
        self.gated = gate.engage(self.target.alive, hello_s=START_S)
        self.played, self.out_of_step = [], False

    def _alive(self) -> bool:
        return self.target is not None and self.target.alive() and self.gate is not None and self.gate.active

    def _reaches(self, inputs: list[Step], frame: int) -> bool:
        n = len(self.played)
        return (self._alive() and not self.out_of_step and self.played == inputs[:n]
                and self.gate is not None and self.gate.frames <= frame
                and all(at >= self.gate.frames for at, _ in inputs[n:]))

    def _follow(self, inputs: list[Step], frame: int) -> bool:
        """The trunk at ``frame`` with the game's inputs (restarted when it cannot get there)."""
        if not self._reaches(inputs, frame):
            if self.out_of_step and self.played == inputs[:len(self.played)] and self._alive() \
                    and self.gate is not None and self.gate.frames <= frame:
                return False  # it sits out until the game restarts
            self._restart()
            if not self._reaches(inputs, frame):
                return False
        gate = self.gate
        assert gate is not None
        schedule = Schedule(gate.fps, self.spec.timing.hold_ms / 1000)
        for at, action in inputs[len(self.played):]:
            try:
                steps = schedule.of(action)
            except OutOfStep:
                self.out_of_step = True
                return False
            for offset, events in steps:
                if not self._advance_to(at + offset):
                    return False
                self._send({"op": "events", "events": events})
            self.played.append((at, action))
        return self._advance_to(frame)

    def _advance_to(self, frame: int) -> bool:
        gate = self.gate
        assert gate is not None
        if frame > gate.frames:
            gate.advance(frame - gate.frames)
        return self._alive() and gate.frames == frame

    def _send(self, msg: dict[str, object]) -> None:
        assert self.gate is not None
        self.gate.sock.send(json.dumps(msg).encode())

    # -- Scouts ------------------------------------------------------------------------------------
    def seat(self, inputs: list[Step], frame: int) -> None:
        return None  # no seats: plans are played by :meth:`play`

    def ready(self, inputs: list[Step]) -> bool:
        return self._alive() and not self.out_of_step and self.played == inputs[:len(self.played)]

    def warm(self, inputs: list[Step], frame: int) -> None:
        if self.target is None:
            self._restart()

    def fps(self) -> float:
        return self.gate.fps if self.gate is not None else 0.0

    def play(self, inputs: list[Step], plan: Timeline, marks: list[int], stand: int, memory: int) -> Played | None:
        return self.play_many(inputs, [(plan, marks)], stand, memory)[0]

    def play_many(self, inputs: list[Step], plans: list[tuple[Timeline, list[int]]], stand: int,
                  memory: int) -> list[Played | None]:
        """Plans that start at the same frame, each in a branch of its own, side by side."""
        frame = plans[0][0][0][0]
        if any(plan[0][0] != frame for plan, _ in plans) or not self._follow(inputs, frame) or self.gate is None:
            return [None]
        schedule = Schedule(self.gate.fps, self.spec.timing.hold_ms / 1000)
        try:
            events = [schedule.plan(plan) for plan, _ in plans]
        except OutOfStep:
            return [None]
        self._drain()
        waits: dict[int, tuple[list[int], float]] = {}
        for (plan, marks), evs in zip(plans, events):
            self.forks += 1
            looks = [m - frame for m in marks]
            timeout = looks[-1] * 0.02 * len(plans) + BRANCH_GRACE_S
            self._send({"op": "fork", "id": self.forks, "events": {str(k): v for k, v in evs.items()},
                        "marks": looks, "end": looks[-1], "timeout": timeout, "scale": SCALE})
            waits[self.forks] = (looks, timeout)
        got = self._collect(waits, stand, memory)
        return [got[ident] for ident in waits]

    def _collect(self, waits: dict[int, tuple[list[int], float]], stand: int, memory: int) -> dict[int, Played]:
        """The branches' pictures until each ends, dies (stands still) or is given up."""
        assert self.gate is not None
        played = {ident: Played() for ident in waits}
        still = {ident: Stillness() for ident in waits}
        dead: set[int] = set()
        open_ = set(waits)
        deadline = time.monotonic() + max(t for _, t in waits.values()) + 1.0
        while open_:
            data = self._receive(deadline)
            if data is None or not data:  # nothing in time, or the trunk and its branches are gone (EOF)
                self.lost += len(open_)
                if data is not None:
                    self.notes.add("the forked copy closed its socket (it ended) while branches were playing")
                break
            try:
                ident, msg, body = self._message(data, open_)
                if ident is None:
                    continue  # an earlier branch's late word
                got = played[ident]
                if "end" in msg:
                    open_.discard(ident)
                    if msg.get("alive") and ident not in dead:
                        own = self._own_lines()
                        got.lines, got.ran = _pairs(msg.get("lines", []), own), _pairs(msg.get("ran", []), own)
                        got.near = _near(msg.get("near", []))
                    continue
                if ident in dead:
                    continue
                w, h = integer(msg.get("w"), 1, MAX_SIDE, "a picture's width"), \
                    integer(msg.get("h"), 1, MAX_SIDE, "a picture's height")
                if len(body) != w * h * 3:
                    raise ProgramFault("the program sent a picture whose size does not match its bytes")
            except ProgramFault as fault:
                self.notes.add(str(fault))
                continue
            grey = np.frombuffer(body, dtype=np.uint8).reshape(h, w, 3).astype(np.float32).mean(axis=2)
            if still[ident].stands(grey, stand, memory):
                dead.add(ident)  # the rest of its looks are not lived through
                continue
            got.lived += 1
            got.pictures.append(thumbnail_grey(grey))
        return played

    def _receive(self, deadline: float) -> bytes | None:
        """One message from the socket before ``deadline``: None when none came, ``b""`` when the other side is
        gone (end of file, or the socket failed): the caller stops reading, it never reads EOF in a loop."""
        assert self.gate is not None
        left = deadline - time.monotonic()
        if left <= 0:  # checked before reading: a copy that always has more to say holds no one past the deadline
            return None
        try:
            ready, _, _ = select.select([self.gate.sock], [], [], left)
            return self.gate.sock.recv(MAX_MESSAGE) if ready else None
        except (OSError, ValueError):
            return b""

    def _message(self, data: bytes, open_: set[int]) -> tuple[int | None, dict[str, Any], bytes]:
        """A branch's message as (its id, or None when it is no open branch's; its head; the picture's bytes)."""
        head, _, body = data.partition(b"\n")
        msg = parse_json(head, MAX_MESSAGE)
        if not isinstance(msg, dict):
            raise ProgramFault("the program sent a message that is not an object")
        ident = msg.get("id")
        return (ident if isinstance(ident, int) and ident in open_ else None), msg, body

    def _own_lines(self) -> dict[str, frozenset[int]] | None:
        """The program's own lines (only those count from a branch: its word cannot grow the engine's memory)."""
        return self.target.inside.lines_by_file() if self.target is not None else None

    def _drain(self) -> None:
        """Words of branches given up earlier are thrown away (at most a budget of them: a copy that floods the
        socket is not read for ever; end of file stops at once)."""
        assert self.gate is not None
        end = time.monotonic() + DRAIN_S
        for _ in range(DRAIN_MAX):
            if time.monotonic() > end:
                self.notes.add("the forked copy flooded its socket with messages nobody asked for")
                return
            try:
                if not select.select([self.gate.sock], [], [], 0)[0] or not self.gate.sock.recv(MAX_MESSAGE):
                    return
            except (OSError, ValueError):
                return

    def _stop(self) -> None:
        if self.target is not None:
            self.target.sandboxed.kill()  # at once: the trunk's state is thrown away anyway
            with contextlib.suppress(Exception):
                self.target.shutdown()  # its run's cgroup, its gate and its channel go too
            self.target = None
        if self.gate is not None:
            self.gate.close()
            self.gate = None

    def close(self) -> None:
        self._stop()
        if self.display is not None:
            self.display.close()
            self.display = None


def _pairs(items: Any, own: dict[str, frozenset[int]] | None) -> set[tuple[str, int]]:
    """A branch's (file, line) pairs, as sent: only the program's own lines when they are known, at most
    :data:`MAX_PAIRS` either way (anything malformed is left out)."""
    out: set[tuple[str, int]] = set()
    for item in items[:MAX_PAIRS] if isinstance(items, list) else []:
        if not isinstance(item, list) or len(item) != 2:
            continue
        f, n = item
        if not isinstance(f, str) or not isinstance(n, int) or isinstance(n, bool) or len(f) > MAX_NAME:
            continue
        if own is None or n in own.get(f, ()):
            out.add((f, n))
    return out


def _near(items: Any) -> dict[NearSite, tuple[float, float]]:
    """A branch's least and last distances, as sent (anything malformed is left out)."""
    out: dict[NearSite, tuple[float, float]] = {}
    for item in items if isinstance(items, list) else []:
        try:
            f, n, c, least, last = item
            least, last = float(least), float(last)
            site = (str(f)[:MAX_NAME], integer(n, 0, 1 << 31, "a line"), integer(c, 0, 1 << 31, "a column"))
        except (TypeError, ValueError, OverflowError):  # ProgramFault is a ValueError
            continue
        if math.isfinite(least) and math.isfinite(last) and 0 <= least <= last and len(out) < MAX_PAIRS:
            out[site] = (least, last)
    return out
