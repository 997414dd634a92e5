"""How PlayCoder numbers steps for people: from 1.

A run's steps are stored with ``idx`` counting from 0 (a list index, and the
key other rows join on).  Every step number a person reads — a verdict's
reason, a finding's place, the command line's lines and its ``--json``
``step`` field, the HTML report, a repair's diagnosis, the workbench's
timeline and recorder — is ``idx + 1``: "step 4" is the fourth action,
wherever it is read.  Indexes kept in files and fields for programs keep
counting from 0 and are named for it (``idx``; a script case's ``after``).
"""

from __future__ import annotations

from typing import Any

FIRST_STEP = 1
"""The number of a run's first step as people read it."""


def step_number(idx: Any) -> int:
    """The number people read for the step stored at ``idx``."""
    return int(idx) + FIRST_STEP


def step_place(idx: Any, none: str = "start") -> str:
    """``step 4`` for the step stored at idx 3; ``none`` when there is no step (before the first, the whole run)."""
    return f"step {step_number(idx)}" if isinstance(idx, int) or str(idx).isdigit() else none
