"""Survival search: the branch that lives longest, on a simulated game and on a real pygame game."""

from __future__ import annotations

import random

import numpy as np
import pytest

from app.engine.play.actions import Press, Wait
from app.engine.play.observer import Frame
from app.engine.play.targetspec import resolve_target
from app.engine.testers.explore.survival import NOTHING, PlayerScout, SurvivalSearch

from conftest import TARGETS, needs_xvfb

FLOOR = 185


class BallScout:
    """The survive_pg game, simulated: space lifts the ball, the floor ends the game."""

    def __init__(self) -> None:
        self.restarts = 0
        self.restart()

    def restart(self) -> None:
        self.restarts += 1
        self.y, self.vy, self.frames, self.dead, self.pending = 30.0, 0.0, 0, False, False

    def alive(self) -> bool:
        return not self.dead

    def catch_up(self, frames: int) -> None:
        while self.frames < frames and not self.dead:
            if self.pending:
                self.vy, self.pending = -5.0, False
            self.vy += 0.5
            self.y = max(10.0, self.y + self.vy)
            self.frames += 1
            self.dead = self.y > FLOOR

    def send(self, action: object) -> None:
        self.pending = self.pending or action == Press("space")

    def capture(self) -> Frame:
        arr = np.full((200, 200, 4), 230, dtype=np.uint8)
        y = int(self.y)
        arr[max(0, y - 10):y + 10, 90:110, :3] = 40
        arr[190:200, self.frames % 180:self.frames % 180 + 20, :3] = 90
        return Frame(200, 200, arr.tobytes(), 0.0)

    def new_lines(self) -> set[tuple[str, int]]:
        return set()

    def fps(self) -> float:
        return 30.0


def play(search: SurvivalSearch, game: BallScout, decisions: int, step_frames: int = 8) -> list[object]:
    prefix: list[tuple[int, object]] = []
    chosen = []
    for _ in range(decisions):
        action, why = search.choose(prefix, game.frames)  # type: ignore[arg-type]
        assert why.startswith("survival:")
        chosen.append(action)
        if action != NOTHING:
            game.send(action)
        prefix.append((game.frames, action))
        game.catch_up(game.frames + step_frames)
    return chosen


def test_the_ball_is_kept_up_where_doing_nothing_would_drop_it():
    game = BallScout()
    search = SurvivalSearch(BallScout(), [Press("space")], random.Random(0), horizon_s=0.5)
    chosen = play(search, game, decisions=30)  # 240 frames: eight seconds of a game that falls in two
    assert game.alive(), f"the ball fell at frame {game.frames}"
    assert Press("space") in chosen and NOTHING in chosen  # it waits while waiting lives
    assert search.restarts < 30  # while nothing is pressed the scout plays on without a restart
    # Doing nothing all along: dead within the same time.
    idle = BallScout()
    idle.catch_up(240)
    assert not idle.alive()


@pytest.mark.xvfb
@needs_xvfb
def test_a_real_scout_on_the_frame_gate_chooses_the_key_that_lives():
    resolved = resolve_target(str(TARGETS / "survive_pg"))
    scout = PlayerScout(resolved.spec, seed=0)
    try:
        search = SurvivalSearch(scout, [Press("space")], random.Random(1), horizon_s=1.5, look_budget_s=120)
        action, why = search.choose([], 0)  # from the start, doing nothing falls to the floor in 1.3 s
        assert scout.gated, "the scout should be on the frame gate"
        nothing = next(b for b in search.last if all(a == NOTHING for _, a in b.plan))
        best = max(search.last, key=lambda b: b.score)
        assert best.lived > nothing.lived and Press("space") in [a for _, a in best.plan], why
        assert action == best.plan[0][1], why
        # Played on from the chosen branch, the scout is this game's future: no restart needed next.
        restarts, lived = search.restarts, search.living
        action2, why2 = search.choose([(0, action)], best.plan[1][0])
        if lived:  # the plan lives: it is followed, no look
            assert search.restarts == restarts and why2.startswith("survival: the plan"), why2
        else:  # looked again: the plan's rest first, on the scout that played it (no restart)
            assert search.last[0].plan[:len(best.plan) - 1] == best.plan[1:], why2
    finally:
        scout.close()
        resolved.cleanup()
    assert isinstance(NOTHING, Wait)
