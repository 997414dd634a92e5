"""The one verdict rule (STYLE rule 13): testers supply judgments and findings, the rule gives the verdict."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from app.engine.judge.oracles import Finding
from app.engine.judge.verdict import ANSWERS, Evidence, decide, is_answer
from app.engine.repair.diagnosis import relative_paths

from suite import ROOT

CRASH = Finding("crash", "the program exited with code 1", 3)
NOTE = "seen at step 2"


def rule(criteria: dict[str, str] | None = None, *, findings=(), judges: bool = True, overall=None) -> tuple[str, str]:
    v = decide(Evidence(list(findings), 7, judges, {k: (x, NOTE) for k, x in (criteria or {}).items()}, overall))
    return v.verdict, v.reason


@pytest.mark.parametrize("criteria, findings, overall, expected", [
    ({"a": "pass"}, [CRASH], ("pass", "fine"), "fail"),             # an oracle fails the run whatever was judged
    ({"a": "pass", "b": "fail"}, [], ("pass", "fine"), "fail"),     # so does a failed criterion
    ({"a": "uncertain"}, [], ("fail", "merges are wrong"), "fail"),  # and an overall fail
    ({"a": "pass"}, [], ("uncertain", "cannot tell"), "uncertain"),  # the tester said it could not tell
    ({"a": "pass", "b": "uncertain"}, [], None, "pass"),             # one judged criterion is evidence
    ({"a": "uncertain", "b": "uncertain"}, [], ("pass", "fine"), "uncertain"),  # nothing judged: no pass
    ({}, [], None, "uncertain"),                                     # nothing to judge, no overall judgment
    ({}, [], ("pass", "it plays well"), "pass"),                     # no criteria: the overall judgment counts
    ({"a": "uncertain"}, [], ("error", "the verdict call failed"), "uncertain"),
])
def test_the_rule_for_a_tester_that_judges_criteria(criteria, findings, overall, expected):
    verdict, reason = rule(criteria, findings=findings, overall=overall)
    assert verdict == expected, reason


def test_reasons_say_what_the_verdict_rests_on():
    verdict, reason = rule({"a": "uncertain", "b": "uncertain"})
    assert verdict == "uncertain" and "no criterion was judged" in reason and f"a ({NOTE})" in reason
    assert rule({"a": "pass", "b": "uncertain"})[1] == "1 of 2 criteria passed (a); uncertain: b"
    assert rule({"a": "fail"}, findings=[CRASH])[1] == "crash at step 4: the program exited with code 1; criteria failed: a"
    assert rule({"a": "fail"})[1] == f"criteria failed: a ({NOTE})"
    _, reason = rule({"a": "uncertain"}, overall=("error", "the verdict call failed"))
    assert "no overall judgment either (error: the verdict call failed)" in reason


def test_a_tester_that_judges_no_criteria_passes_on_no_generic_defect():
    verdict, reason = rule({"a": "uncertain"}, judges=False)
    assert verdict == "pass" and reason.startswith("no generic defect seen") and "were not judged" in reason
    assert rule(judges=False, findings=[CRASH])[0] == "fail"


def test_no_answer_is_not_an_answer():
    assert ANSWERS == ("pass", "fail") and is_answer("fail") and not is_answer("uncertain")
    assert not is_answer("error") and not is_answer(None)


def test_every_tester_verdict_goes_through_the_rule():
    """A tester's verdict() hands its evidence to decide(); no tester builds a Verdict itself."""
    for path in sorted((ROOT / "app" / "engine" / "testers").glob("*.py")):
        tree = ast.parse(path.read_text())
        calls = {c.func.id if isinstance(c.func, ast.Name) else c.func.attr for c in ast.walk(tree)
                 if isinstance(c, ast.Call) and isinstance(c.func, (ast.Name, ast.Attribute))}
        if path.name != "base.py" and any(isinstance(n, ast.FunctionDef) and n.name == "verdict" for n in ast.walk(tree)):
            assert "decide" in calls, path.name
        built = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id == "Verdict"]
        assert not built, (path.name, built)


def test_paths_in_what_a_refiner_sees_are_relative_to_the_copy(tmp_path):
    root = tmp_path / "calculator"
    text = (f'File "{root}/calc_logic.py", line 3\n'
            'File "/tmp/playcoder-sandbox-ab12/program/calc_logic.py", line 3\n'
            '/tmp/playcoder-calculator-wrong-subtraction-x1/calculator/main.py:12: in on_key\n'
            '/tmp/pytest-of-x/other/notes.db and /usr/lib/python3/dist-packages/tkinter/__init__.py')
    out = relative_paths(text, root)
    assert out.splitlines() == ['File "calc_logic.py", line 3', 'File "calc_logic.py", line 3', "main.py:12: in on_key",
                                "notes.db and /usr/lib/python3/dist-packages/tkinter/__init__.py"]
    assert "subtraction" not in out and str(Path(root)) not in out
