"""The model-free explorer playing real programs under Xvfb: tester plans on a Tk form, a return by
restart and replay, keys read from the code."""

from __future__ import annotations

import pytest

from app.engine.session import RunConfig, Session
from app.engine.testers.explore import explorer as explorer_module
from app.engine.testers.explore.explorer import Explorer
from app.engine.trace.store import TrajectoryStore

from conftest import TARGETS, needs_xvfb


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
    assert explorer.returner.done + explorer.returner.failed >= 1 or replays, [r["rationale"] for r in rows]
    assert result.verdict == "pass", result.reason  # a restart the tester asked for is no failure
