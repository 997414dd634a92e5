# SPDX-License-Identifier: GPL-3.0-or-later
"""Physics and rules for the Flappy sample target (no GUI code in here).

Everything is measured in pixels and frames (the game runs at 30 fps).
"""

import math
import random

WIDTH, HEIGHT = 400, 600
GROUND_Y = 520          # top edge of the ground strip
BIRD_X = 100            # the bird stays at this x; the world scrolls
BIRD_R = 14             # bird radius
GRAVITY = 0.6
FLAP_VELOCITY = -8.5
MAX_FALL = 12.0
PIPE_W = 64
GAP = 170               # vertical size of the opening between two pipes
PIPE_SPEED = 3          # pixels per frame, right to left
PIPE_SPACING = 210      # horizontal distance between consecutive pipes
GAP_MARGIN = 90         # keep gaps away from the ceiling and the ground
READY_Y = 260           # where the bird bobs before the first flap


class Pipe:
    """A pair of pipes: solid above gap_top and below gap_top + GAP."""

    def __init__(self, x, gap_top):
        self.x = float(x)
        self.gap_top = gap_top
        self.scored = False

    @property
    def gap_bottom(self):
        return self.gap_top + GAP

    def __repr__(self):
        return "Pipe(x=%.1f, gap_top=%d)" % (self.x, self.gap_top)


def circle_hits_rect(cx, cy, r, left, top, right, bottom):
    """True when the circle (cx, cy, r) overlaps the rectangle."""
    nx = min(max(cx, left), right)
    ny = min(max(cy, top), bottom)
    return (cx - nx) ** 2 + (cy - ny) ** 2 < r * r


def hits_pipe(bird_y, pipe):
    left, right = pipe.x, pipe.x + PIPE_W
    upper = circle_hits_rect(BIRD_X, bird_y, BIRD_R, left, -1000, right, pipe.gap_top)
    lower = circle_hits_rect(BIRD_X, bird_y, BIRD_R, left, pipe.gap_bottom, right, GROUND_Y)
    return upper or lower


def hits_ground(bird_y):
    return bird_y + BIRD_R >= GROUND_Y


class World:
    """Game state. States: 'ready' (bird bobs), 'playing', 'over'."""

    def __init__(self, seed=0):
        self.rng = random.Random(seed)
        self.reset()

    def reset(self):
        self.state = "ready"
        self.bird_y = float(READY_Y)
        self.bird_vy = 0.0
        self.pipes = []
        self.score = 0
        self.ticks = 0          # frames since reset, runs in every state
        self.scroll = 0.0       # ground scroll offset

    def new_gap_top(self):
        return self.rng.randint(GAP_MARGIN, GROUND_Y - GAP_MARGIN - GAP)

    def flap(self):
        """Space pressed. Starts the game from 'ready'. Returns True if the bird flapped."""
        if self.state == "over":
            return False
        if self.state == "ready":
            self.state = "playing"
            self.pipes = [Pipe(WIDTH + 20, self.new_gap_top())]
        self.bird_vy = FLAP_VELOCITY
        return True

    def step(self):
        """Advance one frame."""
        self.ticks += 1
        if self.state == "over":
            return
        self.scroll = (self.scroll + PIPE_SPEED) % 40
        if self.state == "ready":
            self.bird_y = READY_Y + 10 * math.sin(self.ticks * 0.15)
            return

        self.bird_vy = min(self.bird_vy + GRAVITY, MAX_FALL)
        self.bird_y += self.bird_vy
        if self.bird_y - BIRD_R < 0:
            self.bird_y = float(BIRD_R)
            self.bird_vy = 0.0

        for pipe in self.pipes:
            pipe.x -= PIPE_SPEED
            if not pipe.scored and pipe.x + PIPE_W < BIRD_X - BIRD_R:
                pipe.scored = True
                self.score += 1
        self.pipes = [p for p in self.pipes if p.x + PIPE_W > -10]
        if not self.pipes or self.pipes[-1].x < WIDTH - PIPE_SPACING:
            self.pipes.append(Pipe(WIDTH + 20, self.new_gap_top()))

        if self.collides():
            self.state = "over"
            if hits_ground(self.bird_y):
                self.bird_y = float(GROUND_Y - BIRD_R)

    def collides(self):
        if hits_ground(self.bird_y):
            return True
        return any(hits_pipe(self.bird_y, pipe) for pipe in self.pipes)
