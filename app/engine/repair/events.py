"""Repair → GUI events: what the repair loop did, as plain frozen dataclasses named in the past tense.

They travel on the same :class:`~app.engine.play.events.EventBus` as the
events of the plays inside the repair (``RunStarted``, ``StepRecorded``, …),
and with ``playcoder repair … --events -`` as the same JSON lines
(:func:`~app.engine.play.events.event_to_json`), so a workbench that runs the
repair as a child process shows each play live and each cycle's diagnosis
and patch as soon as they are made, before the cycle's ``patches`` row
exists.  :func:`repair_event_from_json` reads them back; a line that is a
play's event is left to :func:`~app.engine.play.events.event_from_json`.

Iteration 0 is the first play of the program as it is, before any cycle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.engine.play.events import event_fields

PLAYING, REFINING, VALIDATING, RETESTING = "playing", "refining", "validating", "retesting"
"""The phases of a repair (:attr:`RepairPhaseChanged.phase`)."""


@dataclass(frozen=True)
class RepairStarted:
    session_run: int
    target: str
    refiner: str
    max_iterations: int
    db: str


@dataclass(frozen=True)
class RepairPhaseChanged:
    session_run: int
    iteration: int
    phase: str
    text: str
    """One line for people: what the repair does now."""


@dataclass(frozen=True)
class DiagnosisMade:
    """The diagnosis a cycle starts from (sent again with the refiner's analysis when it has one)."""

    session_run: int
    iteration: int
    text: str
    before_runs: tuple[int, ...]
    """The plays the cycle started from (their first finding is where the failure shows)."""


@dataclass(frozen=True)
class PatchProposed:
    session_run: int
    iteration: int
    description: str
    diff: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class PatchChecked:
    """The gate's answer (syntax, imports, unit tests) before the re-test."""

    session_run: int
    iteration: int
    passed: bool
    text: str


@dataclass(frozen=True)
class CycleRecorded:
    session_run: int
    iteration: int
    patch_id: int
    outcome: str
    verdict: str
    retest_run: int | None
    description: str


@dataclass(frozen=True)
class RepairFinished:
    session_run: int
    status: str
    """completed, stopped or error (as the session row)."""
    verdict: str
    fixed: bool
    cycles: int
    reason: str


REPAIR_EVENT_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (RepairStarted, RepairPhaseChanged, DiagnosisMade, PatchProposed, PatchChecked, CycleRecorded,
                RepairFinished)
}
_TUPLES = ("before_runs", "files")


def repair_event_from_json(line: str) -> Any:
    """Parse one JSON line of a repair event; raises ``ValueError`` for anything else (a play's event too)."""
    cls, kwargs = event_fields(line, REPAIR_EVENT_TYPES, "a repair event")
    for key in _TUPLES:
        if isinstance(kwargs.get(key), list):
            kwargs[key] = tuple(kwargs[key])
    try:
        return cls(**kwargs)
    except TypeError as exc:  # a field missing: a line from another version
        raise ValueError(str(exc)) from exc
