# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests for tictactoe_logic (pure rules, no GUI)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pytest  # noqa: E402

from tictactoe_logic import LINES, Game, cell_for_key, find_winner  # noqa: E402


def play_keys(keys, game=None):
    game = game or Game()
    for key in keys:
        game.play(cell_for_key(key))
    return game


@pytest.mark.parametrize("char, cell", [
    ("1", 0), ("2", 1), ("3", 2), ("4", 3), ("5", 4), ("6", 5), ("7", 6), ("8", 7), ("9", 8),
    ("0", None), ("n", None), ("", None), ("12", None), (" ", None),
])
def test_keys_are_row_major(char, cell):
    assert cell_for_key(char) == cell


def test_every_line_is_detected():
    assert len(LINES) == 8
    for line in LINES:
        board = [None] * 9
        for i in line:
            board[i] = "O"
        assert find_winner(board) == ("O", line)


@pytest.mark.parametrize("keys, winner", [
    ("14253", "X"),       # top row
    ("41526", "X"),       # middle row
    ("71829", "X"),       # bottom row
    ("12457", "X"),       # left column: X 1 4 7
    ("21538", "X"),       # middle column
    ("31629", "X"),       # right column
    ("12593", None),      # X 1 5 3, O 2 9: no line yet
    ("125939", None),     # the second 9 is refused
    ("15293", "X"),       # X 1 2 3 around O's centre
])
def test_winner_after_sequence(keys, winner):
    assert play_keys(keys).winner == winner


def test_diagonals_win():
    game = play_keys("15937")   # X: 1, 9, 7; O: 5, 3 -> no line
    assert game.winner is None
    game = play_keys("12539")   # X: 1, 5, 9
    assert game.winner == "X" and game.line == (0, 4, 8)
    game = play_keys("31527")   # X: 3, 5, 7
    assert game.winner == "X" and game.line == (2, 4, 6)
    game = play_keys("132547")  # X: 1, 2, 4; O: 3, 5, 7
    assert game.winner == "O" and game.line == (2, 4, 6)


def test_turns_alternate_and_taken_cells_are_refused():
    game = Game()
    assert game.turn == "X"
    assert game.play(4)
    assert game.board[4] == "X" and game.turn == "O"
    assert not game.play(4)
    assert game.board[4] == "X" and game.turn == "O" and game.moves == 1
    assert game.play(0)
    assert game.board[0] == "O" and game.turn == "X"


def test_no_moves_after_a_win():
    game = play_keys("14253")
    assert game.winner == "X" and game.over
    assert not game.play(8)
    assert game.board[8] is None
    assert game.moves == 5


def test_draw():
    game = play_keys("123546879")
    assert game.winner is None and game.draw and game.over
    assert game.tally == {"X": 0, "O": 0, "draw": 1}
    assert not game.play(0)


def test_tally_and_new_game():
    game = play_keys("14253")
    assert game.tally == {"X": 1, "O": 0, "draw": 0}
    game.new_game()
    assert game.board == [None] * 9 and game.turn == "X"
    assert not game.over and game.moves == 0
    play_keys("132547", game)
    assert game.tally == {"X": 1, "O": 1, "draw": 0}


def test_bad_index_is_rejected():
    with pytest.raises(ValueError):
        Game().play(9)
