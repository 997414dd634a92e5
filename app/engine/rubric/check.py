"""``playcoder rubric check``: is each ``[[script]]`` expectation right, and could it catch anything?

A rubric is only as good as its expectations.  Four of six rubric failures on unmodified programs were
authoring mistakes, and an expectation that holds whatever the program does passes every bug.
This plays every case on the program as it is and against controls, and says per expectation:

* ``fails`` — it fails on the program as it is (on one of the seeds played): the case or the expectation is
  wrong, not the program (a real-time game that runs before the first key: declare ``frame_gate``);
* ``unmeasured`` — it could not be measured (the step was not reached, no OCR, no reference picture);
* ``weak`` — it also holds on a **blank window** (one colour: the program's background, the most common
  colour of its first picture), on a **frozen window** (the program's first picture, for ever), or **after no
  input** (the program played with every input of the case replaced by a wait of the same step).  A blank or
  frozen window shows one picture before and after every step, so each expectation is measured on that
  picture pair; no program needs to run for it (a run of one would end at its start: a one-colour window is
  a ``blank`` finding).  The no-input control is a real run of the program;
* ``order`` — it gives another verdict when its case starts on a freshly started program than after the
  cases before it (cases share one run): it depends on where the case before it left the program;
* ``trap`` — what :mod:`app.engine.play.scriptlint` says of the spec (a ``region_changed`` whose two frames
  cannot differ, a colour share over a text label, an "N % white" entry check).

The controls and the order check play the first seed only; the program as it is plays every seed.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from app.engine.testers.registry import RUBRIC
from app.engine.errors import UserError
from app.engine.judge.expectations import ExpectationChecker, Measurement
from app.engine.judge.refs import ReferenceResolver
from app.engine.play.actions import Wait
from app.engine.play.observer import Frame, Observation
from app.engine.play.scriptlint import already_said, lint_case
from app.engine.play.scriptspec import Expectation, ScriptCase
from app.engine.play.targetspec import TargetSpec, load_spec
from app.engine.run.session import RunConfig, RunResult, Session
from app.engine.testers.base import Decision, TesterContext
from app.engine.testers.script import Evidence, ScriptTester
from app.engine.trace.store import TrajectoryStore

DEFAULT_SEEDS = 3
MAX_STEPS = 400
"""Enough for every case of a script (with its ``within`` polls): a check never stops a script early."""
KINDS = ("trap", "fails", "unmeasured", "weak", "order", "run")


@dataclass(frozen=True)
class RubricFinding:
    """One thing wrong with one expectation (or with a whole run, ``expectation`` None)."""

    kind: str
    case: int | None
    """1-based, as the spec's own messages count."""
    label: str
    expectation: int | None
    message: str

    def line(self) -> str:
        where = "" if self.case is None else f"case {self.case} ({self.label})"
        if self.expectation is not None:
            where += f", expectation {self.expectation}"
        return f"{self.kind}: {where + ': ' if where else ''}{self.message}"

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "case": self.case, "label": self.label, "expectation": self.expectation,
                "message": self.message}


@dataclass
class RubricReport:
    target: str
    seeds: list[int]
    findings: list[RubricFinding] = field(default_factory=list)
    runs: list[dict[str, object]] = field(default_factory=list)
    """What was played: ``{"control", "seed", "run_id", "verdict"}``."""
    expectations: int = 0

    def to_dict(self) -> dict[str, object]:
        return {"target": self.target, "seeds": self.seeds, "expectations": self.expectations,
                "findings": [f.to_dict() for f in self.findings], "runs": self.runs}


class CheckingTester(ScriptTester):
    """The script tester, keeping what the controls need: the program's first picture and, for
    ``similar_to_reference``, the reference frames.  ``withhold``: every input becomes a wait (the no-input
    control).  ``isolate``: every case starts on a freshly started program (the order check)."""

    def __init__(self, *, withhold: bool = False, isolate: bool = False, reference: str | None = None,
                 withheld_s: float = 0.3) -> None:
        super().__init__(reference=reference)
        self.withhold = withhold
        self.isolate = isolate
        self.withheld_s = withheld_s
        self.first: Frame | None = None
        self.reference_frames: dict[tuple[int, int], Frame] = {}

    def begin(self, ctx: TesterContext, first: Observation) -> None:
        self.first = first.frame
        self.withheld_s = ctx.spec.timing.react_ms / 1000
        super().begin(ctx, first)

    def wants_restart(self) -> bool:
        if not self.isolate:
            return super().wants_restart()
        if self.pending or not 0 < self.pos < len(self.plan.steps):
            return False
        return self.plan.steps[self.pos][1] == 0

    def decide(self, step: int, obs: Observation) -> Decision:
        decision = super().decide(step, obs)
        if self.withhold and not self.polling and decision.action.name not in ("wait", "finish"):
            decision = Decision(Wait(self.withheld_s), decision.rationale + f" (withheld: {decision.action.name})")
            self._issued = decision
        return decision

    def observe(self, step: int, before: Frame, decision: Decision, after: Observation, outcome: str) -> None:
        if decision is self._issued and not self.polling and self.current is not None:
            ci, si = self.current
            if any(e.kind == "similar_to_reference" and e.after == si for e in self._case(ci).expect):
                self.reference_frames[(ci, si)] = (self.live.frame() if self.live is not None else None) \
                    or after.frame
        super().observe(step, before, decision, after, outcome)


def background(frame: Frame) -> tuple[int, int, int]:
    """The most common colour of a picture (a program's background)."""
    arr = frame.array()
    counts = Counter(map(bytes, arr.reshape(-1, 4)[::7, :3]))
    b, g, r = next(iter(counts.most_common(1)))[0]
    return r, g, b


def blank_like(frame: Frame, colour: tuple[int, int, int]) -> Frame:
    r, g, b = colour
    return Frame(frame.width, frame.height, bytes((b, g, r, 0)) * (frame.width * frame.height), frame.t)


def _lint_prefix(ci: int, case: ScriptCase, ei: int) -> str:
    """How :func:`app.engine.play.scriptlint.lint_case` starts a warning about expectation ``ei``."""
    return f"script case {ci + 1} ({case.label}), expectation {ei}: "


def _has_input_before(case: ScriptCase, exp: Expectation) -> bool:
    return any(step.name != "wait" for step in case.steps[:exp.after + 1])


class RubricCheck:
    """Plays a target's rubric on the program, then on its controls; see the module docstring."""

    def __init__(self, folder: Path, *, seeds: int = DEFAULT_SEEDS, db: Path | None = None,
                 reference: str | None = None, say: Callable[[str], None] = lambda _: None) -> None:
        if seeds < 1:
            raise UserError("--seeds must be at least 1.")
        self.folder = folder.expanduser().resolve()
        self.spec: TargetSpec = load_spec(self.folder)
        if not self.spec.script:
            raise UserError(f"{self.spec.name} has no [[script]] case in its playcoder.toml; there is nothing "
                            "to check.")
        pinned = {c.seed for c in self.spec.script if c.seed is not None}
        self.seeds = sorted(set(range(seeds)) | pinned)
        self.db = db
        self.reference = reference
        self.say = say
        self.report = RubricReport(self.spec.name, self.seeds)
        self.report.expectations = sum(len(c.expect) for c in self.spec.script)

    # -- playing -----------------------------------------------------------------------
    def _play(self, control: str, seed: int, tester: CheckingTester, store: TrajectoryStore) -> RunResult:
        self.say(f"playing {self.spec.name} ({control}, seed {seed})")
        result = Session(RunConfig(target=str(self.folder), tester=RUBRIC, max_steps=MAX_STEPS, seed=seed,
                                   film_fps=0), store, tester=tester).run()
        self.report.runs.append({"control": control, "seed": seed, "run_id": result.run_id,
                                 "verdict": result.verdict})
        if result.status != "completed" or (tester.first is None):
            self._add("run", None, None, f"the {control} run on seed {seed} did not play: "
                                         f"{result.error or result.reason or result.status}")
        return result

    def run(self) -> RubricReport:
        for ci, case in enumerate(self.spec.script):
            warnings = lint_case(ci + 1, case)
            already_said(warnings)  # said here, once, not again on stderr by each play
            for warning in warnings:
                ei = next(i for i in range(len(case.expect)) if warning.startswith(_lint_prefix(ci, case, i)))
                self._add("trap", ci, ei, warning[len(_lint_prefix(ci, case, ei)):])
        with tempfile.TemporaryDirectory(prefix="playcoder-rubric-") as tmp:
            store = TrajectoryStore(self.db or Path(tmp) / "rubric.db")
            try:
                self._run(store)
            finally:
                store.close()
        order = {k: i for i, k in enumerate(KINDS)}
        self.report.findings.sort(key=lambda f: (f.case or 0, f.expectation if f.expectation is not None else -1,
                                                 order[f.kind]))
        return self.report

    def _run(self, store: TrajectoryStore) -> None:
        played: dict[int, dict[tuple[int, int], Evidence]] = {}
        first_tester: CheckingTester | None = None
        for seed in self.seeds:
            tester = CheckingTester(reference=self.reference)
            self._play("program", seed, tester, store)
            played[seed] = {(e.case, i): e for e, i in self._indexed(tester.results())}
            first_tester = first_tester or tester
        self._judge_program(played)
        assert first_tester is not None
        seed0 = self.seeds[0]
        if first_tester.first is None:
            return  # the program did not play (said as a `run` finding): the controls would say nothing
        self._static_controls(first_tester, seed0)
        if any(_has_input_before(c, e) for c in self._cases(seed0) for e in c.expect):
            quiet = CheckingTester(withhold=True, reference=self.reference)
            self._play("no input", seed0, quiet, store)
            self._judge_no_input(quiet, seed0)
        cases = self._cases(seed0)
        if any(not c.restart for c in cases[1:]):
            alone = CheckingTester(isolate=True, reference=self.reference)
            self._play("each case on a fresh start", seed0, alone, store)
            self._judge_order(played[seed0], alone)

    # -- judging ------------------------------------------------------------------------
    def _cases(self, seed: int) -> list[ScriptCase]:
        return [c for c in self.spec.script if c.applies_to(seed)]

    @staticmethod
    def _indexed(results: list[Evidence]) -> list[tuple[Evidence, int]]:
        """Evidence with its expectation's index in its case (results() lists them in case order)."""
        out: list[tuple[Evidence, int]] = []
        seen: Counter[int] = Counter()
        for ev in results:
            out.append((ev, seen[ev.case]))
            seen[ev.case] += 1
        return out

    def _add(self, kind: str, ci: int | None, ei: int | None, message: str) -> None:
        label = self.spec.script[ci].label if ci is not None else ""
        self.report.findings.append(RubricFinding(kind, None if ci is None else ci + 1, label, ei, message))

    def _judge_program(self, played: dict[int, dict[tuple[int, int], Evidence]]) -> None:
        game_hint = ("; a real-time game runs on the wall clock before the first scripted key: declare "
                     "frame_gate = true" if self.spec.kind == "game" and not self.spec.frame_gate else "")
        for ci, case in enumerate(self.spec.script):
            seeds = [s for s in self.seeds if case.applies_to(s)]
            for ei in range(len(case.expect)):
                got = {s: played[s][(ci, ei)] for s in seeds if (ci, ei) in played[s]}
                failed = {s: e for s, e in got.items() if e.verdict == "fail"}
                unsure = {s: e for s, e in got.items() if e.verdict == "uncertain"}
                if failed:
                    s, ev = next(iter(failed.items()))
                    passed = [str(x) for x, e in got.items() if e.verdict == "pass"]
                    also = f" (passes on seed {', '.join(passed)}: it depends on timing or the seed)" if passed else ""
                    self._add("fails", ci, ei, f"fails on the program as it is on seed "
                                               f"{', '.join(map(str, failed))}{also}: {ev.note}{game_hint}")
                elif unsure:
                    s, ev = next(iter(unsure.items()))
                    self._add("unmeasured", ci, ei, f"could not be measured on seed {s}: {ev.note}")

    def _static_controls(self, tester: CheckingTester, seed: int) -> None:
        assert tester.first is not None
        first = tester.first
        colour = background(first)
        pictures = {f"a blank window (all {'#%02x%02x%02x' % colour})": blank_like(first, colour),
                    "a frozen window (the program's first picture, for ever)": first}
        try:
            resolver: ReferenceResolver | None = ReferenceResolver(self.spec)
        except OSError:
            resolver = None
        checker = ExpectationChecker(self.folder, resolver)
        for ci, case in enumerate(self.spec.script):
            if not case.applies_to(seed):
                continue
            for ei, exp in enumerate(case.expect):
                holds = []
                for what, picture in pictures.items():
                    ref = tester.reference_frames.get((ci, exp.after))
                    result: Measurement = checker.check(exp, picture, picture, ref)
                    if result.verdict == "pass":
                        holds.append(f"{what}: {result.note}")
                if holds:
                    self._add("weak", ci, ei, "also holds on " + "; and on ".join(holds)
                              + ": it cannot tell the program from one that shows nothing or does nothing; check "
                                "something the step must show")

    def _judge_no_input(self, quiet: CheckingTester, seed: int) -> None:
        for ev, ei in self._indexed(quiet.results()):
            case = self.spec.script[ev.case]
            if ev.verdict == "pass" and _has_input_before(case, case.expect[ei]):
                self._add("weak", ev.case, ei, f"also holds when the case's inputs are not sent (seed {seed}): "
                                              f"{ev.note}; it does not check what the input does (point it at "
                                              "what only the input changes)")

    def _judge_order(self, together: dict[tuple[int, int], Evidence], alone: CheckingTester) -> None:
        cases = self.spec.script
        for ev, ei in self._indexed(alone.results()):
            ci = ev.case
            before = together.get((ci, ei))
            if before is None or cases[ci].restart or ci == 0 or ev.verdict == "uncertain" \
                    or before.verdict == "uncertain" or ev.verdict == before.verdict:
                continue
            if before.verdict == "fail":
                self._add("order", ci, ei, "fails after the cases before it but passes on a fresh start: cases run "
                                           "one after another without a restart; start the case with the program's "
                                           "reset key, or give it restart = true")
            else:
                self._add("order", ci, ei, f"passes only after the cases before it (on a fresh start: {ev.note}): "
                                           "it depends on where they left the program; give the case the steps that "
                                           "lead there, or restart = true and those steps")


def check_rubric(folder: Path, *, seeds: int = DEFAULT_SEEDS, db: Path | None = None, reference: str | None = None,
                 say: Callable[[str], None] = lambda _: None) -> RubricReport:
    return RubricCheck(folder, seeds=seeds, db=db, reference=reference, say=say).run()
