# SPDX-License-Identifier: GPL-3.0-or-later
"""Game rules for the 2048 sample target (no GUI code in here)."""

import random

SIZE = 4
DIRECTIONS = ("left", "right", "up", "down")


def slide_row(row):
    """Slide one row towards index 0 and merge equal neighbours once.

    Returns (new_row, points) where points is the sum of the merged tiles.
    """
    tiles = [v for v in row if v]
    out = []
    points = 0
    i = 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            merged = tiles[i] * 2
            out.append(merged)
            points += merged
            i += 2
        else:
            out.append(tiles[i])
            i += 1
    out.extend([0] * (len(row) - len(out)))
    return out, points


def _transpose(board):
    return [list(col) for col in zip(*board)]


def move_board(board, direction):
    """Return (new_board, points) for a move; the input board is not changed."""
    if direction not in DIRECTIONS:
        raise ValueError("unknown direction: %r" % (direction,))
    vertical = direction in ("up", "down")
    backwards = direction in ("right", "down")
    rows = _transpose(board) if vertical else [list(r) for r in board]
    result = []
    points = 0
    for row in rows:
        if backwards:
            row = row[::-1]
        new_row, gained = slide_row(row)
        points += gained
        if backwards:
            new_row = new_row[::-1]
        result.append(new_row)
    if vertical:
        result = _transpose(result)
    return result, points


def empty_cells(board):
    return [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v == 0]


def can_move(board):
    if empty_cells(board):
        return True
    n = len(board)
    for r in range(n):
        for c in range(n):
            v = board[r][c]
            if c + 1 < n and board[r][c + 1] == v:
                return True
            if r + 1 < n and board[r + 1][c] == v:
                return True
    return False


class Game:
    """A full 2048 game: board, score, seeded tile spawning."""

    def __init__(self, seed=0, size=SIZE):
        self.size = size
        self.rng = random.Random(seed)
        self.reset()

    def reset(self):
        self.board = [[0] * self.size for _ in range(self.size)]
        self.score = 0
        self.moves = 0
        self.over = False
        self.spawn()
        self.spawn()

    def spawn(self):
        cells = empty_cells(self.board)
        if not cells:
            return None
        r, c = self.rng.choice(cells)
        value = 4 if self.rng.random() < 0.1 else 2
        self.board[r][c] = value
        return r, c, value

    def move(self, direction):
        """Apply a move. Returns True when the board changed."""
        if self.over:
            return False
        new_board, points = move_board(self.board, direction)
        if new_board == self.board:
            return False
        self.board = new_board
        self.score += points
        self.moves += 1
        self.spawn()
        self.over = not can_move(self.board)
        return True

    def best_tile(self):
        return max(max(row) for row in self.board)
