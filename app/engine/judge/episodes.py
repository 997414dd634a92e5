"""Episodes that end alike: a game whose every episode ends on the same picture, whatever was pressed.

A program that declares ``exit_ok`` is restarted when it exits with code 0, so one
run holds several episodes from the same seed.  When input reaches the game, what
the player does shows in how an episode ends (where the snake died, the score).
When the last pictures of several episodes are identical although each episode
was played with different inputs, the game played itself: its input is dead.

Only inputs sent before the episode's ending picture appeared count as played:
one sent on the game-over screen (a game that shows it for a few seconds, then
exits) could not have changed how the episode ended.  A snake that dies before
the player's first turn ends every episode alike, whatever is pressed on its
game-over screen; that is a short life, not dead input.
"""

from __future__ import annotations

import hashlib
from collections import deque

from app.engine.judge.oracles import Finding
from app.engine.play.observer import Frame, is_blank

EPISODES_ALIKE = 3
"""This many episodes in a row ending on the same picture, each played differently, is dead input."""
MIN_INPUTS = 3
"""An episode counts when at least this many inputs, of at least two kinds, were sent in it."""
LAST_FRAMES = 4
"""The pictures that make an episode's ending: the last few different ones seen."""


class EpisodeEndings:
    def __init__(self, alike: int = EPISODES_ALIKE) -> None:
        self.alike = alike
        self.inputs: list[tuple[str, int]] = []
        """(input, pictures shown in the episode before it was sent)"""
        self.last_frames: deque[Frame] = deque(maxlen=LAST_FRAMES)
        self.shown = 0
        """Distinct pictures shown in the episode so far."""
        self.ending_from = 0
        """How many pictures were shown before the latest one that is not blank (the ending, once it ends)."""
        self.ends: list[tuple[frozenset[str], tuple[str, ...]]] = []
        self.reported = False

    def note_input(self, action: str, before: Frame | None = None) -> None:
        """An input sent on ``before`` (the picture the program showed when it was sent)."""
        if before is not None:
            self.note_frame(before)
        self.inputs.append((action, self.shown))

    def note_frame(self, frame: Frame) -> None:
        """A picture seen during the episode (the last few are its ending)."""
        if not self.last_frames or not self.last_frames[-1].same_as(frame):
            self.last_frames.append(frame)
            if not is_blank(frame):
                self.ending_from = self.shown
            self.shown += 1

    def end(self, step: int) -> list[Finding]:
        """The episode ended at ``step``; a finding when the last few ended alike.

        An ending is the set of the last pictures shown (never a blank one: a closing window's
        black is the same in every episode); two endings are alike when they share a picture."""
        pictures = frozenset(hashlib.sha256(f"{f.width}x{f.height}:".encode() + f.bgrx).hexdigest()
                             for f in self.last_frames if not is_blank(f))
        # Inputs sent once the ending picture (or a closing window's blank after it) was up changed nothing.
        played = tuple(action for action, shown in self.inputs if shown <= self.ending_from)
        self.inputs = []
        self.last_frames.clear()
        self.shown = self.ending_from = 0
        if len(played) < MIN_INPUTS or len(set(played)) < 2 or not pictures:
            self.ends.append((frozenset(), played))  # hardly played: says nothing, and breaks a series
            return []
        self.ends.append((pictures, played))
        last_few = self.ends[-self.alike:]
        if self.reported or len(last_few) < self.alike:
            return []
        if not frozenset.intersection(*(p for p, _ in last_few)) or len({i for _, i in last_few}) != self.alike:
            return []
        self.reported = True
        return [Finding(
            "no-response",
            f"the last {self.alike} episodes ended on exactly the same picture although each was played with "
            f"different inputs ({', '.join(str(len(i)) for _, i in last_few)} inputs): what is pressed does not "
            "change the game",
            step, {"episodes": self.alike, "inputs": [list(i) for _, i in last_few]}, fatal=True)]
