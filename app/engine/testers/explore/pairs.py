"""Places that showed the same picture: a tester of a memory game remembers what each card showed.

A click that turns something over (a card, a tile) changes the picture inside
the clicked widget.  What it showed there is remembered as its *face*: the ink
inside the widget's middle (what differs from its own background), cropped to
itself, so that the same symbol on two cards at two places is one face.  When
a click shows a face another place showed before, that place is clicked next
(the pair); when two places are known to show the same face and were never
clicked one after the other, the first of them is clicked to begin the pair.
Random clicking matches a pair of sixteen cards once in fifteen tries; a
player who remembers wins the game, and the game's end (its win panel, its
last score) is a state a random walk seldom reaches.

Nothing here knows of cards: a face is a few numbers from pixels, and a pair
is two places whose faces are alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from app.engine.play.actions import Click
from app.engine.play.observer import Frame
from app.engine.play.xwidgets import Widget

INSET = 0.15
"""The share of a widget's width and height left out on each side (its border, its rounded corners)."""
INK_TOLERANCE = 40
MIN_INK_PX = 12
SHAPE = 6
"""A face's shape: its ink cropped to itself, as SHAPE × SHAPE cells inked or not."""
SHAPE_SLACK = 3
"""Cells of the shape two faces may differ in and still be one (a pixel's rounding at a cell's edge)."""
MAX_PLACES = 64

SIZE_PX = 4
"""A face's ink size is compared to within this (a rectangle and a bar cropped to themselves fill one shape)."""

Face = tuple[int, int, bytes, int, int]
"""The widget's own background colour, its ink's colour (both quantised), the ink's shape, width and height."""


def _quantise(rgb: np.ndarray) -> int:
    q = (np.asarray(rgb, dtype=np.int32) // 32)
    return int(q[0] * 64 + q[1] * 8 + q[2])


def face(frame: Frame, box: tuple[int, int, int, int]) -> Face | None:
    """What ``box`` of ``frame`` shows: None for a box of one colour (nothing drawn) or too small."""
    x0, y0, x1, y1 = box
    dx, dy = int((x1 - x0) * INSET), int((y1 - y0) * INSET)
    x0, y0, x1, y1 = max(0, x0 + dx), max(0, y0 + dy), min(frame.width, x1 - dx), min(frame.height, y1 - dy)
    if x1 - x0 < SHAPE or y1 - y0 < SHAPE:
        return None
    arr = frame.array()[y0:y1, x0:x1, :3].astype(np.int16)
    flat = (arr // 32).reshape(-1, 3)
    keys = flat[:, 0] * 64 + flat[:, 1] * 8 + flat[:, 2]
    top = int(np.bincount(keys).argmax())
    bg = np.array([top // 64, (top // 8) % 8, top % 8]) * 32 + 16
    ink = np.abs(arr - bg).max(axis=2) > INK_TOLERANCE
    if int(ink.sum()) < MIN_INK_PX:
        return None
    ys, xs = np.nonzero(ink)
    part = ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    h, w = part.shape
    rows = (np.arange(SHAPE + 1) * h) // SHAPE
    cols = (np.arange(SHAPE + 1) * w) // SHAPE
    shape = bytes(int(part[rows[j]:max(rows[j] + 1, rows[j + 1]), cols[i]:max(cols[i] + 1, cols[i + 1])].mean() >= 0.5)
                  for j in range(SHAPE) for i in range(SHAPE))
    colour = _quantise(np.median(arr[ink], axis=0))
    return top, colour, shape, w, h


def alike(a: Face, b: Face) -> bool:
    return (a[0] == b[0] and a[1] == b[1] and abs(a[3] - b[3]) <= SIZE_PX and abs(a[4] - b[4]) <= SIZE_PX
            and sum(x != y for x, y in zip(a[2], b[2])) <= SHAPE_SLACK)


@dataclass
class Place:
    click: Click
    box: tuple[int, int, int, int]
    face: Face

    def holds(self, x: int, y: int) -> bool:
        return self.box[0] <= x < self.box[2] and self.box[1] <= y < self.box[3]


@dataclass
class Pairs:
    """The faces clicks showed, by place, and the pairs of places clicked one after the other."""

    places: list[Place] = field(default_factory=list)
    paired: set[frozenset[int]] = field(default_factory=set)
    """Pairs of places (indexes into ``places``) already clicked one right after the other."""
    done: set[int] = field(default_factory=set)
    """Places this rule paired (each once: a board of many alike checkboxes costs a click each, not one a pair)."""
    last: int | None = None
    """The place the last click showed a face at (None: the last input was another)."""
    asked: frozenset[int] | None = None
    opening: frozenset[int] | None = None
    follow: int | None = None
    """A place whose face turned back when its pair's other was clicked (it was the second of a turn):
    clicked next, so the two are turned one right after the other."""

    def _index(self, x: int, y: int) -> int | None:
        return next((i for i, p in enumerate(self.places) if p.holds(x, y)), None)

    def saw(self, action: object, widget: Widget | None, before: Frame, after: Frame) -> None:
        """After an input: a click whose widget's picture changed remembers the face it showed there."""
        previous, self.last = self.last, None
        asked, opening, self.asked, self.opening = self.asked, self.opening, None, None
        if asked is not None:
            self.paired.add(asked)
            self.done |= asked
            x, y = (action.x, action.y) if isinstance(action, Click) else (-1, -1)
            other = next((i for i in asked if not self.places[i].holds(x, y)), None)
            shown = face(after, self.places[other].box) if other is not None else None
            if other is not None and other == previous and (shown is None or not alike(shown, self.places[other].face)):
                self.follow = other
        self._remember(action, widget, before, after, previous)
        if opening is not None and self.last is None:
            self.paired.add(opening)  # the first of the pair showed nothing new (already taken): given up
            self.done |= opening

    def _remember(self, action: object, widget: Widget | None, before: Frame, after: Frame,
                  previous: int | None) -> None:
        if not isinstance(action, Click):
            return
        known = self._index(action.x, action.y)
        if widget is not None:
            box = (widget.x0, widget.y0, widget.x1, widget.y1)
        elif known is not None:
            box = self.places[known].box  # a click this rule chose: the place it remembered
        else:
            return
        now, then = face(after, box), face(before, box)
        if now is None or (then is not None and alike(now, then)):
            return  # nothing turned over here
        i = known
        if i is None:
            if len(self.places) >= MAX_PLACES:
                return
            self.places.append(Place(action, box, now))
            i = len(self.places) - 1
        else:
            self.places[i].face = now
        if previous is not None and previous != i:
            self.paired.add(frozenset((previous, i)))
        self.last = i

    def _open(self, i: int, j: int) -> bool:
        return i != j and not {i, j} & self.done and frozenset((i, j)) not in self.paired \
            and alike(self.places[i].face, self.places[j].face)

    def next_click(self) -> tuple[Click, str] | None:
        """The click that completes or begins a pair of alike faces never clicked together; None without one."""
        if self.follow is not None:
            p, self.follow = self.places[self.follow], None
            return p.click, (f"the pair again: the card at ({p.click.x}, {p.click.y}) turned back when its alike "
                             "one was clicked (it was the second of a turn), so it is clicked right after it")
        if self.last is not None:
            mine = self.places[self.last]
            for j, p in enumerate(self.places):
                if self._open(self.last, j):
                    self.asked = frozenset((self.last, j))
                    return p.click, (f"the pair: the click at ({mine.click.x}, {mine.click.y}) showed what the one at "
                                     f"({p.click.x}, {p.click.y}) showed before, so that one is clicked next")
            return None
        for i, a in enumerate(self.places):
            for j in range(i + 1, len(self.places)):
                if self._open(i, j):
                    self.opening = frozenset((i, j))
                    b = self.places[j]
                    return a.click, (f"begin a pair: the clicks at ({a.click.x}, {a.click.y}) and ({b.click.x}, "
                                     f"{b.click.y}) showed alike pictures and were never clicked one after the other")
        return None
