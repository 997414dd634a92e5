"""The gate a patched copy must pass before it replaces the program: build, then the unit tests.

First the oracles: with an :class:`~app.engine.repair.oracle_guard.OracleGuard`
a copy whose unit tests, ``playcoder.toml`` or reference pictures differ from
the repair's start is rejected outright.  Build =
:class:`~app.engine.repair.tools.Validator` (syntax, compile, imports).
Pass = the program's own unit tests, compared with the baseline (the tests'
state before the patch): a patch may not break a test that passed, nor make
one stop running; when ``require_improvement`` is set it must also fix at
least one that failed.  A failing test counts as fixed only when it still
exists, unchanged, and now passes — a test that vanished fixes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from app.engine.repair.oracle_guard import REFUSAL, OracleGuard
from app.engine.repair.sandbox import Limits, Workspace
from app.engine.repair.tools import TestReport, UnitTestRunner, ValidationReport, Validator


@dataclass
class CheckResult:
    ok: bool
    reason: str
    validation: ValidationReport
    tests: TestReport | None = None

    def text(self) -> str:
        parts = [self.validation.text()]
        if self.tests is not None:
            parts.append(f"[tests] {self.tests.summary()}")
            for name, msg in list(self.tests.failed.items())[:5]:
                parts.append(f"  FAILED {name}: {next((ln for ln in msg.splitlines() if ln.strip()), '')[:240]}")
        parts.append(f"=> {'accepted' if self.ok else 'rejected'}: {self.reason}")
        return "\n".join(parts)

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "reason": self.reason, "stages": self.validation.as_dict(),
                "tests": self.tests.as_dict() if self.tests is not None else None}


class Gate:
    def __init__(self, validator: Validator, tests: UnitTestRunner, baseline: TestReport | None, *,
                 require_improvement: bool = False, files: Sequence[str] | None = None,
                 limits: Limits | None = None, guard: OracleGuard | None = None) -> None:
        self.validator = validator
        self.guard = guard
        self.tests = tests
        self.baseline = baseline
        self.require_improvement = require_improvement
        self.files = files
        self.limits = limits

    def __call__(self, workspace: Workspace) -> CheckResult:
        changed = self.guard.changes(workspace) if self.guard is not None else []
        if changed:
            return CheckResult(False, f"the patch changes {', '.join(changed)}: {REFUSAL}", ValidationReport())
        validation = self.validator.validate(workspace, self.files)
        if not validation.ok:
            bad = validation.first_failure()
            return CheckResult(False, f"the {bad.stage if bad else 'build'} check failed", validation)
        report = self.tests.run(workspace, limits=self.limits)
        return CheckResult(*self.judge(report), validation, report)

    def judge(self, report: TestReport) -> tuple[bool, str]:
        if not report.ran:
            if self.baseline is not None and self.baseline.ran:
                return False, "the program's unit tests no longer run after the patch"
            return True, "built; the program has no unit tests"
        had_tests = bool(self.baseline is not None and (self.baseline.passed or self.baseline.failed))
        if report.error and had_tests and not report.passed and not report.failed:
            return False, f"the program's unit tests no longer run after the patch ({report.error})"
        if report.error:
            return False, f"the unit tests did not finish ({report.error})"
        before = set(self.baseline.failed) if self.baseline is not None else set()
        ran_before = before | set(self.baseline.passed) if self.baseline is not None else set()
        after = set(report.failed)
        broken = sorted(after - before)
        if broken:
            return False, f"the patch breaks {len(broken)} unit test(s), e.g. {broken[0]}"
        gone = sorted(ran_before - after - set(report.passed))
        if gone:
            return False, f"{len(gone)} unit test(s) no longer run after the patch, e.g. {gone[0]}"
        fixed = before & set(report.passed)
        if self.require_improvement and before and not fixed:
            return False, f"the {len(before)} failing unit test(s) still fail"
        if fixed:
            return True, f"fixes {len(fixed)} of {len(before)} failing unit test(s)" + \
                ("" if after else "; all unit tests pass")
        return True, f"all {len(report.passed)} unit tests still pass" if not after else "no test got worse"
