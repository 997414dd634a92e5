"""Testers declare what they can do : the session reads declarations, never probes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.engine.testers.registry import TESTERS as DECLARED
from app.engine.testers import TESTERS
from app.engine.testers.base import TesterBase
from app.engine.testers.differential import DifferentialTester
from app.engine.testers.explore.explorer import Explorer
from app.engine.testers.llm import LLMTester
from app.engine.testers.offline import OfflineExplorer
from app.engine.testers.script import ScriptTester

ROOT = Path(__file__).resolve().parents[2]
CLASSES: dict[str, list[type[TesterBase]]] = {
    "offline": [Explorer, OfflineExplorer],
    "script": [ScriptTester],
    "llm": [LLMTester],
    "differential": [DifferentialTester],
}


def test_every_tester_name_has_its_classes():
    assert set(CLASSES) == set(TESTERS)


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_a_tester_class_declares_what_the_workbench_says(name):
    for cls in CLASSES[name]:
        assert issubclass(cls, TesterBase)
        assert cls.name == name
        assert cls.lockstep == DECLARED[name].plays_reference, cls


def test_the_hooks_a_tester_does_not_need_do_nothing():
    class Minimal(TesterBase):
        name = "minimal"

    t = Minimal()
    assert (t.lockstep, t.gated, t.from_first_frame) == (False, False, False)
    assert t.wants_restart() is False and t.take_findings() == []
    t.attach(None, 1)  # type: ignore[arg-type]
    t.step_recorded(0)
    t.close()


def test_the_engine_never_probes_a_tester():
    for module in ("run/session.py", "run/step_loop.py"):
        text = (ROOT / "app" / "engine" / module).read_text()
        assert not re.search(r"getattr\((self\.)?tester\b", text), module
