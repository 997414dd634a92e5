"""The scripted rubric tester: replays the target's ``[[script]]`` cases and judges each criterion.

The cases are played in order in one run, without a restart between them (a
case that needs a fresh state starts with the program's own reset key, or says
``restart = true``: the session then starts the program afresh before it).
A pygame game whose target declares ``frame_gate = true`` stands on the frame
gate from its first frame, so a scripted key lands at the frame the case means
however slow the machine (``within`` then counts game time).
After each step the expectations attached to it are measured on the frame
the step produced (and the one before it); an expectation with ``within`` that does not hold yet is
re-measured after short waits until it holds or its time is up — the only
waits the tester adds on its own.  A criterion fails when any of its
expectations fails, is uncertain when one could not be measured (not reached
within --max-steps, no OCR, no reference picture, a case written for another
seed), and passes otherwise.  Only the cases written for the run's seed (or
for any seed) are played.  The verdict comes from the rule in
:mod:`app.engine.judge.verdict`: the run fails when a criterion fails or a
generic oracle fired, and passes only when at least one criterion passed; a
run whose cases were all written for another seed, or whose criteria all
stayed uncertain, is *uncertain*.

``record_refs=True`` (used by ``playcoder refs record`` and ``python -m
benchmark.record_refs`` on a reference program, never by ``playcoder test``)
saves the frame of every ``similar`` expectation under ``record_dir`` as its
reference picture instead of comparing.  Otherwise the pictures are resolved
by :class:`app.engine.judge.refs.ReferenceResolver` (local store first, then
the committed file); when the reference program is known and no fitting
picture exists, they are recorded on this machine before the first step.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.engine.step_numbers import step_number, step_place
from app.engine.play.actions import Finish, Wait
from app.engine.errors import UserError
from app.engine.judge.expectations import ExpectationChecker, Measurement
from app.engine.judge.refs import ReferenceResolver, reference_names
from app.engine.play.observer import Frame, Observation
from app.engine.judge.oracles import Finding
from app.engine.judge import verdict as rule
from app.engine.play.scriptspec import Expectation, ScriptCase
from app.engine.play.targetspec import TargetSpec
from app.engine.testers.live_reference import LiveReference
from app.engine.testers.base import Decision, TesterBase, TesterContext, Verdict

POLL_S = 0.15
"""Wait between re-measurements of a 'within' expectation (plus the session's settle time)."""
VERDICT_ORDER = {"fail": 0, "uncertain": 1, "pass": 2}


@dataclass
class Evidence:
    """What one expectation measured, where."""

    case: int
    case_label: str
    criterion: str
    expectation: Expectation
    verdict: str
    measured: Any = None
    note: str = ""
    step: int | None = None

    def sentence(self) -> str:
        where = step_place(self.step, "not reached")
        return f"case {self.case + 1} ({self.case_label}), {where}: {self.expectation.kind} — {self.note}"

    def to_dict(self) -> dict[str, Any]:
        return {"case": self.case + 1, "criterion": self.criterion, "step": self.step,
                "after": self.expectation.after, "kind": self.expectation.kind,
                "expectation": self.expectation.params, "within": self.expectation.within,
                "verdict": self.verdict, "measured": self.measured, "note": self.note}


@dataclass
class _Pending:
    case: int
    index: int
    before: Frame | None
    deadline: float
    last: Measurement
    step: int


@dataclass
class _Plan:
    cases: list[ScriptCase]
    steps: list[tuple[int, int]] = field(default_factory=list)  # (case, step index) in play order
    skipped: dict[int, str] = field(default_factory=dict)       # case -> why it is not played


class ScriptTester(TesterBase):
    name = "script"
    from_first_frame = True
    """A target that declares ``frame_gate = true`` is a pygame game played on the frame gate from its first
    frame: the start-up watch plays none of its frames, and a scripted key lands at the frame the case means,
    however slow the machine (a snake does not hit the wall before the first key)."""

    def __init__(self, record_refs: bool = False, poll_s: float = POLL_S, record_dir: Path | None = None,
                 reference: str | None = None) -> None:
        self.record_refs = record_refs
        self.reference_arg = reference
        """``--reference``: the program ``similar_to_reference`` compares with (default: the known-good one)."""
        self.live: LiveReference | None = None
        self.record_dir = record_dir
        """Where record mode saves the pictures (default: the played folder)."""
        self.poll_s = poll_s
        self.ctx: TesterContext | None = None
        self.plan = _Plan([])
        self.pos = 0
        self.current: tuple[int, int] | None = None
        self.polling = False
        self.pending: list[_Pending] = []
        self.evidence: dict[tuple[int, int], Evidence] = {}
        self.news: list[str] = []
        self.checker: ExpectationChecker | None = None
        self.recorded: list[str] = []
        self.recorded_refs: dict[str, str] = {}
        """record mode: reference name -> the file saved"""
        self.refs: ReferenceResolver | None = None
        self._issued: Decision | None = None
        self._clock = 0.0
        self._clock_source: tuple[str, int, float] | None = None

    # -- protocol ----------------------------------------------------------------
    def begin(self, ctx: TesterContext, first: Observation) -> None:
        spec = ctx.spec
        if not spec.script:
            raise UserError(f"{spec.name} has no [[script]] section in its playcoder.toml; add scripted cases "
                            "or use --tester offline.")
        self.ctx = ctx
        self.refs = None if self.record_refs else self._references(spec, ctx.seed)
        self.checker = ExpectationChecker(spec.folder, self.refs)
        self.plan = _Plan(list(spec.script))
        for ci, case in enumerate(spec.script):
            if not case.applies_to(ctx.seed):
                self.plan.skipped[ci] = f"the case was written for seed {case.seed}, this run uses seed {ctx.seed}"
                continue
            self.plan.steps.extend((ci, si) for si in range(len(case.steps)))
        played = [c for ci, c in enumerate(spec.script) if ci not in self.plan.skipped]
        if not self.record_refs and any(e.kind == "similar_to_reference" for c in played for e in c.expect):
            self.live = LiveReference.for_target(spec, ctx.seed, self.reference_arg)
            self.live.start()

    def _now(self) -> float:
        """The clock of ``within``: game time on a frame gate (frames played), where the game moves only as the
        engine lets it, else the wall clock; it only moves on (a restarted program's gate starts at frame 0)."""
        player = self.ctx.player if self.ctx is not None else None
        gate = player.gate if player is not None else None
        source = (("game", id(gate), float(gate.frames) / float(gate.fps)) if gate is not None and gate.active
                  and gate.fps else ("wall", 0, time.monotonic()))
        if self._clock_source is not None and self._clock_source[:2] == source[:2]:
            self._clock += max(0.0, source[2] - self._clock_source[2])
        self._clock_source = source
        return self._clock

    def wants_restart(self) -> bool:
        """Before a case with ``restart = true`` (not the first played: the run starts on a fresh program)."""
        if self.pending or not 0 < self.pos < len(self.plan.steps):
            return False
        ci, si = self.plan.steps[self.pos]
        return si == 0 and self._case(ci).restart

    def restarted(self, obs: Observation) -> None:
        """The session restarted the program for a case: the live reference starts afresh with it."""
        if self.live is not None and self.ctx is not None:
            self.live.close()
            self.live = LiveReference.for_target(self.ctx.spec, self.ctx.seed, self.reference_arg)
            self.live.start()

    def decide(self, step: int, obs: Observation) -> Decision:
        self._issued = decision = self._decide()
        return decision

    def _decide(self) -> Decision:
        news = self._take_news()
        if self.pending:
            self.polling = True
            what = "; ".join(f"{self._case(p.case).label}: {self._exp(p).kind}" for p in self.pending)
            left = max(p.deadline for p in self.pending) - self._now()
            return Decision(Wait(self.poll_s), news + f"waiting up to {max(left, 0):.1f} s more for: {what}")
        self.polling = False
        if self.pos >= len(self.plan.steps):
            verdict = self._judge([])
            return Decision(Finish(verdict.verdict, verdict.reason), news + "script finished")
        ci, si = self.plan.steps[self.pos]
        self.pos += 1
        self.current = (ci, si)
        case = self._case(ci)
        if self.live is not None:
            self.live.send(case.steps[si])  # the reference program plays the same step meanwhile
        return Decision(case.steps[si], news + f"script case {ci + 1} ({case.label}) step {si + 1}/{len(case.steps)}")

    def observe(self, step: int, before: Frame, decision: Decision, after: Observation, outcome: str) -> None:
        if decision is not self._issued:
            return  # a human's take-over action: it belongs to no scripted step
        self._issued = None
        if self.polling:
            self._poll(step, after.frame)
            return
        if self.current is None or isinstance(decision.action, Finish):
            return
        ci, si = self.current
        for ei, exp in enumerate(self._case(ci).expect):
            if exp.after != si:
                continue
            result = self._measure(exp, before, after.frame)
            if result.verdict == "fail" and exp.within > 0:
                self.pending.append(_Pending(ci, ei, before, self._now() + exp.within, result, step))
                continue
            self._settle(ci, ei, result, step)

    def verdict(self, findings: list[Finding], steps: int) -> Verdict:
        return self._judge(findings)

    # -- measuring -------------------------------------------------------------------
    def _measure(self, exp: Expectation, before: Frame | None, after: Frame) -> Measurement:
        assert self.checker is not None
        if self.record_refs and exp.kind == "similar":
            name = str(exp.params["reference"])
            path = (self.record_dir / name) if self.record_dir is not None else self.checker.reference_path(exp)
            path.parent.mkdir(parents=True, exist_ok=True)
            after.image().save(path)
            self.recorded.append(str(path))
            self.recorded_refs[name] = str(path)
            return Measurement("pass", None, f"recorded {exp.params['reference']}")
        if exp.kind == "similar_to_reference":
            if self.record_refs:
                return Measurement("pass", None, "nothing to record: compared with the live reference program")
            return self.checker.check(exp, before, after, self.live.frame() if self.live is not None else None)
        return self.checker.check(exp, before, after)

    def close(self) -> None:
        """Stop the live reference program, if one was played (the session calls this at the end)."""
        if self.live is not None:
            self.live.close()
            self.live = None

    def _references(self, spec: TargetSpec, seed: int) -> ReferenceResolver | None:
        """The resolver of the run's reference pictures; records them first when it should."""
        if not reference_names(spec.script, seed):
            return None
        try:
            resolver = ReferenceResolver(spec)
            if resolver.should_record(seed):
                resolver.record(seed)
                self.news.append(resolver.note)
        except OSError as exc:  # an unreadable store or folder: judge with the committed pictures
            self.news.append(f"the local reference store could not be used ({exc})")
            return None
        return resolver

    def _poll(self, step: int, frame: Frame) -> None:
        still: list[_Pending] = []
        now = self._now()
        for p in self.pending:
            result = self._measure(self._exp(p), p.before, frame)
            if result.verdict != "fail":
                self._settle(p.case, p.index, result, step)
            elif now >= p.deadline:
                exp = self._exp(p)
                self._settle(p.case, p.index, Measurement(
                    "fail", result.measured, f"{result.note}; still so {exp.within:g} s after step {step_number(p.step)}"), step)
            else:
                p.last = result
                still.append(p)
        self.pending = still

    def _settle(self, ci: int, ei: int, result: Measurement, step: int) -> None:
        case = self._case(ci)
        ev = Evidence(ci, case.label, case.criterion, case.expect[ei], result.verdict, result.measured,
                      result.note, step)
        self.evidence[(ci, ei)] = ev
        self.news.append(f"{result.verdict.upper()} {ev.sentence()}")

    def _take_news(self) -> str:
        if not self.news:
            return ""
        text = "checked: " + " | ".join(self.news) + ". "
        self.news = []
        return text

    # -- judging -----------------------------------------------------------------------
    def results(self) -> list[Evidence]:
        """Every expectation of every case: measured, or uncertain with the reason it was not."""
        out: list[Evidence] = []
        for ci, case in enumerate(self.plan.cases):
            for ei, exp in enumerate(case.expect):
                ev = self.evidence.get((ci, ei))
                if ev is None:
                    pending = next((p for p in self.pending if (p.case, p.index) == (ci, ei)), None)
                    if pending is not None:
                        why = f"the run ended while waiting ({pending.last.note})"
                    else:
                        why = self.plan.skipped.get(ci, "the run ended before this step (raise --max-steps, "
                                                        "or the program stopped)")
                    ev = Evidence(ci, case.label, case.criterion, exp, "uncertain", None, why,
                                  pending.step if pending else None)
                out.append(ev)
        return out

    def criteria(self) -> dict[str, tuple[str, str]]:
        by_criterion: dict[str, list[Evidence]] = {}
        for ev in self.results():
            by_criterion.setdefault(ev.criterion, []).append(ev)
        out: dict[str, tuple[str, str]] = {}
        ids = [c.id for c in self.ctx.spec.criteria] if self.ctx is not None else list(by_criterion)
        for cid in ids:
            evs = by_criterion.get(cid)
            if not evs:
                out[cid] = ("uncertain", "no script case covers this criterion")
                continue
            # A case written for another seed says nothing about this run; the criterion rests
            # on the cases that were played for it, if any were.
            evs = [e for e in evs if e.case not in self.plan.skipped] or evs
            worst = min(evs, key=lambda e: VERDICT_ORDER[e.verdict])
            shown = [e for e in evs if e.verdict == worst.verdict] if worst.verdict != "pass" else evs
            out[cid] = (worst.verdict, "; ".join(e.sentence() for e in shown))
        return out

    def _judge(self, findings: list[Finding]) -> Verdict:
        """The verdict rule over the oracles' findings and the criteria the played cases judged."""
        criteria = self.criteria()
        if self.plan.cases and len(self.plan.skipped) == len(self.plan.cases) and self.ctx is not None:
            note = f"no scripted case applies to seed {self.ctx.seed}: {next(iter(self.plan.skipped.values()))}"
            criteria = {cid: ("uncertain", note) if v == "uncertain" else (v, n) for cid, (v, n) in criteria.items()}
        return rule.decide(rule.Evidence(findings, self.pos, judges_criteria=True, criteria=criteria))

    def _case(self, ci: int) -> ScriptCase:
        return self.plan.cases[ci]

    def _exp(self, p: _Pending) -> Expectation:
        return self.plan.cases[p.case].expect[p.index]
