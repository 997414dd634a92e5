"""A key pressed again and again that never changed anything may act on a selection: the explorer's tester plans
that select a row and then press that key come first (jotter's Ctrl+D ticks off the selected task only; pressed
with nothing selected it was judged a dead key)."""

from __future__ import annotations

from types import SimpleNamespace

from app.engine.play.actions import Hotkey, Press
from app.engine.play.xwidgets import Widget
from app.engine.testers.explore.explorer import PLAN_EVERY, Explorer
from app.engine.testers.explore.keys_from_code import ReadInputs
from app.engine.testers.offline import _View


def _explorer() -> Explorer:
    e = Explorer()
    e.state.ctx = SimpleNamespace(spec=SimpleNamespace(kind="app"), windows=None)  # type: ignore[assignment]
    e.start_plan.since_plan = PLAN_EVERY
    rows = Widget(8, 85, 400, 300, cls="list", source="inside")
    entry = Widget(8, 46, 400, 73, cls="entry", source="inside")
    e.least._view = _View([rows, entry], [rows, entry], {}, [])
    e.state.reads = ReadInputs(keys=["ctrl+d", "delete"])
    return e


def _first_plan(e: Explorer) -> str:
    decision = e.start_plan.decide(SimpleNamespace(frame=SimpleNamespace(width=460, height=430)))  # type: ignore[arg-type]
    assert decision is not None
    return decision.rationale


def test_plans_keep_their_order_while_no_key_is_silent() -> None:
    assert "then ctrl+d" not in _first_plan(_explorer())


def test_the_most_pressed_silent_key_is_tried_after_a_selection_first() -> None:
    e = _explorer()
    e.state.pressed[Press("delete")] = 3
    e.state.pressed[Hotkey(("ctrl", "d"))] = 5
    assert _first_plan(e).endswith("then ctrl+d (action 1/7)")  # two rows added through the entry first
    assert e.state.queue[-1][0] == Hotkey(("ctrl", "d"))


def test_a_key_that_answered_is_not_silent() -> None:
    e = _explorer()
    e.state.pressed[Hotkey(("ctrl", "d"))] = 5
    e.state.responses[Hotkey(("ctrl", "d"))] = 1
    assert "then ctrl+d" not in _first_plan(e)
