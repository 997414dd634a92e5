"""The model-free explorer playing real programs under Xvfb: tester plans on a Tk form, a return by
restart and replay, keys read from the code."""

from __future__ import annotations

import pytest

from app.engine.run.session import RunConfig, Session
from app.engine.testers.explore import explorer as explorer_module
from app.engine.testers.explore.explorer import Explorer
from app.engine.trace.store import TrajectoryStore

from suite import TARGETS, needs_xvfb


def play(target: str, db_path, explorer: Explorer, steps: int) -> tuple[object, list[dict], list[str]]:
    store = TrajectoryStore(db_path)
    result = Session(RunConfig(target, max_steps=steps, seed=0), store, tester=explorer).run()
    assert result.status == "completed", result.error
    rows = store.steps(result.run_id)
    logs = [row["text"] for row in store.logs(result.run_id)]
    store.close()
    return result, rows, logs


@pytest.mark.xvfb
@needs_xvfb
def test_tester_plans_type_values_that_matter_and_delete_a_selected_row(db_path):
    explorer = Explorer(go_explore=False)
    result, rows, logs = play(str(TARGETS / "form_tk"), db_path, explorer, steps=16)
    assert result.verdict == "pass", result.reason
    plans = [r["rationale"] for r in rows if r["rationale"].startswith("tester plan:")]
    assert plans, [r["rationale"] for r in rows]
    assert any(t.startswith("added ") for t in logs), logs  # a value was typed in and submitted
    assert any(t.startswith("deleted [0]") for t in logs) or any(t == "cleared" for t in logs), logs


@pytest.mark.slow
@pytest.mark.xvfb
@needs_xvfb
def test_a_return_restarts_the_program_and_replays_the_way_to_an_archived_cell(db_path, monkeypatch):
    monkeypatch.setattr(explorer_module, "RETURN_AFTER", 1)
    explorer = Explorer(survival=False)
    result, rows, logs = play(str(TARGETS / "form_tk"), db_path, explorer, steps=24)
    assert any(f.kind == "restart" for f in result.findings), [r["rationale"] for r in rows]
    replays = [r for r in rows if r["rationale"].startswith("return to cell")]
    assert explorer.state.returner.done + explorer.state.returner.failed >= 1 or replays, [r["rationale"] for r in rows]
    assert result.verdict == "pass", result.reason  # a restart the tester asked for is no failure


def test_a_tester_plan_is_not_typed_into_a_dialog_that_opened_over_its_entry():
    """A message box over the form: typed into it, a space presses its button and which letters after it reach
    the entry depends on when the focus came back (two runs of one program disagreed).  No plan starts while a
    dialog is up, and the rest of one is dropped when a dialog opened."""
    import random
    from collections import deque
    from types import SimpleNamespace

    from app.engine.play.actions import Type

    tops = [SimpleNamespace(kind="main")]
    explorer = Explorer(go_explore=False)
    explorer.state.ctx = SimpleNamespace(rng=random.Random(0), windows=SimpleNamespace(toplevels=lambda: list(tops)),
                                   spec=SimpleNamespace(kind="app"))
    explorer.state.queue = deque([(Type("a long text"), "tester plan: a long text (action 2/3)")])
    assert explorer.follow.decide(None).action == Type("a long text")  # no dialog: the plan goes on
    explorer.state.queue = deque([(Type("a long text"), "tester plan: a long text (action 2/3)")])
    tops.append(SimpleNamespace(kind="dialog"))
    assert explorer.follow.decide(None) is None and not explorer.state.queue
    explorer.start_plan.since_plan = 100
    explorer.least._view = SimpleNamespace(dialog=None, fields=[])
    assert explorer.start_plan.decide(SimpleNamespace(frame=SimpleNamespace(width=100, height=100))) is None
