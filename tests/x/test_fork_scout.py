"""Forked scouts: a copy of the game follows it on the dummy video driver and forks a branch per plan."""

from __future__ import annotations

import glob
import os
import random
import time
from dataclasses import replace

import psutil
import pytest

from app.engine.play import cgroup
from app.engine.play.actions import Click, Press, Tap, Type
from app.engine.play.targetspec import resolve_target
from app.engine.testers.explore.fork_scout import ForkScouts, OutOfStep, Schedule, pygame_key
from app.engine.testers.explore.scouts import NOTHING
from app.engine.testers.explore.survival import SurvivalSearch

from suite import TARGETS, needs_xvfb


def test_keys_are_named_as_pygame_names_them():
    assert pygame_key("space") == ("space", " ")
    assert pygame_key("Left") == ("left", "")
    assert pygame_key("enter") == ("return", "\r")
    assert pygame_key("a") == ("a", "a")
    assert pygame_key("esc") == ("escape", "")


def test_an_input_spans_the_frames_the_executor_plays_it_in():
    s = Schedule(fps=30, hold_s=0.1)
    assert s.of(Press("space")) == [(0, [["key", "space", True, " "]]), (3, [["key", "space", False, " "]])]
    taps = s.of(Tap("Up", times=2))
    assert [at for at, _ in taps] == [0, 2, 5, 7]  # held 50 ms (2 frames), the next 100 ms (3 frames) later
    click = s.of(Click(10, 20))
    downs = [at for at, evs in click if evs[0][0] == "button" and evs[0][4]]
    ups = [at for at, evs in click if evs[0][0] == "button" and not evs[0][4]]
    assert click[0] == (0, [["move", 11, 20]]) and downs == [2] and ups == [5]
    with pytest.raises(OutOfStep):
        s.of(Type("hello"))
    plan = s.plan([(30, Press("space")), (38, NOTHING), (46, Press("space"))])
    assert sorted(plan) == [0, 3, 16, 19]


def _forked(name: str, full: bool = False):
    """Forked scouts of one of the tests' own games, closed after the test (``full``: branches draw every
    frame and trace every line, as before the shortcuts)."""
    resolved = resolve_target(str(TARGETS / name))
    spec = replace(resolved.spec, env={**resolved.spec.env, "PLAYCODER_FORK_FULL": "1"}) if full else resolved.spec
    scouts = ForkScouts(spec, seed=0)
    yield scouts
    scouts.close()
    resolved.cleanup()


@pytest.fixture
def survive():
    yield from _forked("survive_pg")


MARKS = [8, 11, 14, 17, 20, 23, 26, 29, 32]


@pytest.mark.xvfb
@needs_xvfb
def test_a_branch_plays_its_plan_and_the_trunk_stands_where_it_was(survive):
    survive.warm([], 0)
    assert survive.gated and survive.fps() == 30
    nothing = survive.play([], [(5, NOTHING)], MARKS, 4, 12)
    space = survive.play([], [(5, Press("space"))], MARKS, 4, 12)
    again = survive.play([], [(5, NOTHING)], MARKS, 4, 12)
    assert nothing is not None and space is not None and again is not None
    assert space.pictures != nothing.pictures, "space lifts the ball in its branch"
    assert again.pictures == nothing.pictures, "a branch leaves the trunk as it was: the same plan, the same future"
    assert survive.restarts == 1 and survive.forks == 3 and survive.lost == 0


@pytest.mark.xvfb
@needs_xvfb
@pytest.mark.parametrize("name", ["survive_pg", "trail_pg"])
def test_a_branch_that_skips_what_no_picture_shows_shows_what_a_full_branch_shows(name):
    """Branches draw only the frames a picture is taken of, in a game that redraws its whole display (a probe
    paints it first and looks); a game that draws on what it drew (trail_pg) gets every frame drawn, and what
    the probe painted given back.  Both show the pictures, and rank by the lines, a full branch shows."""
    seen = {}
    for full in (True, False):
        scouts_of = _forked(name, full=full)
        scouts = next(scouts_of)
        try:
            scouts.warm([], 0)
            plans = [([(5, NOTHING)], MARKS), ([(5, Press("space"))], MARKS)]
            seen[full] = [(p.pictures, p.ran) for p in scouts.play_many([], plans, 4, 12) if p is not None]
        finally:
            next(scouts_of, None)
    assert len(seen[True]) == 2 and seen[False] == seen[True]


@pytest.mark.xvfb
@needs_xvfb
def test_the_trunk_follows_the_games_inputs_and_restarts_with_the_game(survive):
    survive.warm([], 0)
    followed = survive.play([(5, Press("space"))], [(20, NOTHING)], [23, 26, 29], 4, 12)
    fresh = ForkScouts(survive.spec, seed=0)
    try:
        branched = fresh.play([], [(5, Press("space")), (13, NOTHING), (20, NOTHING)], [23, 26, 29], 4, 12)
    finally:
        fresh.close()
    assert followed is not None and branched is not None
    assert followed.pictures == branched.pictures, "the game's input reaches the trunk at its frame, as in a branch"
    assert survive.restarts == 1
    again = survive.play([], [(3, NOTHING)], [6, 9], 4, 12)  # the game restarted: the trunk does too
    assert again is not None and survive.restarts == 2


@pytest.mark.xvfb
@needs_xvfb
def test_a_branch_whose_game_ends_lives_only_until_it_ends(survive):
    survive.warm([], 0)
    # Doing nothing, the ball reaches the floor near frame 25; the game waits 2 s (60 frames) and exits.
    ended = survive.play([], [(0, NOTHING)], list(range(10, 160, 10)), 4, 12)
    assert ended is not None and ended.lived < 8 and ended.lines == set()
    assert survive.lost == 0, "a branch that ended said so"


@pytest.mark.xvfb
@needs_xvfb
def test_a_branch_does_not_sleep_through_the_game_over_its_game_waits_on():
    """gameover_pg shows GAME OVER for 3 s with ``pygame.time.wait`` before it quits: a branch plays at full
    speed and lives by frames, so the wait is not waited (it would spend a look's whole budget on one plan)."""
    scouts_of = _forked("gameover_pg")
    scouts = next(scouts_of)
    try:
        scouts.warm([], 0)
        t0 = time.monotonic()
        ended = scouts.play([], [(0, NOTHING)], list(range(10, 120, 10)), 4, 12)  # falls near frame 45
        elapsed = time.monotonic() - t0
    finally:
        next(scouts_of, None)
    assert ended is not None and ended.lived < 8
    assert elapsed < 3.0, f"the branch waited out the game's 3 s wait ({elapsed:.1f} s)"


@pytest.mark.xvfb
@needs_xvfb
def test_the_search_on_forked_scouts_keeps_the_ball_up(survive):
    search = SurvivalSearch(survive, [Press("space")], random.Random(1), horizon_s=1.5, max_evals=16)
    t0 = time.monotonic()
    action, why = search.choose([], 12) or (None, "")  # at frame 12 the ball falls: nothing lands it by 1.3 s
    took = time.monotonic() - t0
    nothing = next(b for b in search.last if all(a == NOTHING for _, a in b.plan))
    best = max(search.last, key=lambda b: b.score)
    assert best.lived > nothing.lived and Press("space") in [a for _, a in best.plan], why
    assert len(search.last) >= 4 and took < 30, (len(search.last), took)


@pytest.mark.xvfb
@needs_xvfb
def test_branches_leave_no_processes_behind(survive):
    survive.warm([], 0)
    for _ in range(5):
        survive.play([], [(5, NOTHING)], [8, 11], 4, 12)
    assert survive.target is not None
    tree = psutil.Process(survive.target.pid)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the trunk reaps its ended branches while it stands on its gate
        survive.play([], [(5, NOTHING)], [8], 4, 12)
        zombies = [p for p in tree.children(recursive=True) if p.status() == psutil.STATUS_ZOMBIE]
        if len(zombies) <= 1:
            break
    assert len(zombies) <= 1, zombies
    pid = survive.target.pid
    survive.close()
    assert [p for p in glob.glob(f"/sys/fs/cgroup/**/{cgroup.PREFIX}{os.getpid()}-*", recursive=True)
            if not p.endswith(cgroup.ENGINE_SUFFIX)] == [], "the trunk's cgroup is removed with it"
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and psutil.pid_exists(pid):
        time.sleep(0.05)
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_a_failing_look_ahead_turns_survival_off_and_the_run_plays_on(monkeypatch):
    from types import SimpleNamespace

    from app.engine.testers.explore.explorer import Explorer

    survive = Explorer(survival=True).survive
    survive.state.ctx = SimpleNamespace(spec=SimpleNamespace(kind="game"), player=SimpleNamespace(lockstep=True))
    survive.state.began = time.monotonic()

    def broken():
        raise ValueError("operands could not be broadcast")

    monkeypatch.setattr(survive, "look_ahead", broken)
    decision = survive.decide(SimpleNamespace(settled=False))
    assert decision is not None and "survival search off for this run (ValueError" in decision.rationale
    assert not survive.on
    assert survive.decide(SimpleNamespace(settled=False)) is None


@pytest.fixture
def seek():
    yield from _forked("seek_pg")


@pytest.mark.xvfb
@needs_xvfb
def test_a_branch_says_how_near_it_came_to_an_equality_test_of_the_programs_state(seek):
    """head == food, the food at (12, 15): going straight along row 1 the head comes within 14 cells of it at
    best; turning down at once, nearer (it goes down column 1)."""
    seek.warm([], 0)
    marks = [12, 24, 36, 48]
    straight = seek.play([], [(3, NOTHING)], marks, 4, 12)
    down = seek.play([], [(3, Press("Down"))], marks, 4, 12)
    assert straight is not None and down is not None
    (site, (least, last)), = [(s, d) for s, d in straight.near.items() if s[0] == "main.py"]
    assert least == 14 and last > least
    assert down.near[site][0] < least


@pytest.mark.xvfb
@needs_xvfb
def test_the_search_on_forked_scouts_steers_toward_what_the_game_waits_for(seek):
    """Every plan lives (the board wraps), no line tells that eating is near: the branch distance steers the dot
    to its food (without it, 2 plans chosen over 8 seeds of 16 decisions ate; with it, 7)."""
    search = SurvivalSearch(seek, [Press(k) for k in ("Left", "Right", "Up", "Down")], random.Random(0))
    prefix: list = []
    frame, eats = 3, 0
    for _ in range(24):
        chosen = search.choose(prefix, frame)
        assert chosen is not None
        action, why = chosen
        if "looked at before" not in why:
            best = search._best(list(search.last))
            eats += best is not None and any(least == 0 for _, (least, _) in best.near)
        if action != NOTHING:
            prefix.append((frame, action))
        frame += 8
    assert eats, [(b.plan, b.near) for b in search.last]
