# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests for flappy_logic (physics and rules, no GUI)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from flappy_logic import (  # noqa: E402
    BIRD_R, BIRD_X, GAP, GROUND_Y, PIPE_SPEED, PIPE_W, READY_Y, WIDTH,
    Pipe, World, circle_hits_rect, hits_ground, hits_pipe,
)


def test_starts_ready_and_bobs_without_falling():
    world = World(seed=0)
    assert world.state == "ready"
    ys = set()
    for _ in range(60):
        world.step()
        ys.add(round(world.bird_y, 1))
        assert abs(world.bird_y - READY_Y) <= 10.01
    assert len(ys) > 5, "the bird should bob while waiting"
    assert world.pipes == [] and world.state == "ready"


def test_ground_scrolls_in_ready_state():
    world = World(seed=0)
    offsets = set()
    for _ in range(10):
        world.step()
        offsets.add(world.scroll)
    assert len(offsets) > 1


def test_flap_starts_game_and_goes_up():
    world = World(seed=0)
    assert world.flap()
    assert world.state == "playing"
    y0 = world.bird_y
    world.step()
    assert world.bird_y < y0
    assert len(world.pipes) == 1


def test_gravity_pulls_bird_to_ground_and_ends_game():
    world = World(seed=0)
    world.flap()
    for _ in range(200):
        world.step()
        if world.state == "over":
            break
    assert world.state == "over"
    assert world.bird_y == GROUND_Y - BIRD_R
    assert not world.flap(), "no flapping after game over"


def test_pipes_scroll_left():
    world = World(seed=0)
    world.flap()
    x0 = world.pipes[0].x
    world.step()
    assert world.pipes[0].x == x0 - PIPE_SPEED


def test_pipes_keep_coming():
    world = World(seed=0)
    world.flap()
    for _ in range(150):
        world.bird_y, world.bird_vy = 50.0, 0.0  # keep the bird alive and out of the way
        for p in world.pipes:
            p.gap_top = 20  # gap near the top so the bird never hits
        world.step()
    assert world.state == "playing"
    assert len(world.pipes) >= 2
    assert all(p.x <= WIDTH + 20 for p in world.pipes)


def test_circle_hits_rect():
    assert circle_hits_rect(0, 0, 5, 3, -1, 10, 1)
    assert not circle_hits_rect(0, 0, 5, 6, -1, 10, 1)
    assert not circle_hits_rect(0, 0, 5, 4, 4, 10, 10)  # corner is farther than r


def test_hits_pipe_and_gap():
    pipe = Pipe(BIRD_X - PIPE_W // 2, 200)
    assert not hits_pipe(200 + GAP / 2, pipe), "the middle of the gap is safe"
    assert hits_pipe(190, pipe), "inside the upper pipe"
    assert hits_pipe(200 + GAP + 10, pipe), "inside the lower pipe"
    far = Pipe(BIRD_X + 200, 200)
    assert not hits_pipe(100, far)


def test_collision_with_pipe_ends_game():
    world = World(seed=0)
    world.flap()
    world.pipes = [Pipe(BIRD_X + BIRD_R + 1, 0)]
    world.pipes[0].gap_top = int(world.bird_y) + 200  # bird is level with the upper pipe
    world.step()
    world.step()
    assert world.state == "over"


def test_hits_ground():
    assert hits_ground(GROUND_Y - BIRD_R)
    assert not hits_ground(GROUND_Y - BIRD_R - 1)


def test_score_counts_passed_pipes():
    world = World(seed=0)
    world.flap()
    world.pipes = [Pipe(BIRD_X - BIRD_R - PIPE_W + 1, 0)]
    world.pipes[0].gap_top = 0
    world.bird_y, world.bird_vy = GAP / 2, -3.0
    world.step()
    assert world.score == 1
    world.step()
    assert world.score == 1, "a pipe is only counted once"


def test_autopilot_scores_through_gaps():
    """Flapping whenever the bird sinks below the next gap must score points."""
    world = World(seed=5)
    world.flap()
    for _ in range(30 * 20):
        ahead = [p for p in world.pipes if p.x + PIPE_W >= BIRD_X - BIRD_R]
        target = ahead[0].gap_top + GAP * 0.65 if ahead else 300
        if world.bird_y > target and world.bird_vy > 0:
            world.flap()
        world.step()
        if world.state == "over":
            break
    assert world.score >= 5


def test_reset_and_determinism():
    a, b = World(seed=9), World(seed=9)
    for world in (a, b):
        world.flap()
        for _ in range(100):
            world.step()
    assert [p.gap_top for p in a.pipes] == [p.gap_top for p in b.pipes]
    a.reset()
    assert a.state == "ready" and a.score == 0 and a.pipes == [] and a.ticks == 0
