"""Repair sessions and cycles as stored: the shape of ``patches`` rows, written and read back.

The ``patches`` table has a fixed schema; what it has no column for lives as
JSON in two TEXT columns:

* ``files``: ``{"session": <anchor run id>, "target": label, "files": [...],
  "before_run": run id the cycle started from, "retest_runs": [...],
  "description": ..., "outcome": fixed|kept|reverted|rejected|refused|uncertain|no-patch|error,
  "refiner": offline|llm}``
* ``validation``: ``{"text": gate output, "gate": {...}, "verdict": re-test
  verdict, "error": ..., "log": [candidates tried]}``

A session is a ``runs`` row with ``kind = 'repair'``; ``patches.run_id``
points at it.  Rows written by older code (plain text in those columns) are
read back too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from app.engine.trace.store import TrajectoryStore

REPAIR_KIND = "repair"


@dataclass
class CycleRecord:
    iteration: int
    diagnosis: str = ""
    diff: str = ""
    files: list[str] = field(default_factory=list)
    validation: str = ""
    gate: dict[str, Any] | None = None
    retest_run: int | None = None
    retest_runs: list[int] = field(default_factory=list)
    before_run: int | None = None
    before_runs: list[int] = field(default_factory=list)
    verdict: str = ""
    outcome: str = ""
    description: str = ""
    error: str = ""
    tokens: int = 0
    seconds: float = 0.0
    refiner: str = ""
    log: list[str] = field(default_factory=list)
    patch_id: int | None = None
    session: int | None = None

    def files_json(self, session: int, target: str) -> dict[str, Any]:
        return {"session": session, "target": target, "files": self.files, "before_run": self.before_run,
                "before_runs": self.before_runs, "retest_runs": self.retest_runs, "description": self.description, "outcome": self.outcome,
                "refiner": self.refiner}

    def validation_json(self) -> dict[str, Any]:
        return {"text": self.validation, "gate": self.gate, "verdict": self.verdict, "error": self.error,
                "log": self.log}

    def summary(self) -> dict[str, Any]:
        return {"iteration": self.iteration, "diagnosis": self.diagnosis, "diff": self.diff,
                "validation": self.validation, "retest_run": self.retest_run, "verdict": self.verdict or None,
                "outcome": self.outcome, "description": self.description, "error": self.error,
                "files": self.files, "seconds": self.seconds, "tokens": self.tokens}


@dataclass(frozen=True)
class RepairSession:
    run_id: int
    target: str
    status: str
    verdict: str | None
    reason: str
    refiner: str
    cycles: int
    started_at: float


def repair_sessions(store: TrajectoryStore) -> list[RepairSession]:
    """Every repair session, newest first."""
    rows = store.repairs.sessions()
    out = []
    for r in rows:
        config = _json(r.get("config"))
        out.append(RepairSession(int(r["id"]), str(r["target"]), str(r["status"]), r.get("verdict"),
                                 str(r.get("reason") or ""), str(config.get("refiner", "")), int(r["cycles"]),
                                 float(r["started_at"])))
    return out


def cycles(store: TrajectoryStore, session_run: int) -> list[CycleRecord]:
    """The cycles of one session in order."""
    rows = store.repairs.cycles(session_run)
    out = []
    for row in rows:
        files = _json(row.get("files"))
        val = _json(row.get("validation"))
        rec = CycleRecord(
            iteration=int(row.get("iteration") or 0), diagnosis=str(row.get("diagnosis") or ""),
            diff=str(row.get("diff") or ""),
            files=list(files.get("files", [])) if files else _plain_list(row.get("files")),
            validation=str(val.get("text", "")) if val else str(row.get("validation") or ""),
            gate=val.get("gate"), retest_run=row.get("retest_run"),
            retest_runs=list(files.get("retest_runs", [])), before_run=files.get("before_run"),
            before_runs=list(files.get("before_runs") or ([files["before_run"]] if files.get("before_run") else [])),
            verdict=str(val.get("verdict") or ""), outcome=str(files.get("outcome", "")),
            description=str(files.get("description", "")), error=str(val.get("error") or ""),
            tokens=int(row.get("tokens") or 0), seconds=float(row.get("seconds") or 0.0),
            refiner=str(files.get("refiner", "")), log=list(val.get("log") or []), patch_id=int(row["id"]),
            session=session_run)
        out.append(rec)
    return out


def trigger_findings(store: TrajectoryStore, record: CycleRecord) -> list[dict[str, Any]]:
    """What made the cycle start: the findings of the runs it started from, and their failed criteria."""
    out: list[dict[str, Any]] = []
    for run_id in record.before_runs or ([record.before_run] if record.before_run is not None else []):
        out.extend(store.findings(run_id))
        for j in store.judgments(run_id):
            if j.get("criterion") and j.get("source") == "tester" and j.get("verdict") == "fail":
                out.append({"run_id": run_id, "step": None, "criterion": j["criterion"], "kind": "criterion",
                            "message": j.get("note") or "failed", "evidence": None})
    return out


def failure_step(store: TrajectoryStore, record: CycleRecord, trigger: list[dict[str, Any]] | None = None) -> int:
    """The step where the failure shows: the first finding's step in the play the cycle started from; else (a
    failed criterion names no step) that play's last step.  Before and after the patch are shown there."""
    findings = trigger if trigger is not None else trigger_findings(store, record)
    steps = [int(f["step"]) for f in findings if f.get("step") is not None
             and f.get("run_id") in (None, record.before_run)]
    if steps:
        return min(steps)
    count = store.step_count(record.before_run) if record.before_run is not None else 0
    return max(0, count - 1)


def _json(text: Any) -> dict[str, Any]:
    if not isinstance(text, str) or not text.startswith("{"):
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _plain_list(text: Any) -> list[str]:
    if not isinstance(text, str) or not text:
        return []
    try:
        value = json.loads(text)
    except ValueError:
        return [text]
    return [str(v) for v in value] if isinstance(value, list) else [text]
