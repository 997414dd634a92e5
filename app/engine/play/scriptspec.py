"""The ``[[script]]`` section of ``playcoder.toml``: scripted rubric cases, parsed and validated.

A case names one rubric criterion, a list of steps (the same JSON actions a
tester emits) and visual expectations checked on the frames the steps
produce::

    [[script]]
    criterion = "merge-doubles"
    steps = [{action = "press", key = "left"}, {action = "press", key = "down"}]
    expect = [{after = 1, kind = "similar", reference = "refs/merge.png", region = [0, 80, 480, 560]}]

``after`` is the 0-based index of the step whose resulting frame is checked
(default: the last step).  ``within = S`` keeps looking for up to S seconds
(the tester sends short waits) before the expectation fails.  The kinds and
their fields are listed in :data:`KIND_FIELDS`; evaluation lives in
:mod:`app.engine.judge.expectations`.  Nothing here imports numpy: the spec parser
stays light.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from app.engine.play.actions import Action, ActionParseError, action_from_dict
from app.engine.errors import TargetError

MAX_STEPS_PER_CASE = 200
MAX_WITHIN_S = 60.0
COLOUR_RE = re.compile(r"^#[0-9a-fA-F]{6}$")

KIND_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # kind: (required fields, optional fields) besides after / kind / within / note
    "region_changed": (frozenset(), frozenset({"region"})),
    "pixel": (frozenset({"colour"}), frozenset({"at", "region", "tolerance", "min_share"})),
    "similar": (frozenset({"reference"}), frozenset({"region", "threshold"})),
    "differs": (frozenset({"reference"}), frozenset({"region", "threshold"})),
    "similar_to_reference": (frozenset(), frozenset({"region", "threshold"})),
    "not_similar_colours": (frozenset({"region"}), frozenset({"min_contrast"})),
    "text": (frozenset({"region", "contains"}), frozenset()),
}
"""Expectation kinds and their fields; see :mod:`app.engine.judge.expectations` for the semantics."""
_COMMON_FIELDS = frozenset({"after", "kind", "within", "note"})
_CASE_KEYS = frozenset({"criterion", "steps", "expect", "name", "seed", "restart"})


@dataclass(frozen=True)
class Expectation:
    """One visual check on the frame after step ``after`` of its case."""

    after: int
    kind: str
    params: dict[str, Any] = field(default_factory=dict, hash=False)
    within: float = 0.0
    note: str = ""

    def describe(self) -> str:
        shown = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.kind}({shown})" + (f" within {self.within:g} s" if self.within else "")


@dataclass(frozen=True)
class ScriptCase:
    """A scripted interaction for one criterion; ``seed`` pins the seed it was written for."""

    criterion: str
    steps: tuple[Action, ...]
    expect: tuple[Expectation, ...]
    name: str = ""
    seed: int | None = None
    restart: bool = False
    """Start this case on a freshly started program (cases otherwise run one after another in one run)."""

    @property
    def label(self) -> str:
        return self.name or self.criterion

    def applies_to(self, seed: int) -> bool:
        """Whether a run with ``seed`` plays this case (one written for no seed holds for every seed)."""
        return self.seed is None or self.seed == seed


def parse_script(raw: object, criteria_ids: set[str], where: str) -> tuple[ScriptCase, ...]:
    """Validate the raw ``script`` array; every problem is a TargetError naming the case."""

    def fail(msg: str) -> TargetError:
        return TargetError(f"{where}: {msg}.")

    if not isinstance(raw, list):
        raise fail('"script" must be an array of tables ([[script]] with criterion, steps and expect)')
    cases: list[ScriptCase] = []
    for number, case in enumerate(raw, 1):
        at = f"script case {number}"
        if not isinstance(case, dict):
            raise fail(f"{at} must be a table")
        unknown = set(case) - _CASE_KEYS
        if unknown:
            raise fail(f"{at} has unknown key(s) {', '.join(sorted(unknown))}; allowed are "
                       f"{', '.join(sorted(_CASE_KEYS))}")
        criterion = case.get("criterion")
        if not isinstance(criterion, str) or criterion not in criteria_ids:
            known = ", ".join(sorted(criteria_ids)) or "none"
            raise fail(f"{at}: criterion must be the id of a [[criteria]] entry ({known}), not {criterion!r}")
        steps_raw = case.get("steps")
        if not isinstance(steps_raw, list) or not steps_raw or len(steps_raw) > MAX_STEPS_PER_CASE:
            raise fail(f"{at}: steps must be a list of 1 to {MAX_STEPS_PER_CASE} actions "
                       '(e.g. {action = "press", key = "left"})')
        steps: list[Action] = []
        for i, step in enumerate(steps_raw):
            try:
                action = action_from_dict(step)
            except ActionParseError as exc:
                raise fail(f"{at}, step {i}: {exc}") from exc
            if action.name == "finish":
                raise fail(f"{at}, step {i}: a script may not finish the run itself")
            steps.append(action)
        expect_raw = case.get("expect", [])
        if not isinstance(expect_raw, list) or not expect_raw:
            raise fail(f"{at}: expect must be a non-empty list of expectations")
        expect = tuple(_expectation(e, len(steps), _prefixed(fail, f"{at}, expectation {i}"))
                       for i, e in enumerate(expect_raw))
        name = case.get("name", "")
        if not isinstance(name, str):
            raise fail(f"{at}: name must be a string")
        seed = case.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise fail(f"{at}: seed must be an integer")
        restart = case.get("restart", False)
        if not isinstance(restart, bool):
            raise fail(f"{at}: restart must be true or false")
        cases.append(ScriptCase(criterion, tuple(steps), expect, name, seed, restart))
    return tuple(cases)


def _prefixed(fail: Callable[[str], TargetError], where: str) -> Callable[[str], TargetError]:
    return lambda msg: fail(f"{where}: {msg}")


def _expectation(raw: object, n_steps: int, fail: Callable[[str], TargetError]) -> Expectation:
    if not isinstance(raw, dict):
        raise fail("must be a table such as {after = 0, kind = \"region_changed\"}")
    kind = raw.get("kind")
    if kind not in KIND_FIELDS:
        raise fail(f"kind must be one of {', '.join(KIND_FIELDS)}, not {kind!r}")
    required, optional = KIND_FIELDS[kind]
    missing = required - set(raw)
    if missing:
        raise fail(f"{kind} needs {', '.join(sorted(missing))}")
    unknown = set(raw) - required - optional - _COMMON_FIELDS
    if unknown:
        raise fail(f"{kind} has no field(s) {', '.join(sorted(unknown))}")
    after = raw.get("after", n_steps - 1)
    if not _is_int(after) or not 0 <= after < n_steps:
        raise fail(f"after must be a step index from 0 to {n_steps - 1}")
    within = raw.get("within", 0.0)
    if not _is_number(within) or not 0 <= within <= MAX_WITHIN_S:
        raise fail(f"within must be a number of seconds between 0 and {MAX_WITHIN_S:g}")
    params = {k: v for k, v in raw.items() if k not in _COMMON_FIELDS}
    for key in ("region",):
        if key in params and not _is_box(params[key]):
            raise fail("region must be [x0, y0, x1, y1] with x0 < x1 and y0 < y1 (window pixels)")
    if "at" in params and not (isinstance(params["at"], list) and len(params["at"]) == 2
                               and all(_is_int(v) and v >= 0 for v in params["at"])):
        raise fail("at must be [x, y] (window pixels)")
    if kind == "pixel" and ("at" in params) == ("region" in params):
        raise fail("pixel needs exactly one of at = [x, y] or region = [x0, y0, x1, y1]")
    if "colour" in params and not (isinstance(params["colour"], str) and COLOUR_RE.match(params["colour"])):
        raise fail('colour must look like "#rrggbb"')
    for key, low, high in (("tolerance", 0, 255), ("threshold", 0, 1), ("min_share", 0, 1), ("min_contrast", 1, 21)):
        if key in params and not (_is_number(params[key]) and low <= params[key] <= high):
            raise fail(f"{key} must be a number between {low} and {high}")
    for key in ("reference", "contains"):
        if key in params and not (isinstance(params[key], str) and params[key].strip()):
            raise fail(f"{key} must be a non-empty string")
    if "reference" in params and (params["reference"].startswith("/") or ".." in params["reference"].split("/")):
        raise fail("reference must be a path inside the target folder, e.g. refs/start.png")
    note = raw.get("note", "")
    if not isinstance(note, str):
        raise fail("note must be a string")
    return Expectation(int(after), str(kind), params, float(within), note)


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v


def _is_box(v: object) -> bool:
    return (isinstance(v, list) and len(v) == 4 and all(_is_int(x) and x >= 0 for x in v)
            and v[0] < v[2] and v[1] < v[3])
