import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.play.actions import (
    ActionParseError, ActionParser, Click, DoubleClick, Drag, Finish, Hotkey, Press, RightClick, Scroll, Tap, Type, Wait,
    action_from_dict, action_to_call, action_to_dict,
)

P = ActionParser()


@pytest.mark.parametrize("text, expected", [
    ("click(120, 80)", Click(120, 80)),
    ("double_click(1, 2)", DoubleClick(1, 2)),
    ("right_click(x=5, y=6)", RightClick(5, 6)),
    ("drag(1, 2, 30, 40)", Drag(1, 2, 30, 40)),
    ('type("hello world")', Type("hello world")),
    ("hotkey('ctrl', 'S')", Hotkey(("ctrl", "S"))),
    ('press("Enter")', Press("enter")),
    ('scroll(10, 20, "up", 3)', Scroll(10, 20, "up", 3)),
    ('tap("space", 6)', Tap("space", 6)),
    ('{"action": "tap", "key": "up"}', Tap("up", 3)),
    ("wait(0.5)", Wait(0.5)),
    ('finish("fail", "pipes do not collide")', Finish("fail", "pipes do not collide")),
    ('Thought: the button is at the top.\nAction: click(12.6, 3)', Click(13, 3)),
    ('```json\n{"action": "press", "key": "space", "rationale": "flap"}\n```', Press("space")),
    ('{"type": "click", "x": 3, "y": 4}', Click(3, 4)),
    ('{"action": "hotkey", "keys": ["ctrl", "z"]}', Hotkey(("ctrl", "z"))),
    ('{"action": "finish", "verdict": "success"}', Finish("pass", "")),
])
def test_parses_both_forms(text, expected):
    assert P.parse(text) == expected


@pytest.mark.parametrize("text, fragment", [
    ("", "empty"),
    ("click(1)", "needs y"),
    ("explode(1, 2)", "no action found"),
    ('{"action": "explode"}', "unknown action"),
    ("click(__import__('os').system('id'), 1)", "plain numbers or strings"),
    ("click(1, 2", "not closed"),
    ('scroll(1, 2, "sideways")', "direction"),
    ('tap("space", 21)', "times must be between"),
    ("wait(1e9)", "between"),
    ('finish("maybe")', "verdict"),
    ('press("not a key name at all because it is long")', "not a key name"),
    ("x" * 5000, "longer than"),
    ("click(True, 2)", "plain numbers or strings"),
    ('{"action": "click", "x": true, "y": 2}', "must be a number"),
])
def test_refuses_with_a_reason(text, fragment):
    with pytest.raises(ActionParseError, match=fragment):
        P.parse(text)


def test_round_trip_dict_and_call_form():
    for action in (Click(1, 2), Drag(1, 2, 3, 4), Type('a "q"'), Hotkey(("ctrl", "c")), Scroll(1, 2, "left", 2),
                   Wait(1.5), Finish("pass", "ok"), Press("space"), RightClick(0, 0), DoubleClick(9, 9), Tap("space", 4)):
        assert action_from_dict(json.loads(json.dumps(action_to_dict(action)))) == action
        assert P.parse(action_to_call(action)) == action


@settings(max_examples=1500, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_an_action_or_a_clear_error(text):
    try:
        result = P.parse(text)
    except ActionParseError as exc:
        assert str(exc)
    else:
        assert result.name in {"click", "double_click", "right_click", "drag", "type", "hotkey", "press",
                               "tap", "scroll", "wait", "finish"}


call_names = st.sampled_from(["click", "press", "type", "drag", "scroll", "wait", "finish", "hotkey", "double_click"])
args = st.lists(st.one_of(st.integers(), st.floats(allow_nan=True), st.text(max_size=20), st.booleans(),
                          st.none()), max_size=5)


@settings(max_examples=1500, deadline=None)
@given(call_names, args)
def test_call_form_fuzz(name, values):
    text = f"{name}({', '.join(repr(v) for v in values)})"
    try:
        P.parse(text)
    except ActionParseError as exc:
        assert str(exc)


@settings(max_examples=800, deadline=None)
@given(st.dictionaries(st.sampled_from(["action", "type", "x", "y", "x2", "y2", "text", "key", "keys", "verdict",
                                        "seconds", "direction", "amount", "reason"]),
                       st.one_of(st.integers(), st.text(max_size=10), st.floats(), st.lists(st.text(max_size=5)),
                                 st.none(), st.dictionaries(st.text(max_size=3), st.integers()))))
def test_json_form_fuzz(obj):
    try:
        P.parse(json.dumps(obj))
    except ActionParseError as exc:
        assert str(exc)
