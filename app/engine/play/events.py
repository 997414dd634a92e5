"""Engine → GUI events: frozen dataclasses named in the past tense, and a tiny bus.

The same events go to in-process subscribers (tests, the headless CLI) and, as
JSON lines, to a workbench that runs the engine as a child process
(``playcoder test ... --events -``).
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Callable


@dataclass(frozen=True)
class RunStarted:
    run_id: int
    target: str
    tester: str
    display: str
    db: str


@dataclass(frozen=True)
class WindowFound:
    run_id: int
    display: str
    window_id: int
    width: int
    height: int
    method: str
    x: int = 0
    y: int = 0


@dataclass(frozen=True)
class StepRecorded:
    run_id: int
    idx: int
    action: dict[str, Any]
    outcome: str
    frame_after: str | None
    changed_bbox: tuple[int, int, int, int] | None
    settle_ms: float


@dataclass(frozen=True)
class FindingRaised:
    run_id: int
    step: int | None
    kind: str
    message: str


@dataclass(frozen=True)
class ControlChanged:
    run_id: int
    state: str  # "running" | "paused" | "stepping" | "stopping"
    reason: str = ""
    """Set when the engine paused the run itself: one sentence saying why and what to do."""


@dataclass(frozen=True)
class WindowMoved:
    """The target's window moved or was resized (root coordinates of its client area)."""

    run_id: int
    window_id: int
    x: int
    y: int
    width: int
    height: int


@dataclass(frozen=True)
class VerdictReached:
    run_id: int
    verdict: str
    reason: str


@dataclass(frozen=True)
class RunFinished:
    run_id: int
    status: str  # "completed" | "stopped" | "error"
    verdict: str
    steps: int
    error: str = ""


EVENT_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (RunStarted, WindowFound, WindowMoved, StepRecorded, FindingRaised, ControlChanged, VerdictReached,
                RunFinished)
}
Event = Any


def event_to_json(event: Event) -> str:
    return json.dumps({"event": type(event).__name__, **asdict(event)}, separators=(",", ":"))


def event_fields(line: str, types: dict[str, type], what: str) -> tuple[type, dict[str, Any]]:
    """The event class a JSON line names (one of ``types``) and its known fields; ``ValueError`` else."""
    data = json.loads(line)
    if not isinstance(data, dict) or data.get("event") not in types:
        raise ValueError(f"not {what}")
    cls = types[data.pop("event")]
    names = {f.name for f in fields(cls)}
    return cls, {k: v for k, v in data.items() if k in names}


def event_from_json(line: str) -> Event:
    """Parse one JSON line written by :func:`event_to_json`; raises ``ValueError``."""
    cls, kwargs = event_fields(line, EVENT_TYPES, "an engine event")
    if "changed_bbox" in kwargs and kwargs["changed_bbox"] is not None:
        kwargs["changed_bbox"] = tuple(kwargs["changed_bbox"])
    return cls(**kwargs)


@dataclass
class EventBus:
    """Synchronous publish/subscribe; subscribers run on the publishing thread."""

    _subscribers: list[Callable[[Event], None]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def subscribe(self, callback: Callable[[Event], None]) -> Callable[[], None]:
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def publish(self, event: Event) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for callback in subscribers:
            callback(event)
