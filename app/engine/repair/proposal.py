"""What a refiner hands the loop, and the protocol every refiner follows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from app.engine.repair.checks import CheckResult
from app.engine.repair.diagnosis import Diagnosis
from app.engine.repair.sandbox import Workspace
from app.engine.repair.tools import TestReport
from app.engine.trace.store import TrajectoryStore


@dataclass
class Proposal:
    edits: dict[str, str]
    """relative path -> the file's new text; empty when the refiner has no patch this time"""
    description: str
    check: CheckResult | None = None
    tokens: int = 0
    error: str = ""
    """Why there is no usable patch (malformed model output, nothing passed the gate...)."""
    log: list[str] = field(default_factory=list)
    exhausted: bool = False
    """The refiner has nothing left to try: the loop stops instead of spending iterations."""
    analysis: str = ""
    """The refiner's own diagnosis text (the LLM's root-cause analysis), recorded with the cycle."""


class Refiner(Protocol):
    name: str

    def begin(self, store: TrajectoryStore, session_run: int) -> None:
        """The repair session started; model calls are recorded on ``session_run``."""
        ...

    def propose(self, diag: Diagnosis, workspace: Workspace, iteration: int, baseline: TestReport | None) -> Proposal:
        """A patch for the failure in ``diag``; must not write to ``workspace`` (the loop applies it)."""
        ...

    def rejected(self, proposal: Proposal, why: str) -> None:
        """The loop re-tested the proposal and threw it away; ``why`` says what the re-test showed."""
        ...
