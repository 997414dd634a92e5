"""When the repair loop may say "fixed": the patched program checked on three seeds, not one.

A re-test that passes says the patch helped on the seed it was played on; a
patch that hides a crash on that seed only (a guard on the seed, an input the
explorer happened not to give) passes it too.  So a passing re-test is
confirmed before the loop says *fixed*:

- where a **reference** exists (a program that behaves as the repaired one
  should: ``playcoder repair --reference DIR``), the patched program is
  played against it by differential play on :data:`CONFIRM_SEEDS` seeds, and
  every run must pass;
- otherwise it must pass the testers that failed it (the loop's testers) and
  the offline tester on :data:`CONFIRM_SEEDS` seeds (the re-test's own seed
  counts for the testers that played it).

Anything less is not a fix: ``crash suppressed`` when a confirming run saw the
program crash or raise (the crash is still there, on another seed), else
``not fixed``.  The benchmark's repair rate (``benchmark/repair_check.py``)
checks claimed fixes the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from app.engine.judge.verdict import PASS

CONFIRM_SEEDS = 3
"""Seeds a fix must pass on (the re-test's seed and the next ones)."""
CONFIRM_TESTER = "offline"
"""Played beside the loop's testers when there is no reference: its generic oracles see crashes."""
DIFFERENTIAL = "differential"
CRASH_KINDS = frozenset({"crash", "exception"})
"""Findings that mean the program still crashes or raises."""
FIXED, NOT_FIXED, CRASH_SUPPRESSED = "fixed", "not fixed", "crash suppressed"


@dataclass(frozen=True)
class CheckPlay:
    """What one confirming play found (the loop plays it; this module only decides)."""

    run_id: int | None
    verdict: str
    reason: str
    kinds: frozenset[str] = frozenset()
    """The kinds of the run's findings."""


PlayOne = Callable[[str, int, Mapping[str, Any]], CheckPlay]
"""Play the patched program once: (tester, seed, tester options) -> what it found."""


@dataclass
class Confirmation:
    state: str
    reason: str
    run_ids: list[int] = field(default_factory=list)

    @property
    def fixed(self) -> bool:
        return self.state == FIXED


def plan(testers: list[str], seed: int, reference: str | None) -> list[tuple[str, int, dict[str, Any]]]:
    """The (tester, seed, options) plays that confirm a fix whose re-test passed ``testers`` on ``seed``."""
    seeds = [seed + i for i in range(CONFIRM_SEEDS)]
    if reference:
        return [(DIFFERENTIAL, s, {"reference": reference}) for s in seeds]
    names = list(dict.fromkeys([*testers, CONFIRM_TESTER]))
    return [(t, s, {}) for s in seeds for t in names if not (s == seed and t in testers)]


def confirm(play_one: PlayOne, testers: list[str], seed: int, reference: str | None) -> Confirmation:
    """Play :func:`plan`; the first run that does not pass decides (no need to play the rest)."""
    runs: list[int] = []
    checks = plan(testers, seed, reference)
    for tester, s, options in checks:
        found = play_one(tester, s, options)
        if found.run_id is not None:
            runs.append(found.run_id)
        if found.verdict != PASS:
            state = CRASH_SUPPRESSED if found.kinds & CRASH_KINDS else NOT_FIXED
            why = ("the crash is hidden on the re-test's seed only" if state == CRASH_SUPPRESSED
                   else "the patched program does not pass every confirming run")
            return Confirmation(state, f"{why}: {tester} on seed {s}: {found.verdict} — {found.reason}", runs)
    what = ("behaves as the reference under differential play" if reference
            else f"passes {', '.join(dict.fromkeys([*testers, CONFIRM_TESTER]))}")
    seeds = ", ".join(str(seed + i) for i in range(CONFIRM_SEEDS))
    return Confirmation(FIXED, f"{what} on seeds {seeds}", runs)


NOT_CONFIRMED = "not confirmed"


def session_outcome(fixed: bool, verdict: str | None, reason: str) -> str:
    """A finished repair session's outcome, from what its run row keeps (the loop starts the reason of a session
    whose last hope only hid a crash with ``crash suppressed:``)."""
    if fixed:
        return FIXED
    if reason.startswith(f"{CRASH_SUPPRESSED}:"):
        return CRASH_SUPPRESSED
    return NOT_CONFIRMED if verdict == "uncertain" else NOT_FIXED
