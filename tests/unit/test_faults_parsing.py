"""Hostile model output: whatever a model writes, parsing ends in an action or a ValueError (re-asked), nothing else."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

from hypothesis import HealthCheck, given, settings, strategies as st

from app.engine.play.actions import Action, ActionParseError, ActionParser, action_to_call, find_json_object
from app.engine.testers.llm import LLMTester

NAMES = ["click", "double_click", "right_click", "drag", "type", "hotkey", "press", "scroll", "wait", "finish",
         "CLICK", "tap", "key", "move", ""]
FIELDS = ["action", "type", "x", "y", "x2", "y2", "text", "keys", "key", "direction", "amount", "seconds", "reason",
          "verdict", "thought", "rationale", "evidence_step", "note"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(FIELDS), inner, max_size=4),
    max_leaves=12)
objects = st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6).map(
    lambda d: d if "action" in d else {**d, "action": d.get("type", "click")})


def _dumps(obj: object) -> str:
    return json.dumps(obj, allow_nan=True, default=str)


calls = st.builds(lambda name, args: f"{name}({args})", st.sampled_from(NAMES),
                  st.text(alphabet="0123456789-+.,'\"() xyz=*[]{}\\", max_size=40))
replies = st.one_of(
    st.text(max_size=300),
    objects.map(_dumps),
    st.builds(lambda pre, obj, post: f"{pre}```json\n{_dumps(obj)}\n```{post}", st.text(max_size=40), objects,
              st.text(max_size=40)),
    calls,
    st.builds(lambda pre, call: f"{pre} {call}", st.text(max_size=60), calls),
    st.builds(lambda a, b: a + b, st.sampled_from(["{" * 200, "(" * 200, "[" * 500, '{"action": ' * 50]),
              st.text(max_size=20)),
)
SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(replies)
def test_the_action_parser_returns_an_action_or_a_parse_error(text: str) -> None:
    t0 = time.monotonic()
    try:
        action = ActionParser().parse(text)
    except ActionParseError as exc:
        assert str(exc) and "\n" not in str(exc)
    else:
        assert isinstance(action, Action.__args__)  # type: ignore[attr-defined]
        ActionParser().parse(action_to_call(action))  # what we record can be read back
    assert time.monotonic() - t0 < 1.0


@SETTINGS
@given(replies)
def test_the_llm_testers_answer_parsers_raise_only_value_errors(text: str) -> None:
    """Its re-ask catches ValueError; anything else would end the run as an internal error."""
    tester = SimpleNamespace(parser=ActionParser())
    for parse in (lambda t: LLMTester._parse_action(tester, t), LLMTester._parse_judgment):  # type: ignore[arg-type]
        try:
            parse(text)
        except ValueError:
            pass


@SETTINGS
@given(st.text(max_size=2000))
def test_finding_json_in_prose_is_quick(text: str) -> None:
    t0 = time.monotonic()
    find_json_object(text)
    assert time.monotonic() - t0 < 1.0
