"""Go-Explore's archive: every cell reached, the shortest way there, and where to explore from next.

A cell is a coarse picture of the screen (a small grey thumbnail with a few
levels, so a moving clock hand or a caret's blink is the same cell while a new
dialog, a new level or a longer snake is another) and, when the program's
coverage is known (:mod:`app.engine.play.inside`), how much of its code the way
there ran (a log bucket: a step that reaches new code makes a new cell even on
a screen that looks alike).  Each cell keeps the shortest input prefix that
reached it, so the explorer can return to it (:mod:`.returns`) and go on from
there instead of from wherever it happens to be.

Choosing follows Go-Explore's count-based weights: cells chosen less and
visited less are more promising, and a cell whose last explorations found new
cells or new code gets a bonus.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass, field

import numpy as np

from app.engine.play.actions import Action
from app.engine.play.observer import Frame

THUMB = (11, 8)
"""Go-Explore's Montezuma cells are 11×8 thumbnails with 8 grey levels."""
LEVELS = 8
CHOSEN_WEIGHT = 1.0
VISIT_WEIGHT = 0.5
PRODUCTIVE_BONUS = 1.0
"""Added to a cell's weight per recent exploration from it that found something new (decays by half)."""
EPSILON = 0.1
Step = tuple[int, Action]
"""One input of a prefix: the frame count the program stood at when it was sent (0 off the gate), and the input."""


def thumbnail(frame: Frame, size: tuple[int, int] = THUMB, levels: int = LEVELS) -> bytes:
    """The frame as a tiny grey picture of few levels: what a cell looks like."""
    return thumbnail_grey(frame.array()[..., :3].astype(np.float32).mean(axis=2), size, levels)


def thumbnail_grey(arr: np.ndarray, size: tuple[int, int] = THUMB, levels: int = LEVELS) -> bytes:
    """:func:`thumbnail` of a picture's grey levels (a picture already shrunk, as a forked scout sends it)."""
    h, w = arr.shape
    tw, th = size
    ys = (np.arange(th + 1) * h) // th
    xs = (np.arange(tw + 1) * w) // tw
    cells = np.array([[arr[ys[j]:max(ys[j] + 1, ys[j + 1]), xs[i]:max(xs[i] + 1, xs[i + 1])].mean()
                       for i in range(tw)] for j in range(th)])
    return bytes((np.clip(cells, 0, 255) * levels / 256).astype(np.uint8).ravel())


def coverage_bucket(lines: int) -> int:
    """How much code a prefix ran, on a log scale (0, 1, 2-3, 4-7 ... lines)."""
    return 0 if lines <= 0 else int(math.log2(lines)) + 1


def picture_key(frame: Frame) -> str:
    """The thumbnail's hash: what a return must see again."""
    return hashlib.blake2b(thumbnail(frame), digest_size=6).hexdigest()


def cell_key(frame: Frame, lines: int | None = None) -> str:
    """A cell's name: the thumbnail's hash, and the coverage bucket when coverage is known."""
    digest = picture_key(frame)
    return digest if lines is None else f"{digest}/c{coverage_bucket(lines)}"


@dataclass
class Cell:
    key: str
    prefix: tuple[Step, ...]
    """The shortest input sequence from the program's start known to reach this cell."""
    picture: str
    """The thumbnail's hash after the prefix (a return is checked against it)."""
    found_at: int
    visits: int = 1
    chosen: int = 0
    productive: float = 0.0
    """Recent explorations from here that found new cells or code (decays)."""
    unreliable: bool = False
    """A return by replaying the prefix did not reach the same picture: not chosen again."""

    def weight(self) -> float:
        return (CHOSEN_WEIGHT / math.sqrt(self.chosen + 1) + VISIT_WEIGHT / math.sqrt(self.visits + 1)
                + PRODUCTIVE_BONUS * self.productive)


@dataclass
class Archive:
    cells: dict[str, Cell] = field(default_factory=dict)
    steps: int = 0

    def __len__(self) -> int:
        return len(self.cells)

    def visit(self, key: str, prefix: tuple[Step, ...], picture: str) -> bool:
        """The explorer stands in cell ``key`` after ``prefix``; True when the cell is new.
        A shorter prefix to a known cell replaces its prefix (the return gets cheaper)."""
        self.steps += 1
        cell = self.cells.get(key)
        if cell is None:
            self.cells[key] = Cell(key, prefix, picture, self.steps)
            return True
        cell.visits += 1
        if len(prefix) < len(cell.prefix):
            cell.prefix, cell.picture, cell.unreliable = prefix, picture, False
        return False

    def choose(self, rng: random.Random, exclude: str | None = None, max_prefix: int | None = None) -> Cell | None:
        """A cell to explore from, by weight (fewer choices and visits, recent finds: more likely);
        ``max_prefix``: only cells whose way there is at most this long (a return replays it)."""
        pool = [c for c in self.cells.values() if not c.unreliable and c.key != exclude and c.prefix
                and (max_prefix is None or len(c.prefix) <= max_prefix)]
        if not pool:
            return None
        if rng.random() < EPSILON:
            cell = rng.choice(pool)
        else:
            cell = rng.choices(pool, weights=[c.weight() for c in pool])[0]
        cell.chosen += 1
        return cell

    def credit(self, key: str, found: int) -> None:
        """An exploration from ``key`` found ``found`` new cells or lines: its bonus follows."""
        cell = self.cells.get(key)
        if cell is not None:
            cell.productive = cell.productive / 2 + (1.0 if found > 0 else 0.0)

    def unreliable(self, key: str) -> None:
        cell = self.cells.get(key)
        if cell is not None:
            cell.unreliable = True
