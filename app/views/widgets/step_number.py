"""How the workbench numbers steps for people: from 1, as the whole product does.

The rule and its reasons live in :mod:`app.engine.step_numbers` (the command
line, reports and verdict reasons use it too); the workbench's timeline, film
strip, frame subtitles, details, findings, the time axis, the repair window,
the recorder and the status bar read ``idx + 1``, so "step 3" means the same
everywhere.
"""

from __future__ import annotations

from typing import Any

from app.engine.step_numbers import FIRST_STEP, step_number

__all__ = ["FIRST_STEP", "step_number", "step_text"]


def step_text(idx: Any) -> str:
    """``#3`` for the step stored at idx 2 (``?`` when there is no index)."""
    return f"#{step_number(idx)}" if idx is not None else "#?"
