"""Where the survival search plays its plans: scouts, and whether a branch's pictures stand still.

A *scout* is a copy of the game that can be played ahead of it.  :class:`Scouts` is what the search asks
of them (:meth:`Scouts.play` a plan after the game's inputs, looking at given frames); :class:`OneScout`
plays plans on one :class:`PlayerScout` scout, a gated copy on an X display of its own (a restart and a
replay of the game per plan it cannot reach: the tests' simulated games use it), and
:class:`~app.engine.testers.explore.fork_scout.ForkScouts` forks a branch per plan from one copy that
follows the game.  A branch is dead when the program ended or its picture stood still (:class:`Stillness`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from app.engine.play.actions import Action, Wait
from app.engine.play.display import ISOLATED, XDisplay, open_display
from app.engine.play.observer import Frame
from app.engine.play.player import Player
from app.engine.play.targetspec import TargetSpec
from app.engine.testers.explore.archive import Step, thumbnail

NEW_SHARE = 0.2
NEW_MAX_SHARE = 0.01
"""... but for at most this share of the blocks that moved, and this share of the window's blocks."""
BLOCK = 8
"""Pictures are compared in blocks of this many pixels a side ..."""
BLOCK_CHANGE = 2.0
"""... whose mean grey level changed by more than this."""
NOTHING: Action = Wait(0.0)
Timeline = list[tuple[int, Action]]
"""A survival plan's inputs, each at its gate frame: (gate frame, input) for each step; NOTHING sends nothing.
(A tester plan, named and played in a row, is :class:`~app.engine.testers.explore.forms.Plan`.)"""


class Scout(Protocol):
    """What the survival search needs of a second copy of the game (a gated :class:`Player`)."""

    def restart(self) -> None: ...

    def alive(self) -> bool: ...

    @property
    def frames(self) -> int: ...

    def catch_up(self, frames: int) -> None: ...

    def send(self, action: Action) -> None: ...

    def capture(self) -> Frame: ...

    def new_lines(self) -> set[tuple[str, int]]: ...

    def fps(self) -> float: ...

    gated: bool
    """Was the last start on the frame gate (else its branches are not the game's future)?"""

    def close(self) -> None: ...


@dataclass
class Seat:
    """A scout and the inputs it played since its last start (what it can still reach)."""

    scout: Scout
    played: list[Step] = field(default_factory=list)
    still: Stillness = field(default_factory=lambda: Stillness())
    dead: bool = False

    def can_reach(self, inputs: list[Step]) -> bool:
        """Could this scout play on into ``inputs`` (its inputs so far are theirs, the rest still to come)?"""
        n = len(self.played)
        return (self.scout.alive() and self.played == inputs[:n]
                and all(at >= self.scout.frames for at, _ in inputs[n:]) and not self.dead)

    def restart(self) -> None:
        self.scout.restart()
        self.played, self.still, self.dead = [], Stillness(), False

    def play_to(self, inputs: list[Step], frame: int) -> None:
        """Send the inputs not yet played whose frame is at most ``frame``, each at its frame; then play up to
        ``frame``."""
        for at, action in inputs[len(self.played):]:
            if at > frame or not self.scout.alive():
                break
            self.scout.catch_up(at)
            self.scout.send(action)
            self.played.append((at, action))
        self.scout.catch_up(frame)

    def look(self, stand: int = 2, memory: int = 4) -> Frame | None:
        """A picture now, or None when the branch is dead: the program ended, or it stood still over the last
        ``stand`` looks (:func:`stands`, against what moved within the last ``memory`` looks)."""
        if not self.scout.alive():
            return None
        shot = self.scout.capture()
        self.dead = self.still.stands(_blocks(shot), stand, memory)
        return None if self.dead else shot


@dataclass
class Stillness:
    """Whether a branch's pictures stand still, look after look (its blocks' grey levels)."""

    prev: np.ndarray | None = None
    moved: list[np.ndarray] = field(default_factory=list)
    """The blocks that changed at the last few looks."""
    window: list[tuple[int, int]] = field(default_factory=list)
    """(new, moved) blocks at the last looks."""

    def stands(self, blocks: np.ndarray, stand: int, memory: int) -> bool:
        """Has the branch stood still over the last ``stand`` looks (:func:`stands`, against what moved within
        the last ``memory`` looks), this look's blocks included?"""
        if self.prev is not None and self.prev.shape != blocks.shape:
            self.prev, self.moved, self.window = None, [], []  # the window changed size: a new picture
        if self.prev is not None:
            moved = np.abs(blocks - self.prev) > BLOCK_CHANGE
            self.window = [*self.window[-(stand - 1):], motion(moved, self.moved)] if stand > 1 \
                else [motion(moved, self.moved)]
            self.moved = [*self.moved[-(memory - 1):], moved] if memory > 1 else [moved]
        self.prev = blocks
        return len(self.window) >= stand and stands(self.window, blocks.size)


def _blocks(frame: Frame) -> np.ndarray:
    """The frame's grey level averaged over blocks of :data:`BLOCK` pixels."""
    arr = frame.array()[..., :3].astype(np.float32).mean(axis=2)
    h, w = (arr.shape[0] // BLOCK) * BLOCK, (arr.shape[1] // BLOCK) * BLOCK
    return arr[:h, :w].reshape(h // BLOCK, BLOCK, w // BLOCK, BLOCK).mean(axis=(1, 3))


def motion(moved: np.ndarray, before: list[np.ndarray]) -> tuple[int, int]:
    """Blocks that moved into places that were still (not moved at the last looks), and blocks that moved."""
    n = int(moved.sum())
    if n == 0 or not before:
        return n, n
    return int(np.count_nonzero(moved & ~np.logical_or.reduce(before))), n


def stands(window: list[tuple[int, int]], blocks: int) -> bool:
    """Over these looks' (new, moved) blocks: nothing moved, or what moved had almost all moved just
    before and little moved into places that were still: a glow, a blinking PRESS R TO RESTART, a bird
    bobbing on a title screen, clouds drifting behind a GAME OVER panel.  Play moves into places that were
    still (a snake's head, a ball, pipes scrolling into the sky)."""
    new, moved = sum(w[0] for w in window), sum(w[1] for w in window)
    return moved == 0 or (new <= NEW_SHARE * moved and all(w[0] <= NEW_MAX_SHARE * blocks for w in window))


class Scouts:
    """Where plans are played: scouts that reach a sequence of inputs (restarting one when none can)."""

    restarts = 0

    def seat(self, inputs: list[Step], frame: int) -> Seat | None:
        """A scout that can reach ``inputs`` (restarted if need be), or None when none is ready yet."""
        raise NotImplementedError

    def warm(self, inputs: list[Step], frame: int) -> None:
        """The game's inputs up to ``frame`` (the next look starts there): scouts may get ready meanwhile."""

    def ready(self, inputs: list[Step]) -> bool:
        """Can a scout play ``inputs`` without a restart the game would wait for?"""
        raise NotImplementedError

    def fps(self) -> float:
        raise NotImplementedError

    def close(self) -> None:
        """Stop every scout."""

    parallel = 1
    """Plans played at once (forked branches run side by side; a scout plays one at a time)."""

    def play_many(self, inputs: list[Step], plans: list[tuple[Timeline, list[int]]], stand: int,
                  memory: int) -> list[Played | None]:
        """:meth:`play` for each (plan, marks), up to the first no scout was ready for."""
        out: list[Played | None] = []
        for plan, marks in plans:
            out.append(self.play(inputs, plan, marks, stand, memory))
            if out[-1] is None:
                break
        return out

    def play(self, inputs: list[Step], plan: Timeline, marks: list[int], stand: int, memory: int) -> Played | None:
        """Play ``plan`` after the game's ``inputs`` on a scout, looking at each frame of ``marks``; None when no
        scout is ready (the game does not wait for one)."""
        full = full_inputs(inputs, plan)
        seat = self.seat(full, plan[0][0])
        if seat is None:
            return None
        seat.play_to(full, plan[0][0])
        played = Played(replayed=seat.scout.new_lines())  # what the replay ran is not this plan's
        for mark in marks:
            if mark <= seat.scout.frames:  # a scout already past here (it played this plan before) lived to it
                played.lived += 1
                continue
            seat.play_to(full, mark)
            shot = seat.look(stand, memory)
            if shot is None:
                break
            played.lived += 1
            played.pictures.append(thumbnail(shot))
        played.lines = seat.scout.new_lines() if seat.scout.alive() else set()
        return played


NearSite = tuple[str, int, int]
"""An equality test of the program's own code: (file, line, column)."""


@dataclass
class Played:
    """What a plan played on a scout showed."""

    lived: int = 0
    """Marks the branch lived through (the program running, its picture still moving)."""
    pictures: list[bytes] = field(default_factory=list)
    """Thumbnails at the marks it lived through."""
    lines: set[tuple[str, int]] = field(default_factory=set)
    """Lines of the program the plan ran."""
    replayed: set[tuple[str, int]] = field(default_factory=set)
    """Lines a scout ran replaying the game's inputs before the plan (not the plan's)."""
    ran: set[tuple[str, int]] = field(default_factory=set)
    """Every line of the program's own files a branch that lived through its plan ran (forked scouts)."""
    near: dict[NearSite, tuple[float, float]] = field(default_factory=dict)
    """The least and the last distance of each equality test of the program's state in a branch that lived
    through its plan (forked scouts: ``_playcoder_near``)."""


class OneScout(Scouts):
    """One scout: it plays on when it can reach the inputs, else it restarts and replays them."""

    def __init__(self, scout: Scout) -> None:
        self.one = Seat(scout)
        self.restarts = 0

    def seat(self, inputs: list[Step], frame: int) -> Seat:
        if not self.one.can_reach(inputs):
            self.restarts += 1
            self.one.restart()
        return self.one

    def ready(self, inputs: list[Step]) -> bool:
        return self.one.can_reach(inputs)

    def fps(self) -> float:
        return self.one.scout.fps()


def full_inputs(inputs: list[Step], plan: Timeline) -> list[Step]:
    """The game's inputs, then the plan's."""
    return inputs + [(at, a) for at, a in plan if not isinstance(a, Wait)]


class PlayerScout:
    """A scout that is a second, gated copy of the game on a private display of its own."""

    def __init__(self, spec: TargetSpec, seed: int) -> None:
        self.spec, self.seed = spec, seed
        self.display: XDisplay | None = None
        self.player: Player | None = None
        self.gated = False
        """Was the last start on the frame gate (else its branches are not the game's future)?"""

    def restart(self) -> None:
        if self.display is None:
            self.display = open_display(ISOLATED, self.spec.size)
        self._stop()
        self.player = Player(self.spec, self.display, self.seed, time.sleep, gated=True)
        self.player.start()
        self.gated = self.player.lockstep

    def alive(self) -> bool:
        target = self.player.target if self.player is not None else None
        return target is not None and target.alive()

    @property
    def frames(self) -> int:
        return self.player.frames if self.player is not None else 0

    def catch_up(self, frames: int) -> None:
        if self.player is not None and self.alive():
            self.player.catch_up(frames)

    def send(self, action: Action) -> None:
        if self.player is not None and self.player.executor is not None and self.alive():
            self.player.executor.execute(action)

    def capture(self) -> Frame:
        assert self.player is not None and self.player.observer is not None
        return self.player.observer.capture()

    def new_lines(self) -> set[tuple[str, int]]:
        """Lines the scout's program ran since the last call (empty without coverage)."""
        target = self.player.target if self.player is not None else None
        inside = target.inside if target is not None else None
        delta = inside.coverage(reader="survival") if inside is not None and inside.available else None
        return set(delta.lines) if delta is not None else set()

    def fps(self) -> float:
        gate = self.player.gate if self.player is not None else None
        return gate.fps if gate is not None else 0.0

    def _stop(self) -> None:
        """Kill at once: a game standing on its gate never reads the polite close (SDL turns SIGTERM into a
        QUIT event the program would read at its next frame), and a scout's state is thrown away anyway."""
        if self.player is not None:
            if self.player.target is not None:
                self.player.target.sandboxed.kill()
            self.player.stop()
            self.player = None

    def close(self) -> None:
        self._stop()
        if self.display is not None:
            self.display.close()
            self.display = None
