"""The tester protocol the session loop talks to."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Protocol

from app.engine.play.actions import Action
from app.engine.play.observer import Frame, Observation
from app.engine.judge.oracles import Finding
from app.engine.play.targetspec import TargetSpec


@dataclass(frozen=True)
class Decision:
    action: Action
    rationale: str
    tokens_in: int | None = None
    tokens_out: int | None = None


@dataclass(frozen=True)
class Verdict:
    verdict: str  # "pass" | "fail" | "error"
    reason: str
    criteria: dict[str, tuple[str, str]] = field(default_factory=dict)
    """criterion id -> (pass | fail | uncertain, evidence note)"""


@dataclass
class TesterContext:
    spec: TargetSpec
    seed: int
    max_steps: int
    rng: random.Random
    window_size: tuple[int, int]


class Tester(Protocol):
    name: str

    def begin(self, ctx: TesterContext, first: Observation) -> None: ...

    def decide(self, step: int, obs: Observation) -> Decision: ...

    def observe(self, step: int, before: Frame, decision: Decision, after: Observation, outcome: str) -> None: ...

    def verdict(self, findings: list[Finding], steps: int) -> Verdict: ...
