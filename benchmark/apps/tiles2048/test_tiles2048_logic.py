# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests for tiles2048_logic (pure game rules, no GUI)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pytest  # noqa: E402

from tiles2048_logic import Game, can_move, empty_cells, move_board, slide_row  # noqa: E402


@pytest.mark.parametrize("row, expected, points", [
    ([0, 0, 0, 0], [0, 0, 0, 0], 0),
    ([0, 2, 0, 0], [2, 0, 0, 0], 0),
    ([2, 2, 0, 0], [4, 0, 0, 0], 4),
    ([2, 0, 0, 2], [4, 0, 0, 0], 4),
    ([2, 2, 2, 0], [4, 2, 0, 0], 4),
    ([2, 2, 2, 2], [4, 4, 0, 0], 8),
    ([4, 4, 8, 8], [8, 16, 0, 0], 24),
    ([2, 4, 8, 16], [2, 4, 8, 16], 0),
    ([4, 0, 4, 4], [8, 4, 0, 0], 8),
])
def test_slide_row(row, expected, points):
    assert slide_row(row) == (expected, points)


def test_merged_tile_doubles():
    new_row, points = slide_row([8, 8, 0, 0])
    assert new_row[0] == 16
    assert points == 16


def test_move_board_all_directions():
    board = [
        [2, 0, 0, 2],
        [0, 4, 0, 0],
        [0, 4, 0, 0],
        [0, 0, 0, 0],
    ]
    left, pts = move_board(board, "left")
    assert left[0] == [4, 0, 0, 0] and pts == 4
    right, _ = move_board(board, "right")
    assert right[0] == [0, 0, 0, 4]
    up, pts = move_board(board, "up")
    assert [row[1] for row in up] == [8, 0, 0, 0] and pts == 8
    down, _ = move_board(board, "down")
    assert [row[1] for row in down] == [0, 0, 0, 8]
    assert board[0] == [2, 0, 0, 2], "input board must not be modified"


def test_move_board_rejects_unknown_direction():
    with pytest.raises(ValueError):
        move_board([[0] * 4] * 4, "sideways")


def test_can_move():
    full = [[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]
    assert not can_move(full)
    full[3][3] = 4
    assert can_move(full)
    full[3][3] = 0
    assert can_move(full)


def test_new_game_has_two_tiles():
    game = Game(seed=0)
    tiles = [v for row in game.board for v in row if v]
    assert len(tiles) == 2
    assert all(v in (2, 4) for v in tiles)
    assert game.score == 0 and not game.over


def test_seed_is_deterministic():
    a, b = Game(seed=7), Game(seed=7)
    for d in ["left", "up", "right", "down"] * 5:
        a.move(d)
        b.move(d)
    assert a.board == b.board and a.score == b.score


def test_some_direction_always_changes_fresh_board():
    for seed in range(50):
        game = Game(seed=seed)
        before = [row[:] for row in game.board]
        changed = [move_board(before, d)[0] != before for d in ("left", "right", "up", "down")]
        assert any(changed)


def test_move_spawns_and_scores():
    game = Game(seed=1)
    game.board = [[2, 2, 0, 0], [0] * 4, [0] * 4, [0] * 4]
    assert game.move("left")
    assert game.board[0][0] == 4
    assert game.score == 4
    assert game.moves == 1
    assert sum(1 for row in game.board for v in row if v) == 2  # merged tile + spawn


def test_move_without_change_does_not_spawn():
    game = Game(seed=1)
    game.board = [[2, 0, 0, 0], [0] * 4, [0] * 4, [0] * 4]
    assert not game.move("left")
    assert len(empty_cells(game.board)) == 15
    assert game.moves == 0


def test_game_over_detected_and_reset():
    game = Game(seed=3)
    # one hole left; the only move fills it and no merge is possible afterwards
    game.board = [[2, 4, 2, 4], [4, 2, 4, 2], [8, 16, 8, 16], [32, 64, 128, 0]]
    assert game.move("right")
    assert game.board[3][1:] == [32, 64, 128]
    assert game.board[3][0] in (2, 4)
    assert game.over
    assert not game.move("up")
    game.reset()
    assert not game.over and game.score == 0 and game.moves == 0
