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

import random
import time
from dataclasses import dataclass
from typing import Protocol

from app.engine.play.actions import Action, Press, Wait
from app.engine.play.display import ISOLATED, XDisplay, open_display
from app.engine.play.observer import BBox, Frame, changed_bbox
from app.engine.play.player import Player
from app.engine.play.targetspec import TargetSpec
from app.engine.testers.explore.archive import thumbnail
from app.engine.testers.explore.archive import Step

HORIZON_S = 1.5
"""How far ahead a branch is played (game time)."""
LOOKS = 6
"""Pictures taken over a branch's horizon: a branch whose last pictures are all the same has stopped
(a GAME OVER panel, a menu), a branch whose program ended is dead."""
EXPLORE_EVERY = 0
"""Every this many decisions a key is pressed (the first, in random order, whose branch lives), even when
doing nothing would live; 0: never (the explorer's own choices press keys between survival decisions)."""
MAX_ALTERNATIVES = 6
SMALL_CHANGE = 0.05
NEAR_PX = 4
"""A change within this share of the window, where the last one was (give or take a few pixels), is an
animation of a standing screen, not play."""
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

    def new_lines(self) -> set[tuple[str, int]]: ...

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


class SurvivalSearch:
    """Chooses the next input of a gated game by playing each alternative ahead on a scout."""

    def __init__(self, scout: Scout, alternatives: list[Action], rng: random.Random,
                 horizon_s: float = HORIZON_S, explore_every: int = EXPLORE_EVERY) -> None:
        self.scout = scout
        self.rng = rng
        self.explore_every = explore_every
        self.lines_seen: set[tuple[str, int]] = set()
        self.alternatives = [*[a for a in alternatives if not isinstance(a, Wait)][:MAX_ALTERNATIVES - 1], NOTHING]
        self.horizon_s = horizon_s
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
        explore = self.explore_every > 0 and self.decisions % self.explore_every == 0
        ahead = self.scout_inputs == inputs and self.scout.alive()
        if not explore and ahead:
            # The scout is this game's future while nothing is pressed: look (further) ahead.
            future = self._play_on(NOTHING, frame)
            if future.lived == LOOKS:
                self.last = [future]
                return NOTHING, f"survival: doing nothing lives {self.horizon_s:g} s ahead (the scout saw it)"
        # Danger ahead, the scout behind, or time to press something: the first choice whose branch lives
        # through the horizon (keys in random order; doing nothing first unless it is known to die or it is
        # time to press something).  The chosen branch is the scout's last: it stays this game's future.
        keys = [a for a in self.alternatives if a != NOTHING]
        self.rng.shuffle(keys)
        order = [*keys, NOTHING] if explore or ahead else [NOTHING, *keys]
        branches: list[Branch] = []
        for action in order:
            branch = self._branch(inputs, frame, action)
            branches.append(branch)
            if branch.lived == LOOKS:
                break  # (each restart costs most of a second: the first that lives will do)
        self.last = branches
        best = max(branches, key=lambda b: (b.score, b is branches[-1]))
        self.scout_inputs = None
        if best is branches[-1]:
            self.scout_inputs = inputs + ([(frame, best.action)] if best.action != NOTHING else [])
        why = "; ".join(f"{_name(b.action)}: lived {b.lived}/{LOOKS}, {b.lines} new lines, {b.pictures} new pictures"
                        for b in branches)
        return best.action, f"survival: choices played {self.horizon_s:g} s ahead on a scout ({why})"

    def _branch(self, inputs: list[Step], frame: int, action: Action) -> Branch:
        """Restart the scout, replay ``inputs``, send ``action`` at ``frame``, play the horizon."""
        self.restarts += 1
        self.scout.restart()
        for at, step_action in inputs:
            self.scout.catch_up(at)
            self.scout.send(step_action)
        self.lines_seen |= self.scout.new_lines()  # what the replay ran is not this branch's
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
        lived, pictures, stopped = 0, 0, 0
        prev: Frame | None = None
        last_change: BBox | None = None
        for i in range(1, LOOKS + 1):
            scout.catch_up(start + (end - start) * i // LOOKS)
            if not scout.alive():
                break
            shot = scout.capture()
            change = changed_bbox(prev, shot) if prev is not None else (0, 0, shot.width, shot.height)
            stopped = stopped + 1 if standing_still(change, last_change, shot) else 0
            prev, last_change = shot, change
            if stopped >= 2:
                break  # standing still (but for a glow in one place) three looks running: game over, or a menu
            lived += 1
            thumb = thumbnail(shot)
            if thumb not in self.seen:
                self.seen.add(thumb)
                pictures += 1
        lines = scout.new_lines() - self.lines_seen if scout.alive() else set()
        self.lines_seen |= lines
        return Branch(action, lived, len(lines), pictures)


def standing_still(change: BBox | None, before: BBox | None, frame: Frame) -> bool:
    """Nothing moved between two looks, or only a small region that also changed before (a glowing
    food, a blinking caret on a GAME OVER panel): the game is not being played on."""
    if change is None:
        return True
    if before is None:
        return False
    x0, y0, x1, y1 = change
    small = (x1 - x0) * (y1 - y0) <= SMALL_CHANGE * frame.width * frame.height
    inside = before[0] - NEAR_PX <= x0 and before[1] - NEAR_PX <= y0 and x1 <= before[2] + NEAR_PX \
        and y1 <= before[3] + NEAR_PX
    return small and inside


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
        inside = getattr(target, "inside", None)
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
