"""Survival search: plans that live longest, on simulated games and on a real pygame game; warm scouts."""

from __future__ import annotations

import random

import numpy as np
import pytest

from app.engine.play.actions import Press, Wait
from app.engine.play.observer import Frame
from app.engine.play.targetspec import resolve_target
from app.engine.testers.explore.scouts import NOTHING, OneScout, PlayerScout, Scouts, Seat, Stillness, motion, stands
from app.engine.testers.explore.survival import SurvivalSearch

from suite import TARGETS, needs_xvfb

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
        answer = search.choose(prefix, game.frames)  # type: ignore[arg-type]
        assert answer is not None  # one scout: it restarts when it must
        action, why = answer
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


class PaddleScout(BallScout):
    """A paddle game, simulated: a ball drops straight down at x 20 and must land on the paddle, which starts at
    x 170 and moves 20 px each frame its key was pressed in (the key read while held, as ``get_pressed()``
    is).  Eight presses in a row must come before the ball lands at frame 80."""

    def restart(self) -> None:
        self.restarts += 1
        self.x, self.ball, self.frames, self.dead, self.pending = 170, 0, 0, False, False

    def catch_up(self, frames: int) -> None:
        while self.frames < frames and not self.dead:
            if self.pending:
                self.x, self.pending = max(15, self.x - 20), False  # (it stops at the wall)
            self.ball += 1
            self.frames += 1
            if self.ball == 80:
                self.dead, self.ball = not self.x - 15 <= 20 <= self.x + 15, 0  # caught: it drops again

    def send(self, action: object) -> None:
        self.pending = self.pending or action == Press("left")

    def capture(self) -> Frame:
        arr = np.full((200, 200, 4), 230, dtype=np.uint8)
        arr[2 * self.ball:2 * self.ball + 6, 17:23, :3] = 40
        arr[190:196, max(0, self.x - 15):self.x + 15, :3] = 90
        return Frame(200, 200, arr.tobytes(), 0.0)


def test_a_key_read_while_held_is_held_until_the_paddle_is_under_the_ball():
    """One key a plan (and a mend adds one) cannot take a paddle across the screen in time; a key the program
    reads while held is also played step after step."""
    game = PaddleScout()
    search = SurvivalSearch(PaddleScout(), [Press("left"), Press("right")], random.Random(0), horizon_s=3.0,
                            max_evals=16, held=frozenset({Press("left"), Press("right")}))
    chosen = play(search, game, decisions=20)  # 160 frames: two drops of the ball
    assert game.alive(), f"the ball was missed at frame {game.frames} (paddle at x {game.x})"
    assert chosen[:8] == [Press("left")] * 8


@pytest.mark.xvfb
@needs_xvfb
def test_a_real_scout_on_the_frame_gate_chooses_the_key_that_lives():
    resolved = resolve_target(str(TARGETS / "survive_pg"))
    scout = PlayerScout(resolved.spec, seed=0)
    try:
        search = SurvivalSearch(scout, [Press("space")], random.Random(1), horizon_s=1.5, look_budget_s=120)
        action, why = search.choose([], 0) or (None, "")  # from the start, doing nothing falls to the floor in 1.3 s
        assert scout.gated, "the scout should be on the frame gate"
        nothing = next(b for b in search.last if all(a == NOTHING for _, a in b.plan))
        best = max(search.last, key=lambda b: b.score)
        assert best.lived > nothing.lived and Press("space") in [a for _, a in best.plan], why
        assert action == best.plan[0][1], why
        # Played on from the chosen branch, the scout is this game's future: no restart needed next.
        restarts, lived = search.restarts, best.lives
        action2, why2 = search.choose([(0, action)], best.plan[1][0]) or (None, "")
        if lived:  # the plan lives: it is followed, no look
            assert search.restarts == restarts and why2.startswith("survival: the plan"), why2
        else:  # looked again: the plan's rest first, on the scout that played it (no restart)
            assert search.last[0].plan[:len(best.plan) - 1] == best.plan[1:], why2
    finally:
        scout.close()
        resolved.cleanup()
    assert isinstance(NOTHING, Wait)


class PictureScout:
    """Frames drawn by a function of the frame count (a scout whose program is a picture)."""

    def __init__(self, draw) -> None:
        self.draw, self.frames = draw, 0

    def restart(self) -> None:
        self.frames = 0

    def alive(self) -> bool:
        return True

    def catch_up(self, frames: int) -> None:
        self.frames = max(self.frames, frames)

    def send(self, action: object) -> None:
        pass

    def capture(self) -> Frame:
        arr = np.full((240, 320, 4), 150, dtype=np.uint8)
        self.draw(arr, self.frames)
        return Frame(320, 240, arr.tobytes(), 0.0)

    def new_lines(self) -> set[tuple[str, int]]:
        return set()

    def fps(self) -> float:
        return 30.0


def game_over(arr: np.ndarray, f: int) -> None:
    """Clouds drifting one pixel a frame behind a panel whose PRESS R line blinks."""
    for x0 in (40, 200):
        x = (x0 + f) % 300
        arr[30:60, x:x + 50, :3] = 235
    arr[80:160, 60:260, :3] = 250
    if f // 15 % 2:
        arr[140:150, 100:220, :3] = 30


def ball(arr: np.ndarray, f: int) -> None:
    """A small ball crossing the window (the only thing that moves)."""
    x, y = 10 + (5 * f) % 290, 20 + (3 * f) % 200
    arr[y:y + 10, x:x + 10, :3] = 250


def lived(draw) -> bool:
    seat = Seat(PictureScout(draw))
    for f in range(3, 90, 3):  # three seconds, a look every 0.1 s
        seat.play_to([], f)
        if seat.look(stand=4, memory=12) is None:
            return False
    return True


def test_a_game_over_panel_stands_still_though_clouds_drift_and_a_line_blinks():
    assert not lived(game_over)


def test_a_small_ball_moving_on_its_own_is_play():
    assert lived(ball)


def test_blocks_that_moved_before_stand_and_new_places_play():
    before = [np.zeros((4, 4), dtype=bool)]
    before[0][0, 0] = True
    glow = np.zeros((4, 4), dtype=bool)
    glow[0, 0] = True
    head = glow.copy()
    head[3, 3] = True
    assert motion(glow, before) == (0, 1) and motion(head, before) == (1, 2)
    assert stands([(0, 1), (0, 0)], 16) and not stands([(1, 2), (0, 1)], 16)


def test_a_plan_that_lives_is_followed_until_half_is_left_on_a_scout_that_reaches_it():
    game = BallScout()
    scouts = OneScout(BallScout())
    search = SurvivalSearch(scouts, [Press("space")], random.Random(0), horizon_s=1.0)
    prefix: list[tuple[int, object]] = []
    followed = 0
    for _ in range(30):  # eight seconds of a game that falls in two
        restarts = scouts.restarts
        action, why = search.choose(prefix, game.frames) or (None, "")  # type: ignore[arg-type]
        assert action is not None, "the scout plays while the game waits"
        if why.startswith("survival: the plan"):
            followed += 1
            assert scouts.restarts == restarts, "a step of a plan looked at before plays no scout"
        if action != NOTHING:
            game.send(action)
        prefix.append((game.frames, action))
        game.catch_up(game.frames + 8)
    assert game.alive(), f"the ball fell at frame {game.frames}"
    assert followed >= 5 and search.looks == 30 - followed
    # Each look plays its first plan on the scout where the last one left it when it can reach the game's
    # inputs; only a mend beyond those restarts it.
    assert scouts.restarts < search.branches


def test_a_plan_ends_within_a_step_of_its_horizon():
    search = SurvivalSearch(BallScout(), [Press("space")], random.Random(0), horizon_s=1.0)
    search.step_frames = {"nothing": 5, "Press": 20}
    steps, end = search._length(100)
    plan = search._schedule([Press("space")] * steps, 100, end)
    assert plan[-1][0] < end <= search._plan_end(plan) < end + 20
    assert [at for at, _ in plan] == [100, 120]


def test_a_window_that_changes_size_starts_a_new_watch():
    still = Stillness()
    stood = [still.stands(np.zeros((60, 80)), 2, 4) for _ in range(3)]
    assert stood[-1], "three looks at the same picture: it stands"
    assert not still.stands(np.zeros((96, 128)), 2, 4), "a new size is a new picture, not one that stood still"
    assert not still.stands(np.ones((96, 128)) * 50, 2, 4)


def test_among_branches_that_live_alike_the_one_nearest_a_seldom_true_equality_wins():
    """Branch distance: the head's least distance to the food decides where lines, rare lines and pictures tie;
    a test that holds in most branches (a direction compared with the last) steers nothing."""
    from app.engine.testers.explore.survival import Branch

    search = SurvivalSearch(BallScout(), [Press("space")], random.Random(0))
    food, turn = ("main.py", 30, 11), ("main.py", 20, 7)
    for _ in range(10):  # earlier looks: the food test never held, the turn test always did
        search._count_near({food: (5.0, 9.0), turn: (0.0, 0.0)})
    near = {"away": {food: (9.0, 9.0), turn: (0.0, 0.0)}, "toward": {food: (2.0, 2.0), turn: (0.0, 0.0)},
            "straight": {food: (6.0, 6.0), turn: (0.0, 0.0)}}
    branches = []
    for name, distances in near.items():
        search._count_near(distances)
        branches.append(Branch(Press(name), lived=3, lines=0, pictures=2, plan=((0, Press(name)),), looks=3,
                               near=tuple(distances.items())))
    best = search._best(branches)
    assert best is not None and best.action == Press("toward")
    assert best.close == pytest.approx(1 - 2 / 9)  # the turn test held in every branch: it adds nothing
    more_lines = Branch(Press("away"), lived=3, lines=1, pictures=0, looks=3, near=((food, (9.0, 9.0)),))
    assert search._best([*branches, more_lines]).lines == 1  # new code of the program still comes first
    eaten = Branch(Press("eat"), lived=3, lines=0, pictures=0, looks=3, near=((food, (0.0, 7.0)),))
    search._count_near({food: (0.0, 7.0)})
    assert search._best([*branches, eaten]).action == Press("eat")


def test_the_explorers_own_step_in_a_game_played_on_spares_its_restart_key():
    """Every few steps of a moving game the explorer chooses, and every screen is new: a restart key tried once
    already would be pressed again and again, losing what survival reached.  Kept for a GAME OVER."""
    from types import SimpleNamespace

    from app.engine.testers.base import Decision
    from app.engine.testers.explore.explorer import Explorer
    from app.engine.testers.explore.keys_from_code import ReadInputs

    explorer = Explorer(survival=True)
    least, state = explorer.least, explorer.state
    least.ctx = SimpleNamespace(rng=random.Random(0))
    state.reads = ReadInputs(keys=["up", "r"], restarts={"r"})
    least.keys = [Press("up"), Press("r")]
    restart = Decision(Press("r"), "explore: hinted key")
    state.in_play = True
    assert least._spare_the_game(restart) is restart  # never pressed: it is tried once
    state.pressed[Press("r")] = 1
    spared = least._spare_the_game(restart)
    assert spared.action == Press("up") and "starts the game over" in spared.rationale
    state.in_play = False  # the game is over (nothing the search plays lives): r is what it waits for
    assert least._spare_the_game(restart) is restart


def test_a_game_kept_alive_long_without_new_code_is_let_go_to_its_end_once_per_episode():
    """A search that only survives never reaches a game's end (its GAME OVER, a score saved, the restart): after
    a third of the budget alive with no new code for a sixth of it, nothing is sent until the episode ends; a game that
    does not end by itself is played on, and not let go again."""
    from types import SimpleNamespace

    from app.engine.testers.explore.explorer import Explorer
    from app.engine.testers.explore.survive import Survive
    from app.engine.testers.explore.scouts import NOTHING

    def explorer_at(played: int, new_code_at: float) -> Survive:
        survive = Explorer(survival=True).survive
        survive.state.ctx = SimpleNamespace(rng=random.Random(0), duration_s=None, max_steps=100)
        survive.search = SimpleNamespace(decisions=5)
        survive.state.played, survive.new_code_at = played, new_code_at
        return survive

    assert explorer_at(30, 0.0).let_go() is None  # alive 30% of the budget: played on
    assert explorer_at(55, 0.5).let_go() is None  # new code 5% of the budget ago: the search still finds some
    explorer = explorer_at(55, 0.3)
    let_go = explorer.let_go()
    assert let_go is not None and let_go.action == NOTHING and "until this episode ends" in let_go.rationale
    explorer.state.played = 70
    assert explorer.let_go().action == NOTHING  # still let go: the game has not ended
    explorer.ended()  # its GAME OVER stands
    explorer.state.played = 71
    assert explorer.let_go() is None  # a new episode: alive since 71%
    drifting = explorer_at(55, 0.3)  # a GAME OVER panel over drifting clouds: its picture never stands
    assert drifting.let_go() is not None
    drifting.state.played, drifting.new_code_at = 57, 0.57  # the code that draws the panel ran
    assert drifting.let_go() is None and drifting.let_go_at is None and drifting.alive_since == 0.57
    never_ends = explorer_at(55, 0.3)
    assert never_ends.let_go() is not None
    never_ends.state.played = 81  # let go a quarter of the budget: it does not end by itself
    assert never_ends.let_go() is None and never_ends.let_go_failed
    never_ends.state.played = 99
    assert never_ends.let_go() is None
    no_search = explorer_at(55, 0.3)
    no_search.search = None  # the game was never played by the search: nothing to let go
    assert no_search.let_go() is None
    restarted = explorer_at(55, 0.3)
    restarted.state.reads.restarts.add("enter")
    restarted.state.standing = False
    restarted.restarted_by(Press("enter"))  # pressed while the game moves (a plan's key): nothing starts over
    assert restarted.alive_since == 0.0 and restarted.let_go() is not None
    restarted.state.standing, restarted.state.played = True, 60
    restarted.restarted_by(Press("enter"))  # on the standing GAME OVER: a new episode
    assert restarted.alive_since == 0.6


def test_a_goal_met_in_a_third_of_the_branches_still_steers_and_the_plan_that_meets_it_is_not_interrupted():
    """Where the food lies near, most plans eat it: over a run ``head == food`` held in about a third of the
    branches.  It still steers, and while a plan that eats is followed the explorer's own step waits."""
    from app.engine.testers.explore.survival import Branch

    search = SurvivalSearch(BallScout(), [Press("space")], random.Random(0))
    food = ("main.py", 30, 11)
    for i in range(9):
        search._count_near({food: (0.0 if i % 3 == 0 else 4.0, 6.0)})
    plan = ((0, Press("eat")), (8, NOTHING), (16, NOTHING))
    eats = Branch(Press("eat"), lived=3, lines=0, pictures=0, plan=plan, looks=3, near=((food, (0.0, 3.0)),))
    passes = Branch(Press("pass"), lived=3, lines=0, pictures=1, plan=plan, looks=3, near=((food, (4.0, 6.0)),))
    best = search._best([passes, eats])
    assert best is not None and best.action == Press("eat") and best.close >= 1.0

    search._look = lambda inputs, frame, valid: best  # type: ignore[method-assign]
    action, _ = search.choose([], 0)
    assert action == Press("eat") and search.keeps_promise()  # two steps of it left: the own step waits
    search.plan.clear()
    assert not search.keeps_promise()


class LineScouts(Scouts):
    """A dot moving one cell a frame to the right from (0, 0); Down turns it down from the frame it is pressed at.
    Its only equality test is ``dot == food``, the food at (4, 3): a turn at frame 4 eats it."""

    parallel = 4
    restarts = 0

    def fps(self) -> float:
        return 10.0

    def ready(self, inputs: list) -> bool:
        return True

    def warm(self, inputs: list, frame: int) -> None:
        pass

    def play_many(self, inputs: list, plans: list, stand: int, memory: int) -> list:
        from app.engine.testers.explore.scouts import Played

        out = []
        for plan, marks in plans:
            turn = min([at for at, a in [*inputs, *plan] if a == Press("down")], default=None)
            x = y = 0
            least = last = float("inf")
            for frame in range(marks[-1]):
                if turn is not None and frame >= turn:
                    y += 1
                else:
                    x += 1
                last = abs(x - 4) + abs(y - 3)
                least = min(least, last)
            out.append(Played(lived=len(marks), near={("main.py", 9, 7): (float(least), float(last))}))
        return out


def test_a_turn_that_falls_between_two_steps_is_timed_by_a_longer_step_of_nothing():
    """A step lasts three frames, so a turn comes only at frames 0, 3, 6 ...: the dot passes its food a cell
    away.  A step of nothing a frame longer before the turn eats it, and is what the search then sends."""
    search = SurvivalSearch(LineScouts(), [Press("down")], random.Random(0), horizon_s=1.0)
    search.step_frames = {"nothing": 3, "Press": 3, "delay": 4}
    best = search._look([], 0, False)
    assert best is not None and dict(best.near)[("main.py", 9, 7)][0] == 0, [(b.plan, b.near) for b in search.last]
    delay = best.plan[0][1]
    assert isinstance(delay, Wait) and delay != NOTHING and best.plan[1] == (4, Press("down"))
    eats = [b for b in search.last if dict(b.near)[("main.py", 9, 7)][0] == 0]
    assert all(any(isinstance(a, Wait) and a != NOTHING for _, a in b.plan) for b in eats)
    from app.engine.testers.explore.scouts import full_inputs

    assert full_inputs([], list(best.plan)) == [(4, Press("down"))]  # a longer wait sends nothing
