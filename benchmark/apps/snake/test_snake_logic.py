# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests for snake_logic (grid rules, no GUI)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pytest  # noqa: E402

from snake_logic import (  # noqa: E402
    COLS, FOOD_POINTS, ROWS, START_HEAD, START_LENGTH, Game, inside, next_cell,
)


def run(game, steps):
    results = [game.step() for _ in range(steps)]
    return results


def test_new_game_waits_on_the_start_row():
    game = Game(seed=0)
    assert game.state == "ready"
    assert game.head == START_HEAD
    assert game.length == START_LENGTH
    assert game.snake == [(START_HEAD[0] - i, START_HEAD[1]) for i in range(START_LENGTH)]
    assert game.score == 0
    assert game.step() == "idle", "the snake does not move before the first arrow key"
    assert game.head == START_HEAD


@pytest.mark.parametrize("seed", range(30))
def test_first_food_is_ahead_on_the_start_row(seed):
    game = Game(seed=seed)
    fx, fy = game.food
    assert fy == START_HEAD[1]
    assert START_HEAD[0] + 5 <= fx <= COLS - 2


def test_helpers():
    assert next_cell((3, 3), "up") == (3, 2)
    assert next_cell((3, 3), "left") == (2, 3)
    assert inside((0, 0)) and inside((COLS - 1, ROWS - 1))
    assert not inside((-1, 0)) and not inside((0, ROWS))


def test_arrow_starts_and_snake_moves_one_cell_per_step():
    game = Game(seed=0)
    assert not game.turn("right"), "already heading right: nothing to queue"
    assert game.state == "playing"
    assert game.step() == "moved"
    assert game.head == (START_HEAD[0] + 1, START_HEAD[1])
    assert game.length == START_LENGTH


def test_turns_are_queued_and_applied_in_order():
    game = Game(seed=0)
    assert game.turn("up")
    assert game.turn("left")
    assert not game.turn("down"), "at most two queued turns"
    game.step()
    assert game.head == (START_HEAD[0], START_HEAD[1] - 1)
    game.step()
    assert game.head == (START_HEAD[0] - 1, START_HEAD[1] - 1)
    assert game.direction == "left"


def test_reversing_onto_the_neck_is_ignored():
    game = Game(seed=0)
    game.turn("down")
    game.step()
    assert not game.turn("up")
    assert game.step() == "moved"
    assert game.state == "playing"
    assert game.head == (START_HEAD[0], START_HEAD[1] + 2)


def test_reverse_from_ready_still_starts_forward():
    game = Game(seed=0)
    assert not game.turn("left")
    assert game.step() == "moved"
    assert game.head == (START_HEAD[0] + 1, START_HEAD[1])


def test_eating_grows_and_scores():
    game = Game(seed=0)
    game.food = (START_HEAD[0] + 2, START_HEAD[1])
    game.turn("up")
    game.queue.clear()
    assert run(game, 2) == ["moved", "ate"]
    assert game.length == START_LENGTH + 1
    assert game.score == FOOD_POINTS and game.eaten == 1
    assert game.food not in game.snake
    assert game.step() == "moved"
    assert game.length == START_LENGTH + 1


def test_first_food_is_eaten_by_going_straight():
    for seed in range(10):
        game = Game(seed=seed)
        game.turn("right")
        results = run(game, COLS - START_HEAD[0] - 1)
        assert "ate" in results
        assert game.score == FOOD_POINTS
        assert game.length == START_LENGTH + 1


def test_wall_ends_the_game():
    game = Game(seed=0)
    game.food = (0, 0)
    game.turn("right")
    results = run(game, COLS - START_HEAD[0] - 1)
    assert results[-1] == "moved" and game.head == (COLS - 1, START_HEAD[1])
    assert game.step() == "died"
    assert game.state == "over"
    assert game.head == (COLS - 1, START_HEAD[1]), "the snake stops at the wall"
    assert game.step() == "idle"
    assert not game.turn("up"), "no turns after game over"


def test_top_wall_ends_the_game():
    game = Game(seed=0)
    game.turn("up")
    results = run(game, START_HEAD[1] + 1)
    assert results[-1] == "died" and game.state == "over"


def test_running_into_the_body_ends_the_game():
    game = Game(seed=0)
    game.snake = [(5, 5), (5, 6), (6, 6), (6, 5), (6, 4), (5, 4)]
    game.direction = "up"
    game.food = (0, 0)
    game.state = "playing"
    game.turn("right")
    assert game.step() == "died"
    assert game.state == "over"


def test_moving_into_the_tail_cell_is_allowed():
    game = Game(seed=0)
    game.snake = [(5, 5), (5, 6), (6, 6), (6, 5)]
    game.direction = "up"
    game.food = (0, 0)
    game.state = "playing"
    game.turn("right")
    assert game.step() == "moved", "the tail leaves the cell in the same step"


def test_filling_the_board_wins():
    game = Game(seed=0, cols=3, rows=1)
    game.snake = [(1, 0), (0, 0)]
    game.food = (2, 0)
    game.state = "playing"
    assert game.step() == "ate"
    assert game.state == "over" and game.won


def test_seed_is_deterministic_and_reset_restarts():
    a, b = Game(seed=5), Game(seed=5)
    assert a.food == b.food
    for game in (a, b):
        game.turn("right")
        run(game, 30)
    assert a.snake == b.snake and a.food == b.food and a.score == b.score
    a.reset()
    assert a.state == "ready" and a.score == 0 and a.length == START_LENGTH
    assert a.queue == []


def test_unknown_direction_is_rejected():
    with pytest.raises(ValueError):
        Game(seed=0).turn("sideways")
