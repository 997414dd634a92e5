"""The PlayCoder loop: play → (fail) diagnose → refine → apply → validate → re-test, at most T times.

The program passes when its unit tests pass and every tester's verdict is
pass (the offline tester, plus the scripted rubric tester when it exists
and the target has a ``[[script]]`` section).  A patch after which it
passes is a fix only once confirmed on three seeds
(:mod:`~app.engine.repair.confirm`: differential play against a reference
where one is given, else the loop's testers and the offline tester); a patch
that fails that is reverted as ``not fixed``, or ``crash suppressed`` when the
program still crashes on another seed.  A tester that says
*uncertain* neither fails nor passes the program: a repair whose first play
is uncertain has nothing to repair, and a patch after which the testers are
uncertain is not counted as a fix (the session ends "not confirmed").

Refiners see the program copy and the runs' findings only (paths inside
the texts are made relative to the copy, see
:mod:`~app.engine.repair.diagnosis`), and may not change the program's
oracles: a patch that touches a unit test, ``playcoder.toml``, a reference
picture or a tests folder is refused and recorded with outcome ``refused``
(:mod:`~app.engine.repair.oracle_guard`).  A repair session is a run
row of kind ``repair`` (the anchor); every cycle is a ``patches`` row on
it: iteration, diagnosis text, unified diff, files, validation output, the
re-test run id, tokens and seconds.  ``files`` and ``validation`` are JSON
(see :mod:`app.engine.repair.records`).

With a ``bus``, the loop says what it does as it goes
(:mod:`app.engine.repair.events`: the phase, each diagnosis and patch when
made, each cycle when recorded) and its plays publish their own events on
the same bus, so a workbench shows them live.  One ``control`` pauses and
stops the whole repair: the plays check it before every action, the loop
after every play and before every cycle.

A patch that passed the gate but whose re-test is no better (same failure,
or a new one) is reverted, so each cycle starts from the best program so
far; the refiner never gets the same candidate twice.
"""

from __future__ import annotations

import json
import time
import tomllib
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

from app.engine.step_numbers import step_place
from app.engine.play.control import RunControl
from app.engine.play.events import ControlChanged, EventBus
from app.engine.errors import RunStopped, UserError
from app.engine.repair.checks import Gate
from app.engine.repair.confirm import (
    CONFIRM_SEEDS, CRASH_SUPPRESSED, FIXED, CheckPlay, Confirmation, confirm, session_outcome,
)
from app.engine.repair.diagnosis import Diagnosis, build_diagnosis
from app.engine.repair.events import (
    PLAYING, REFINING, RETESTING, VALIDATING, CycleRecorded, DiagnosisMade, PatchChecked, PatchProposed,
    RepairFinished, RepairPhaseChanged, RepairStarted,
)
from app.engine.repair.oracle_guard import OracleGuard, refusal_text
from app.engine.repair.patching import PatchError, apply_atomically, unified_diff
from app.engine.repair.proposal import Proposal, Refiner
from app.engine.repair.records import CycleRecord
from app.engine.repair.sandbox import Workspace
from app.engine.repair.tools import TestReport, UnitTestRunner, Validator
from app.engine.run.session import RunConfig, Session
from app.engine.run.settings import RunSettings
from app.engine.testers.registry import RUBRIC, make_tester, spec
from app.engine.trace.store import TrajectoryStore
from app.engine.play.targetspec import SPEC_FILE
from app.engine.judge.verdict import ERROR, FAIL, PASS, UNCERTAIN

MAX_ITERATIONS = 6
"""T in the paper."""
RUBRIC_TESTER = RUBRIC
PLAY_STEPS = 40
"""Steps of each play, as ``playcoder repair --max-steps`` defaults it."""
EXIT_KIND = "exit"
"""A program that quits on its own while being played is not playable, whatever a tester concluded."""


@dataclass
class RepairConfig:
    target: str
    """The label recorded for the session row (e.g. ``calculator@wrong-subtraction``); never shown to a refiner."""
    max_iterations: int = MAX_ITERATIONS
    settings: RunSettings = field(default_factory=lambda: RunSettings(max_steps=PLAY_STEPS))
    """How every play runs (its tester, step bound, seed, display); the rubric tester's plays take the rest."""

    reference: str | None = None
    """A program that behaves as the repaired one should: only the plays confirming a fix see it (never a refiner)."""

    @property
    def tester(self) -> str:
        return self.settings.tester


@dataclass
class PlayOutcome:
    run_ids: list[int]
    verdict: str
    reason: str

    @property
    def run_id(self) -> int | None:
        return self.run_ids[0] if self.run_ids else None


@dataclass
class RepairResult:
    session_run: int
    target: str
    fixed: bool
    final_verdict: str
    cycles: list[CycleRecord] = field(default_factory=list)
    runs: list[int] = field(default_factory=list)
    seconds: float = 0.0
    reason: str = ""

    @property
    def outcome(self) -> str:
        """fixed, not fixed, crash suppressed or not confirmed: what the CLI, the JSON and the report say."""
        return session_outcome(self.fixed, self.final_verdict, self.reason)

    def summary(self, db: str) -> dict[str, Any]:
        return {"target": self.target, "session_run": self.session_run,
                "iterations": [c.summary() for c in self.cycles], "final_verdict": self.final_verdict,
                "fixed": self.fixed, "outcome": self.outcome, "runs": self.runs, "reason": self.reason, "seconds": round(self.seconds, 2),
                "db": db}


class RepairLoop:
    def __init__(self, store: TrajectoryStore, workspace: Workspace, refiner: Refiner, validator: Validator,
                 tests: UnitTestRunner, config: RepairConfig, *, control: RunControl | None = None,
                 on_cycle: Callable[[CycleRecord], None] | None = None, bus: EventBus | None = None) -> None:
        self.store = store
        self.workspace = workspace
        self.refiner = refiner
        self.validator = validator
        self.tests = tests
        self.config = config
        self.control = control or RunControl()
        self.on_cycle = on_cycle
        self.bus = bus or EventBus()
        self.session_run: int | None = None
        self.runs: list[int] = []
        self.guard = OracleGuard.of(workspace)
        """The oracle files as they were when the repair started (read-only to the refiner)."""

    # -- playing -------------------------------------------------------------------
    def testers(self) -> list[str]:
        names = [self.config.tester]
        if not spec(self.config.tester).needs_script and _has_script(self.workspace):
            try:
                make_tester(RUBRIC_TESTER)
                names.append(RUBRIC_TESTER)
            except UserError:
                pass
        return names

    def play(self) -> PlayOutcome:
        cfg = self.config
        ids, verdicts, reasons = [], [], []
        for tester in self.testers():
            self.control.checkpoint()
            result = Session(RunConfig(str(self.workspace.root), replace(cfg.settings, tester=tester)), self.store,
                             bus=self.bus, control=self.control).run()
            if result.run_id is not None:
                ids.append(result.run_id)
            exited = next((f for f in result.findings if f.kind == EXIT_KIND), None)
            verdict = FAIL if exited is not None else result.verdict
            verdicts.append(verdict)
            why = result.reason or result.error
            if exited is not None and result.verdict != FAIL:
                why = f"the program exited by itself while being played ({step_place(exited.step)}); {why}"
            reasons.append(f"{tester}: {verdict} — {why}")
        self.runs.extend(ids)
        self.control.checkpoint()  # a play stopped (or a pause asked) while it ran stops (pauses) the repair here
        return PlayOutcome(ids, _combined(verdicts), "; ".join(reasons))

    def diagnose(self, play: PlayOutcome, tests: TestReport | None) -> Diagnosis:
        diag = build_diagnosis(self.store, play.run_id, self.workspace, tests, verdict=play.verdict,
                               reason=play.reason)
        diag.run_ids = list(play.run_ids)
        for extra in play.run_ids[1:]:  # the rubric run's findings count too
            more = build_diagnosis(self.store, extra, self.workspace, None)
            diag.findings.extend(more.findings)
        return diag

    # -- the loop ----------------------------------------------------------------------
    def run(self) -> RepairResult:
        cfg = self.config
        t0 = time.monotonic()
        self.session_run = self.store.create_run(
            kind="repair", target=cfg.target, target_path=str(self.workspace.root), tester=cfg.tester,
            display=cfg.settings.display, seed=cfg.settings.seed, max_steps=cfg.settings.steps,
            config={"refiner": self.refiner.name, "max_iterations": cfg.max_iterations,
                    "settings": cfg.settings.recorded()})
        session_run = self.session_run
        self.control.on_change(lambda state: self.bus.publish(ControlChanged(session_run, state)))
        self.bus.publish(RepairStarted(session_run, cfg.target, self.refiner.name, cfg.max_iterations,
                                       str(self.store.path)))
        result = RepairResult(self.session_run, cfg.target, False, "error")
        self.refiner.begin(self.store, self.session_run)
        status = "error"
        try:
            self._run(result)
            status = "completed"
        except RunStopped:
            status, result.reason = "stopped", "stopped by the user"
        except KeyboardInterrupt:
            status, result.reason = "stopped", "interrupted"
            raise
        except UserError as exc:
            result.reason = str(exc)
        except Exception as exc:  # an engine bug: close the session row, then let it surface
            result.reason = f"internal error: {type(exc).__name__}: {exc}"
            raise
        finally:
            result.runs = list(self.runs)
            result.seconds = time.monotonic() - t0
            verdict = _session_verdict(result) if status == "completed" else None
            self.store.finish_run(self.session_run, status=status, verdict=verdict,
                                  reason=result.reason, error="" if status == "completed" else result.reason)
            self.bus.publish(RepairFinished(session_run, status, verdict or "", result.fixed, len(result.cycles),
                                            result.reason))
        return result

    def _run(self, result: RepairResult) -> None:
        cfg = self.config
        baseline: TestReport | None = self.tests.run(self.workspace)
        self._phase(0, PLAYING, "playing the program as it is")
        play = self.play()
        diag = self.diagnose(play, baseline)
        if not diag.failing and diag.verdict == UNCERTAIN:
            result.final_verdict = UNCERTAIN
            result.reason = ("nothing to repair and nothing confirmed: the testers could not judge the program "
                             f"({play.reason})")
            return
        if not diag.failing:
            result.fixed, result.final_verdict = True, PASS
            result.reason = "the program already passes: its unit tests pass and the tester says pass"
            return
        result.final_verdict = FAIL
        for iteration in range(1, cfg.max_iterations + 1):
            self.control.checkpoint()
            started = time.monotonic()
            cycle, diag, baseline, done = self._cycle(iteration, diag, baseline, started)
            result.cycles.append(cycle)
            if self.on_cycle is not None:
                self.on_cycle(cycle)
            assert self.session_run is not None and cycle.patch_id is not None
            self.bus.publish(CycleRecorded(self.session_run, iteration, cycle.patch_id, cycle.outcome, cycle.verdict,
                                           cycle.retest_run, cycle.description))
            if cycle.outcome == FIXED:
                result.fixed, result.final_verdict = True, PASS
                result.reason = f"fixed in iteration {iteration}: {cycle.description} ({cycle.error})"
                return
            if cycle.outcome == UNCERTAIN:
                result.final_verdict = UNCERTAIN
                result.reason = (f"not confirmed: after iteration {iteration} nothing fails any more, but the testers "
                                 f"could not judge the program ({cycle.error})")
                return
            if done:
                result.reason = f"stopped after iteration {iteration}: {cycle.error or cycle.description}"
                return
        result.reason = _unfixed_reason(result.cycles, cfg.max_iterations)

    def _cycle(self, iteration: int, diag: Diagnosis, baseline: TestReport | None,
               started: float) -> tuple[CycleRecord, Diagnosis, TestReport | None, bool]:
        session, before_runs = self.session_run or 0, tuple(diag.run_ids)
        self.bus.publish(DiagnosisMade(session, iteration, diag.text(), before_runs))
        self._phase(iteration, REFINING, f"iteration {iteration}: the {self.refiner.name} refiner looks for a patch")
        try:
            proposal = self.refiner.propose(diag, self.workspace, iteration, baseline)
        except UserError as exc:
            proposal = Proposal({}, "the refiner failed", error=str(exc))
        cycle = CycleRecord(iteration=iteration, diagnosis=_diagnosis_text(diag, proposal), before_run=diag.run_id,
                            before_runs=list(diag.run_ids),
                            description=proposal.description, tokens=proposal.tokens, refiner=self.refiner.name)
        cycle.log = proposal.log
        if proposal.analysis:
            self.bus.publish(DiagnosisMade(session, iteration, cycle.diagnosis, before_runs))
        if proposal.edits:
            self.bus.publish(PatchProposed(session, iteration, proposal.description,
                                           self._proposed_diff(proposal), tuple(sorted(proposal.edits))))
        if not proposal.edits:
            cycle.outcome, cycle.error = "no-patch", proposal.error or proposal.description
            cycle.validation = proposal.error
            diag.notes.append(f"iteration {iteration} produced no patch: {cycle.error}")
            return self._record(cycle, started), diag, baseline, proposal.exhausted
        refused = self.guard.refused(_relative(self.workspace, rel) for rel in proposal.edits)
        if refused:
            cycle.outcome, cycle.error = "refused", refusal_text(refused)
            cycle.validation = cycle.error
            current = {rel: self.workspace.read_text(rel) for rel in proposal.edits
                       if self.workspace.resolve(rel).is_file()}
            cycle.diff = unified_diff(current, proposal.edits)
            diag.notes.append(f"iteration {iteration}: the patch was refused: {cycle.error}")
            self.refiner.rejected(proposal, cycle.error)
            return self._record(cycle, started), diag, baseline, False
        before = self.workspace.snapshot()
        gate = Gate(self.validator, self.tests, baseline, guard=self.guard)
        self._phase(iteration, VALIDATING, f"iteration {iteration}: checking the patch (syntax, imports, unit tests)")
        try:
            applied, check = apply_atomically(self.workspace, proposal.edits, gate)
        except PatchError as exc:
            cycle.outcome, cycle.error, cycle.validation = "error", str(exc), str(exc)
            diag.notes.append(f"iteration {iteration}: the patch could not be applied: {exc}")
            self.refiner.rejected(proposal, str(exc))
            return self._record(cycle, started), diag, baseline, False
        cycle.validation, cycle.gate = check.text(), check.as_dict()
        self.bus.publish(PatchChecked(session, iteration, applied is not None, cycle.validation))
        if applied is None:
            cycle.outcome, cycle.error = "rejected", check.reason
            diag.notes.append(f"iteration {iteration}: the patch was rejected before the re-test: {check.reason}")
            self.refiner.rejected(proposal, check.reason)
            return self._record(cycle, started), diag, baseline, False
        cycle.diff, cycle.files = applied.diff, applied.files
        self._phase(iteration, RETESTING, f"iteration {iteration}: re-testing the patched program")
        play = self.play()
        cycle.retest_run, cycle.retest_runs, cycle.verdict = play.run_id, play.run_ids, play.verdict
        new = self.diagnose(play, check.tests)
        if not new.failing and new.verdict == UNCERTAIN:
            cycle.outcome, cycle.error = UNCERTAIN, play.reason
            return self._record(cycle, started), new, check.tests, True
        if not new.failing:
            confirmed = self._confirm(iteration)
            cycle.outcome, cycle.error = confirmed.state, confirmed.reason
            if confirmed.fixed:
                return self._record(cycle, started), new, check.tests, True
            self.workspace.restore(before)
            self.refiner.rejected(proposal, confirmed.reason)
            diag.notes.append(f"iteration {iteration}: {proposal.description} was reverted: {confirmed.reason}")
            return self._record(cycle, started), diag, baseline, False
        if _improved(diag, new):
            cycle.outcome = "kept"
            new.notes = diag.notes + [f"iteration {iteration} kept {proposal.description}: it made progress"]
            return self._record(cycle, started), new, check.tests, False
        self.workspace.restore(before)
        cycle.outcome = "reverted"
        why = f"the re-test still fails ({play.reason})"
        self.refiner.rejected(proposal, why)
        diag.notes.append(f"iteration {iteration}: {proposal.description} was reverted: {why}")
        return self._record(cycle, started), diag, baseline, False

    def _confirm(self, iteration: int) -> Confirmation:
        """The re-test passed: a fix only if it holds on every seed (:mod:`app.engine.repair.confirm`)."""
        self._phase(iteration, RETESTING, f"iteration {iteration}: confirming the fix on {CONFIRM_SEEDS} seeds")
        return confirm(self._play_one, self.testers(), self.config.settings.seed, self.config.reference)

    def _play_one(self, tester: str, seed: int, options: Mapping[str, Any]) -> CheckPlay:
        self.control.checkpoint()
        settings = replace(self.config.settings, tester=tester, seed=seed, tester_options=dict(options))
        result = Session(RunConfig(str(self.workspace.root), settings), self.store, bus=self.bus,
                         control=self.control).run()
        if result.run_id is not None:
            self.runs.append(result.run_id)
        kinds = frozenset(f.kind for f in result.findings)
        verdict = FAIL if EXIT_KIND in kinds else result.verdict
        return CheckPlay(result.run_id, verdict, result.reason or result.error or "", kinds)

    def _phase(self, iteration: int, phase: str, text: str) -> None:
        self.bus.publish(RepairPhaseChanged(self.session_run or 0, iteration, phase, text))

    def _proposed_diff(self, proposal: Proposal) -> str:
        """The proposal as a unified diff against the program as it is now (for people, before the gate)."""
        current: dict[str, str] = {}
        for rel in proposal.edits:
            try:
                if self.workspace.resolve(rel).is_file():
                    current[rel] = self.workspace.read_text(rel)
            except (UserError, OSError, UnicodeDecodeError):  # outside the copy or unreadable: shown as new
                continue
        try:
            return unified_diff(current, proposal.edits)
        except Exception:  # noqa: BLE001 - a diff for people must never end the repair
            return ""

    def _record(self, cycle: CycleRecord, started: float) -> CycleRecord:
        cycle.seconds = round(time.monotonic() - started, 3)
        assert self.session_run is not None
        cycle.patch_id = self.store.repairs.add_cycle({
            "run_id": self.session_run, "iteration": cycle.iteration, "diagnosis": cycle.diagnosis,
            "diff": cycle.diff, "files": json.dumps(cycle.files_json(self.session_run, self.config.target)),
            "validation": json.dumps(cycle.validation_json()), "retest_run": cycle.retest_run,
            "tokens": cycle.tokens, "seconds": cycle.seconds, "at": time.time(),
        })
        return cycle


def _diagnosis_text(diag: Diagnosis, proposal: Proposal) -> str:
    text = diag.text()
    if proposal.analysis:
        text += "\n\nRefiner analysis:\n" + proposal.analysis.strip()
    return text


def _relative(workspace: Workspace, path: str) -> str:
    """``path`` relative to the program copy (as given when it points outside, which the patch step refuses)."""
    try:
        return workspace.relative(path)
    except UserError:
        return path


def _unfixed_reason(cycles: list[CycleRecord], iterations: int) -> str:
    """Why the loop ended without a fix; a patch that only hid a crash says so first (the session's outcome)."""
    hidden = next((c for c in reversed(cycles) if c.outcome == CRASH_SUPPRESSED), None)
    if hidden is not None:
        return f"{CRASH_SUPPRESSED}: after {iterations} iterations; iteration {hidden.iteration}: {hidden.error}"
    return f"not fixed after {iterations} iterations"


def _session_verdict(result: RepairResult) -> str:
    """pass when fixed, uncertain when the testers could not confirm either way, else fail."""
    if result.fixed:
        return PASS
    return UNCERTAIN if result.final_verdict == UNCERTAIN else FAIL


def _combined(verdicts: list[str]) -> str:
    """One verdict for a state played by several testers: any fail fails, then error, then uncertain."""
    for v in (FAIL, ERROR, UNCERTAIN):
        if v in verdicts:
            return v
    return PASS if verdicts and all(v == PASS for v in verdicts) else ERROR


def _improved(old: Diagnosis, new: Diagnosis) -> bool:
    old_failed = set(old.tests.failed) if old.tests is not None else set()
    new_failed = set(new.tests.failed) if new.tests is not None else set()
    new_passed = set(new.tests.passed) if new.tests is not None else set()
    tests_better = new_failed <= old_failed and bool(old_failed & new_passed)
    tester_better = old.tester_failed and not new.tester_failed
    tester_worse = new.tester_failed and (not old.tester_failed or new.primary_kind != old.primary_kind)
    return (tests_better or tester_better) and not tester_worse


def _has_script(workspace: Workspace) -> bool:
    try:
        data = tomllib.loads(workspace.read_text(SPEC_FILE))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError):
        return False
    return bool(data.get("script"))
