"""How the workbench numbers steps for people: from 1.

The store's ``idx`` counts from 0 (it is a list index); every step number a
person reads in the workbench (timeline, film strip, frame subtitles, details,
findings, the time axis, the repair window and the status bar) is ``idx + 1``,
so "step 3" means the same everywhere.
"""

from __future__ import annotations

from typing import Any

FIRST_STEP = 1
"""The number of a run's first step as people read it."""


def step_number(idx: Any) -> int:
    """The number people read for the step stored at ``idx``."""
    return int(idx) + FIRST_STEP


def step_text(idx: Any) -> str:
    """``#3`` for the step stored at idx 2 (``?`` when there is no index)."""
    return f"#{step_number(idx)}" if idx is not None else "#?"
