# SPDX-License-Identifier: GPL-3.0-or-later
"""Rules for the Tic-tac-toe sample target (no GUI code in here).

Cells are numbered 0..8 row by row (0 = top-left, 8 = bottom-right).  The
keyboard uses the same row-major order: key "1" is the top-left cell, "3" the
top-right one and "9" the bottom-right one.
"""

LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),   # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),   # columns
    (0, 4, 8), (2, 4, 6),              # diagonals
)
PLAYERS = ("X", "O")
KEY_ORDER = "123456789"
"""KEY_ORDER[i] is the key that plays cell i (row-major, like reading a page)."""


def cell_for_key(char):
    """The cell index a typed character plays, or None for any other character."""
    if len(char) != 1 or char not in KEY_ORDER:
        return None
    return KEY_ORDER.index(char)


def find_winner(board):
    """(mark, line) of the first completed line, or (None, None)."""
    for line in LINES:
        a, b, c = line
        if board[a] is not None and board[a] == board[b] == board[c]:
            return board[a], line
    return None, None


class Game:
    """One board plus the running tally of finished games.  X always opens."""

    def __init__(self):
        self.tally = {"X": 0, "O": 0, "draw": 0}
        self.new_game()

    def new_game(self):
        self.board = [None] * 9
        self.turn = "X"
        self.winner = None
        self.line = None
        self.draw = False
        self.moves = 0

    @property
    def over(self):
        return self.winner is not None or self.draw

    def play(self, index):
        """Put the current player's mark on cell ``index``.  Returns False if the move is not allowed."""
        if not 0 <= index < 9:
            raise ValueError("cell index out of range: %r" % (index,))
        if self.over or self.board[index] is not None:
            return False
        self.board[index] = self.turn
        self.moves += 1
        self.winner, self.line = find_winner(self.board)
        if self.winner is not None:
            self.tally[self.winner] += 1
        elif all(cell is not None for cell in self.board):
            self.draw = True
            self.tally["draw"] += 1
        self.turn = "O" if self.turn == "X" else "X"
        return True
