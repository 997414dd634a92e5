"""Episodes that end alike: a game whose every episode ends on the same picture, whatever was pressed.

A program that declares ``exit_ok`` is restarted when it exits with code 0, so one
run holds several episodes from the same seed.  When input reaches the game, what
the player does shows in how an episode ends (where the snake died, the score).
When the last pictures of several episodes are identical although each episode
was played with different inputs, the game played itself: its input is dead.
"""

from __future__ import annotations

import hashlib

from app.engine.judge.oracles import Finding
from app.engine.play.observer import Frame

EPISODES_ALIKE = 3
"""This many episodes in a row ending on the same picture, each played differently, is dead input."""
MIN_INPUTS = 3
"""An episode counts when at least this many inputs, of at least two kinds, were sent in it."""


class EpisodeEndings:
    def __init__(self, alike: int = EPISODES_ALIKE) -> None:
        self.alike = alike
        self.inputs: list[str] = []
        self.ends: list[tuple[str, tuple[str, ...]]] = []
        self.reported = False

    def note_input(self, action: str) -> None:
        self.inputs.append(action)

    def end(self, step: int, last: Frame) -> list[Finding]:
        """The episode ended at ``step`` showing ``last``; a finding when the last few ended alike."""
        picture = hashlib.sha256(f"{last.width}x{last.height}:".encode() + last.bgrx).hexdigest()
        played = tuple(self.inputs)
        self.inputs = []
        if len(played) < MIN_INPUTS or len(set(played)) < 2:
            self.ends.append(("", played))  # hardly played: says nothing, and breaks a series
            return []
        self.ends.append((picture, played))
        last_few = self.ends[-self.alike:]
        if self.reported or len(last_few) < self.alike:
            return []
        if len({p for p, _ in last_few}) != 1 or len({i for _, i in last_few}) != self.alike:
            return []
        self.reported = True
        return [Finding(
            "no-response",
            f"the last {self.alike} episodes ended on exactly the same picture although each was played with "
            f"different inputs ({', '.join(str(len(i)) for _, i in last_few)} inputs): what is pressed does not "
            "change the game",
            step, {"episodes": self.alike, "inputs": [list(i) for _, i in last_few]}, fatal=True)]
