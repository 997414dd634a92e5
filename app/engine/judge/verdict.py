"""The verdict rule: one place that turns a tester's evidence into pass, fail or uncertain.

Testers supply *evidence* — the generic oracles' findings, their criterion
judgments, and (for the LLM tester) the model's own overall judgment — and
never do verdict arithmetic themselves (one rule, so two testers' verdicts mean the same).  The rule, in order:

1. a failing oracle finding (crash, exception, freeze, no response, blank,
   error, exit) makes the run **fail**;
2. so does any criterion judged ``fail``;
3. so does an overall judgment of ``fail`` (the model saw a defect that no
   criterion names);
4. a program the engine's own bound stopped (a ``limit`` finding: the
   sandbox's file-size limit) gets **uncertain**: the run says nothing
   about what came after; and a tester whose overall judgment is
   ``uncertain`` gets **uncertain** too:
   its criteria may have passed, but it said it could not tell;
5. a tester that **judges criteria** passes only on evidence: at least one
   criterion judged ``pass`` — or, for a target with no criteria at all, an
   overall judgment of ``pass``.  With no criterion judged (none, or only
   uncertain ones) its verdict is **uncertain**: "nothing was checked" is not
   a pass.  The reason names every criterion left uncertain;
6. a tester that judges **no criteria by design** (the offline explorer)
   passes when no oracle fired, and its reason says exactly that: no generic
   defect was seen, logic and rubric were not judged.

``error`` is not a verdict of this rule: it is what a session records when the
harness could not play the target (no window, no Xvfb, a provider that never
answered), so no tester evidence exists.  Consumers treat ``uncertain`` and
``error`` alike as *no answer* (:data:`ANSWERS`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from app.engine.step_numbers import step_place
from app.engine.judge.oracles import FAILING_KINDS, Finding

PASS = "pass"
FAIL = "fail"
UNCERTAIN = "uncertain"
ERROR = "error"
VERDICTS = (PASS, FAIL, UNCERTAIN, ERROR)
"""Every value ``runs.verdict`` can hold (NULL aside: a stopped run without a verdict)."""
ANSWERS = (PASS, FAIL)
"""The verdicts that answer "does the program work?"; anything else is no answer."""
NOTE_CHARS = 300
LIMIT = "limit"
"""The finding of a program stopped by the engine's own bound (it is not the program's defect)."""
"""A criterion's note is cut to this length inside a verdict reason."""


@dataclass(frozen=True)
class Verdict:
    """The rule's outcome: the verdict, the sentence that says what it rests on, and the criteria."""

    verdict: str  # pass | fail | uncertain  (a session may record "error" without any Verdict)
    reason: str
    criteria: dict[str, tuple[str, str]] = field(default_factory=dict)
    """criterion id -> (pass | fail | uncertain, evidence note)"""


@dataclass(frozen=True)
class Evidence:
    """What a tester hands the rule."""

    findings: Sequence[Finding]
    steps: int
    judges_criteria: bool
    """True for a tester that judges rubric criteria (script, llm); False for one that cannot (offline)."""
    criteria: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    overall: tuple[str, str] | None = None
    """A tester's own judgment of the whole run (the LLM's verdict call), as (verdict, reason)."""
    scope: str = ""
    """What a pass of a tester that judges no criteria covers (e.g. 'over 7 distinct screens')."""


def is_answer(verdict: str | None) -> bool:
    """True for pass and fail; uncertain, error and no verdict are no answer."""
    return verdict in ANSWERS


def decide(ev: Evidence) -> Verdict:
    """Apply the rule (see the module docstring)."""
    criteria = dict(ev.criteria)
    failed = [cid for cid, (v, _) in criteria.items() if v == FAIL]
    passed = [cid for cid, (v, _) in criteria.items() if v == PASS]
    unsure = [cid for cid, (v, _) in criteria.items() if v not in (PASS, FAIL)]
    overall = ev.overall if ev.overall is not None and ev.overall[0] in ANSWERS else None
    oracle = next((f for f in ev.findings if f.kind in FAILING_KINDS), None)
    if oracle is not None:
        where = " at " + step_place(oracle.step)
        extra = f"; criteria failed: {', '.join(failed)}" if failed else ""
        said = f"; the tester's overall judgment was {overall[0]}: {overall[1]}" if overall is not None else ""
        return Verdict(FAIL, f"{oracle.kind}{where}: {oracle.message}{extra}{said}", criteria)
    if failed:
        return Verdict(FAIL, "criteria failed: " + "; ".join(f"{cid} ({_note(criteria[cid][1])})" for cid in failed)
                       + _unsure_tail(unsure), criteria)
    if overall is not None and overall[0] == FAIL:
        return Verdict(FAIL, overall[1] + _unsure_tail(unsure), criteria)
    bound = next((f for f in ev.findings if f.kind == LIMIT), None)
    if bound is not None:
        where = " at " + step_place(bound.step)
        return Verdict(UNCERTAIN, f"limit{where}: {bound.message}" + _unsure_tail(unsure), criteria)
    if ev.overall is not None and ev.overall[0] == UNCERTAIN:
        got = f"; criteria passed: {', '.join(passed)}" if passed else ""
        return Verdict(UNCERTAIN, f"the tester's overall judgment is uncertain: {_note(ev.overall[1])}{got}"
                       + _unsure_tail(unsure), criteria)
    if not ev.judges_criteria and overall is not None:
        # A tester that judges the whole run another way (differential play: "behaved as the
        # reference did") says what its pass rests on.
        return Verdict(PASS, overall[1], criteria)
    if not ev.judges_criteria:
        scope = f" {ev.scope}" if ev.scope else ""
        return Verdict(PASS, f"no generic defect seen (crash, exception, freeze, no response, blank, glitch) in {ev.steps} "
                             f"steps{scope}; game logic and rubric criteria were not judged by this tester", criteria)
    if passed:
        head = overall[1] + "; " if overall is not None else ""
        return Verdict(PASS, f"{head}{len(passed)} of {len(criteria)} criteria passed ({', '.join(passed)})"
                       + _unsure_tail(unsure), criteria)
    if not criteria and overall is not None:
        return Verdict(PASS, f"{overall[1]} (the target has no rubric criteria; this rests on the overall judgment)",
                       criteria)
    said = ""
    if overall is not None:
        said = f"; the tester's overall judgment ({overall[0]}) rests on no judged criterion"
    elif ev.overall is not None:
        said = f"; no overall judgment either ({ev.overall[0]}: {_note(ev.overall[1])})"
    if not criteria:
        return Verdict(UNCERTAIN, "no criterion was judged: the target has no rubric criteria and the tester gave "
                                  "no overall judgment" + said, criteria)
    why = "; ".join(f"{cid} ({_note(criteria[cid][1])})" for cid in unsure)
    return Verdict(UNCERTAIN, f"no criterion was judged, so nothing supports a pass: uncertain: {why}{said}",
                   criteria)


def _unsure_tail(unsure: list[str]) -> str:
    return f"; uncertain: {', '.join(unsure)}" if unsure else ""


def _note(text: str) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= NOTE_CHARS else flat[:NOTE_CHARS - 1] + "…"
