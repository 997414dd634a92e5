# SPDX-License-Identifier: GPL-3.0-or-later
"""Rules for the Snake sample target (no GUI code in here).

The board is a grid of COLS x ROWS cells; (0, 0) is the top-left cell.  The
snake is a list of cells, head first.  The game advances one cell per call
of Game.step(); the GUI calls it on a timer.
"""

import random

COLS, ROWS = 20, 20
START_LENGTH = 3
START_HEAD = (5, ROWS // 2)
FOOD_POINTS = 10
MAX_QUEUED_TURNS = 2
DIRECTIONS = {
    "up": (0, -1),
    "down": (0, 1),
    "left": (-1, 0),
    "right": (1, 0),
}
OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}


def next_cell(cell, direction):
    dx, dy = DIRECTIONS[direction]
    return cell[0] + dx, cell[1] + dy


def inside(cell, cols=COLS, rows=ROWS):
    return 0 <= cell[0] < cols and 0 <= cell[1] < rows


class Game:
    """A game of Snake.  States: 'ready' (waits for an arrow), 'playing', 'over'."""

    def __init__(self, seed=0, cols=COLS, rows=ROWS):
        self.cols = cols
        self.rows = rows
        self.rng = random.Random(seed)
        self.reset()

    def reset(self):
        hx, hy = START_HEAD
        self.snake = [(hx - i, hy) for i in range(START_LENGTH)]
        self.direction = "right"
        self.queue = []
        self.score = 0
        self.eaten = 0
        self.state = "ready"
        self.won = False
        self.food = self.first_food()

    def first_food(self):
        """The first food of a game lies on the start row, a few cells ahead of the head."""
        hx, hy = self.snake[0]
        if hx + 5 > self.cols - 2 or not 0 <= hy < self.rows:
            return self.place_food()  # a board too small for the usual start
        return self.rng.randint(hx + 5, self.cols - 2), hy

    def place_food(self):
        taken = set(self.snake)
        free = [(x, y) for y in range(self.rows) for x in range(self.cols) if (x, y) not in taken]
        if not free:
            return None
        return self.rng.choice(free)

    @property
    def head(self):
        return self.snake[0]

    @property
    def length(self):
        return len(self.snake)

    def turn(self, direction):
        """Queue a turn; starts the game from 'ready'.  Returns True when the turn was queued.

        Turning back onto the snake's own neck is ignored, and so is a turn to
        the direction it is already heading.
        """
        if direction not in DIRECTIONS:
            raise ValueError("unknown direction: %r" % (direction,))
        if self.state == "over":
            return False
        if self.state == "ready":
            self.state = "playing"
        last = self.queue[-1] if self.queue else self.direction
        if direction == last or direction == OPPOSITE[last]:
            return False
        if len(self.queue) >= MAX_QUEUED_TURNS:
            return False
        self.queue.append(direction)
        return True

    def step(self):
        """Advance the snake by one cell.  Returns 'moved', 'ate', 'died' or 'idle'."""
        if self.state != "playing":
            return "idle"
        if self.queue:
            self.direction = self.queue.pop(0)
        new_head = next_cell(self.head, self.direction)
        eating = new_head == self.food
        body = self.snake if eating else self.snake[:-1]
        if not inside(new_head, self.cols, self.rows) or new_head in body:
            self.state = "over"
            return "died"
        self.snake.insert(0, new_head)
        if not eating:
            self.snake.pop()
            return "moved"
        self.score += FOOD_POINTS
        self.eaten += 1
        self.food = self.place_food()
        if self.food is None:
            self.state = "over"
            self.won = True
        return "ate"
