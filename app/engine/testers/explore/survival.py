"""Survival search: in a real-time game on the frame gate, the input after which the game lives longest.

A random walk crashes the snake into the first wall and lets the bird fall;
the states where most of a game's code runs (food eaten, pipes passed, bricks
broken) lie behind surviving.  On the frame gate a game is replayed exactly
(:mod:`.returns`), so the future of each choice can be looked at before it is
made: a *scout*, a second copy of the program on a private display, replays
the inputs played so far and then one alternative (each key the game reads,
or nothing) for a short horizon of frames.  The branch that lives longest
wins; among those that live, the one that ran new code or showed more new
pictures.  No model: only the program, played ahead.

Restarts are the cost (a program start is most of a second), so the scout
stays ahead of the game while nothing is pressed: as long as doing nothing
lives through the horizon, it is chosen (every few decisions all branches are
looked at anyway, for the score), and the scout, whose inputs are still the
game's, just plays on.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Callable, Protocol

from app.engine.play.actions import Action, Press, Wait
from app.engine.play.display import ISOLATED, XDisplay, open_display
from app.engine.play.observer import Frame
from app.engine.play.player import Player
from app.engine.play.targetspec import TargetSpec
from app.engine.testers.explore.archive import thumbnail
from app.engine.testers.explore.returns import Step

HORIZON_S = 1.5
"""How far ahead a branch is played (game time)."""
LOOKS = 6
"""Pictures taken over a branch's horizon: a branch whose last pictures are all the same has stopped
(a GAME OVER panel, a menu), a branch whose program ended is dead."""
EXPLORE_EVERY = 3
"""Every this many decisions all branches are compared, even when doing nothing would live."""
MAX_ALTERNATIVES = 6
NOTHING: Action = Wait(0.0)


class Scout(Protocol):
    """What the survival search needs of a second copy of the game (a gated :class:`Player`)."""

    def restart(self) -> None: ...

    def alive(self) -> bool: ...

    @property
    def frames(self) -> int: ...

    def catch_up(self, frames: int) -> None: ...

    def send(self, action: Action) -> None: ...

    def capture(self) -> Frame: ...

    def new_lines(self) -> int: ...

    def fps(self) -> float: ...


@dataclass(frozen=True)
class Branch:
    action: Action
    lived: int
    """Frames of the horizon the game lived through (looks that still moved, the program still running)."""
    lines: int
    pictures: int

    @property
    def score(self) -> tuple[int, int, int]:
        return (self.lived, self.lines, self.pictures)


def _picture(frame: Frame) -> str:
    return hashlib.blake2b(frame.bgrx, digest_size=8).hexdigest()


class SurvivalSearch:
    """Chooses the next input of a gated game by playing each alternative ahead on a scout."""

    def __init__(self, scout: Scout, alternatives: list[Action], horizon_s: float = HORIZON_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.scout = scout
        self.alternatives = [*[a for a in alternatives if not isinstance(a, Wait)][:MAX_ALTERNATIVES - 1], NOTHING]
        self.horizon_s = horizon_s
        self.clock = clock
        self.scout_inputs: list[Step] | None = None
        """The inputs the scout has played since its start, or None when it must restart."""
        self.decisions = 0
        self.branches = 0
        self.restarts = 0
        self.seen: set[bytes] = set()
        self.last: list[Branch] = []

    def choose(self, prefix: list[Step], frame: int) -> tuple[Action, str]:
        """The input to send at gate frame ``frame`` after the game's inputs ``prefix``, and why."""
        self.decisions += 1
        inputs = _inputs(prefix)
        if self.decisions % EXPLORE_EVERY != 0 and self.scout_inputs == inputs and self.scout.alive():
            # The scout is this game's future while nothing is pressed: look (further) ahead.
            ahead = self._play_on(NOTHING, frame)
            if ahead.lived == LOOKS:
                self.last = [ahead]
                return NOTHING, f"survival: doing nothing lives {self.horizon_s:g} s ahead (the scout saw it)"
        branches = [self._branch(inputs, frame, a) for a in self.alternatives]
        self.last = branches
        # Ties go to the branch played last: the scout still stands in it.
        best = max(branches, key=lambda b: (b.score, b is branches[-1]))
        self.scout_inputs = None
        if best is branches[-1]:
            self.scout_inputs = inputs + ([(frame, best.action)] if best.action != NOTHING else [])
        why = "; ".join(f"{_name(b.action)}: lived {b.lived}/{LOOKS}, {b.lines} new lines, {b.pictures} new pictures"
                        for b in branches)
        return best.action, f"survival: each choice played {self.horizon_s:g} s ahead on a scout ({why})"

    def _branch(self, inputs: list[Step], frame: int, action: Action) -> Branch:
        """Restart the scout, replay ``inputs``, send ``action`` at ``frame``, play the horizon."""
        self.restarts += 1
        self.scout.restart()
        for at, step_action in inputs:
            self.scout.catch_up(at)
            self.scout.send(step_action)
        self.scout.new_lines()  # what the replay ran is not this branch's
        return self._play_on(action, frame)

    def _play_on(self, action: Action, frame: int) -> Branch:
        """From where the scout stands (at or before ``frame`` after a restart, maybe past it when it is
        ahead): ``action`` at ``frame``, then play up to ``frame`` + the horizon, looking :data:`LOOKS` times."""
        self.branches += 1
        scout = self.scout
        scout.catch_up(frame)
        if action != NOTHING:
            scout.send(action)
        end = frame + max(LOOKS, round(self.horizon_s * (scout.fps() or 60)))
        start = scout.frames
        lived, pictures, prev, stopped = 0, 0, None, 0
        for i in range(1, LOOKS + 1):
            scout.catch_up(start + (end - start) * i // LOOKS)
            if not scout.alive():
                break
            shot = scout.capture()
            pic = _picture(shot)
            stopped = stopped + 1 if pic == prev else 0
            prev = pic
            if stopped >= 2:
                break  # standing still three looks running: game over, or waiting on a menu
            lived += 1
            thumb = thumbnail(shot)
            if thumb not in self.seen:
                self.seen.add(thumb)
                pictures += 1
        return Branch(action, lived, scout.new_lines() if scout.alive() else 0, pictures)


def _inputs(prefix: list[Step]) -> list[Step]:
    """The inputs of a prefix that reach the program (a wait sends nothing)."""
    return [(at, a) for at, a in prefix if not isinstance(a, Wait)]


def _name(action: Action) -> str:
    if action == NOTHING:
        return "nothing"
    return action.key if isinstance(action, Press) else action.name


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
        if self.player is not None:
            self.player.stop()
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

    def new_lines(self) -> int:
        target = self.player.target if self.player is not None else None
        inside = getattr(target, "inside", None)
        delta = inside.coverage() if inside is not None else None
        return len(delta) if delta is not None else 0

    def fps(self) -> float:
        gate = self.player.gate if self.player is not None else None
        return gate.fps if gate is not None else 0.0

    def close(self) -> None:
        if self.player is not None:
            self.player.stop()
            self.player = None
        if self.display is not None:
            self.display.close()
            self.display = None
