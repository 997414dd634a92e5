# SPDX-License-Identifier: GPL-3.0-or-later
"""Rules for the Memory (pairs) sample target (no GUI code in here).

Cards are numbered 0..15 row by row on a 4x4 board; cards[i] is the symbol
(0..7) on card i, and every symbol is on exactly two cards.  A move is the
turning of a second card.  A mismatched pair stays face up until
hide_mismatch() is called (the GUI calls it after a short delay, or at the
next click).
"""

import random

COLS = ROWS = 4
PAIRS = COLS * ROWS // 2


def deal(rng, pairs=PAIRS):
    cards = [symbol for symbol in range(pairs) for _ in range(2)]
    rng.shuffle(cards)
    return cards


class Game:
    def __init__(self, seed=0, pairs=PAIRS):
        self.pairs = pairs
        self.rng = random.Random(seed)
        self.reset()

    def reset(self):
        self.cards = deal(self.rng, self.pairs)
        self.face_up = [False] * len(self.cards)
        self.matched = [False] * len(self.cards)
        self.first = None       # the card turned first in the current move
        self.pending = None     # (a, b): a mismatched pair still showing
        self.moves = 0
        self.found = 0

    @property
    def won(self):
        return self.found == self.pairs

    def visible(self, index):
        return self.face_up[index] or self.matched[index]

    def hide_mismatch(self):
        """Turn a showing mismatched pair face down again.  Returns True if there was one."""
        if self.pending is None:
            return False
        a, b = self.pending
        self.face_up[a] = self.face_up[b] = False
        self.pending = None
        return True

    def flip(self, index):
        """Turn card ``index``.  Returns 'ignored', 'first', 'match', 'mismatch' or 'won'."""
        if not 0 <= index < len(self.cards):
            raise ValueError("card index out of range: %r" % (index,))
        if self.won or self.matched[index] or index == self.first:
            return "ignored"
        self.hide_mismatch()
        self.face_up[index] = True
        if self.first is None:
            self.first = index
            return "first"
        first, self.first = self.first, None
        self.moves += 1
        if self.cards[first] == self.cards[index]:
            self.matched[first] = self.matched[index] = True
            self.found += 1
            return "won" if self.won else "match"
        self.pending = (first, index)
        return "mismatch"
