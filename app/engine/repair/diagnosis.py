"""Diagnosis: what went wrong in a play run and in the unit tests, and where.

Built from the store (the run's findings with their step frames, the
target's log) and from the sandboxed unit-test report; it is the input of
both refiners and the text recorded in ``patches.diagnosis``.

What a refiner sees is built from the program copy and the run's findings
only: never the target's label, a bug id or bug metadata.  Absolute paths in
the text (tracebacks, log lines, test output) are rewritten relative to the
program copy by :func:`relative_paths`, because the folders a copy was made
in (``/tmp/playcoder-…``) can carry a label and say nothing about the program.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.engine.step_numbers import step_place
from app.engine.judge.oracles import FAILING_KINDS, TRACEBACK_MARK
from app.engine.judge.verdict import PASS, UNCERTAIN
from app.engine.repair.localize import TraceFrame, parse_traceback
from app.engine.repair.sandbox import Workspace
from app.engine.repair.tools import TestReport
from app.engine.trace.store import TrajectoryStore

LOG_TAIL_LINES = 40
MAX_TEST_FAILURES_SHOWN = 6
SANDBOX_ROOT = "program"
"""The folder name of a sandbox copy of the program (:meth:`~app.engine.repair.sandbox.Executor.copy_of`)."""
ABSOLUTE_PATH = re.compile(r"(?<![\w.~-])/[^\s\"'`<>|:;,()\[\]{}]+")


@dataclass(frozen=True)
class FindingEvidence:
    kind: str
    message: str
    step: int | None
    frame_before: str | None
    frame_after: str | None
    action: dict[str, Any] | None
    log: tuple[str, ...] = ()


@dataclass
class Diagnosis:
    run_id: int | None
    verdict: str
    reason: str
    findings: list[FindingEvidence] = field(default_factory=list)
    log_tail: list[str] = field(default_factory=list)
    frames: list[TraceFrame] = field(default_factory=list)
    exception: str = ""
    exception_message: str = ""
    tests: TestReport | None = None
    test_frames: list[TraceFrame] = field(default_factory=list)
    validation: str = ""
    run_ids: list[int] = field(default_factory=list)
    """Every play run of this state (the tester's, and the rubric tester's when there is one)."""
    notes: list[str] = field(default_factory=list)
    """Feedback from earlier cycles (a rejected patch and why)."""
    root: str = ""
    """The program copy's folder: paths under it are shown relative to it."""

    @property
    def tester_failed(self) -> bool:
        """A tester failed the program or could not play it; *uncertain* is neither a pass nor a failure."""
        return self.verdict not in (PASS, UNCERTAIN)

    @property
    def tests_failed(self) -> bool:
        return self.tests is not None and not self.tests.ok

    @property
    def failing(self) -> bool:
        return self.tester_failed or self.tests_failed

    @property
    def primary_kind(self) -> str:
        """The kind of the first failing finding ('' when only the unit tests fail)."""
        for f in self.findings:
            if f.kind in FAILING_KINDS or f.kind == "exit":
                return f.kind
        return "criterion" if any(f.kind == "criterion" for f in self.findings) else ""

    def criterion_words(self) -> list[str]:
        """Words of the failed rubric criteria's ids (``correct-results`` -> correct, result)."""
        words: list[str] = []
        for f in self.findings:
            if f.kind == "criterion":
                cid = f.message.split(":", 1)[0]
                words.extend(w.rstrip("s") for w in cid.replace("_", "-").split("-") if len(w) > 2)
        return words

    def text(self) -> str:
        out = [f"Play run {self.run_id}: verdict {self.verdict} — {self.reason}"]
        for f in self.findings:
            where = step_place(f.step, "start")
            act = f" after {f.action.get('type', f.action)}" if f.action else ""
            frames = f" (frames {(f.frame_before or '-')[:12]} -> {(f.frame_after or '-')[:12]})" \
                if f.frame_after else ""
            out.append(f"- [{f.kind}] {where}{act}: {f.message}{frames}")
        if self.exception:
            out.append(f"Exception: {self.exception}: {self.exception_message}")
        for fr in self.frames[-4:]:
            out.append(f"  at {fr.path}:{fr.line} in {fr.func}()")
        if self.tests is not None:
            out.append(f"Unit tests: {self.tests.summary()}")
            for name, msg in list(self.tests.failed.items())[:MAX_TEST_FAILURES_SHOWN]:
                first = next((ln for ln in msg.splitlines() if ln.strip()), "")
                out.append(f"- {name}: {first[:300]}")
            if self.tests.error:
                out.append(self.tests.output[-1500:])
        if self.validation:
            out.append(f"Validation:\n{self.validation}")
        if self.log_tail and (self.exception or self.tester_failed):
            out.append("Program log (tail):\n" + "\n".join(self.log_tail[-15:]))
        out.extend(f"Note: {n}" for n in self.notes)
        return relative_paths("\n".join(out), self.root)

    def frame_hashes(self) -> list[str]:
        seen: list[str] = []
        for f in self.findings:
            for h in (f.frame_before, f.frame_after):
                if h and h not in seen:
                    seen.append(h)
        return seen


def build_diagnosis(store: TrajectoryStore, run_id: int | None, workspace: Workspace, tests: TestReport | None,
                    *, verdict: str = "", reason: str = "", validation: str = "") -> Diagnosis:
    """Read a play run back from the store and join it with the unit-test report."""
    diag = Diagnosis(run_id, verdict or "pass", reason, tests=tests, validation=validation,
                     root=workspace.root.as_posix())
    if run_id is not None:
        run = store.run(run_id)
        diag.verdict = verdict or str(run.get("verdict") or "error")
        diag.reason = reason or str(run.get("reason") or run.get("error") or "")
        steps = {s["idx"]: s for s in store.steps(run_id)}
        for row in store.findings(run_id):
            raw = row.get("evidence")
            ev: dict[str, Any] = raw if isinstance(raw, dict) else {}
            step = steps.get(row["step"]) if row.get("step") is not None else None
            diag.findings.append(FindingEvidence(
                row["kind"], row["message"], row.get("step"),
                step.get("frame_before") if step else None, step.get("frame_after") if step else None,
                step.get("action") if step else None, tuple(str(x) for x in ev.get("log", []) or [])))
        for j in store.judgments(run_id):
            if j.get("criterion") and j.get("source") == "tester" and j.get("verdict") == "fail":
                diag.findings.append(FindingEvidence("criterion", f"{j['criterion']}: {j.get('note') or ''}", None,
                                                     None, None, None))
        diag.log_tail = [r["text"] for r in store.logs(run_id)][-LOG_TAIL_LINES:]
    tb_lines: list[str] = []
    for f in diag.findings:
        tb_lines.extend(f.log)
    if any(TRACEBACK_MARK in line for line in diag.log_tail):
        start = max(i for i, line in enumerate(diag.log_tail) if TRACEBACK_MARK in line)
        tb_lines = diag.log_tail[start:]
    if tb_lines:
        diag.frames, diag.exception, diag.exception_message = parse_traceback(tb_lines, workspace)
    if tests is not None:
        for msg in tests.failed.values():
            frames, exc, _ = parse_traceback(msg.splitlines(), workspace)
            diag.test_frames.extend(fr for fr in frames if not fr.path.split("/")[-1].startswith("test_"))
    return diag


def relative_paths(text: str, root: str | Path) -> str:
    """``text`` with absolute paths into the program copy, a sandbox copy or a temporary folder made relative.

    A path under ``root`` becomes relative to it; a path in the temporary
    folder keeps only what follows the copy's own folder (``root``'s name, or
    ``program`` for a sandbox copy), or else only its file name.  Other
    absolute paths (the Python installation) are left as they are.
    """
    base = Path(root).as_posix().rstrip("/") if root else ""
    name = base.rsplit("/", 1)[-1] if base else ""
    temp = Path(tempfile.gettempdir()).resolve().as_posix().rstrip("/")

    def fix(m: re.Match[str]) -> str:
        path = m.group(0)
        if base and (path == base or path.startswith(base + "/")):
            return path[len(base) + 1:] or "."
        if not (path.startswith(temp + "/") or path.startswith("/tmp/")):
            return path
        parts = path.split("/")
        for i, part in enumerate(parts[:-1]):
            if part in (name, SANDBOX_ROOT) and i >= 2:
                return "/".join(parts[i + 1:])
        return parts[-1] or "."

    return ABSOLUTE_PATH.sub(fix, text)
