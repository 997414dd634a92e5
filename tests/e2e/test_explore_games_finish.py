"""The explorer finishes games: on a board played by keys, a key that answered since the last new game comes
after those that did not (a taken square answers no more), and a key that led back to the first screen or to
one screen from two waits as a reset, so games reach their end instead of being restarted half-played."""

from __future__ import annotations

import pytest

from suite import TARGETS, needs_xvfb


@pytest.mark.xvfb
@needs_xvfb
def test_noughts_and_crosses_by_keys_are_played_to_their_end(db_path):
    from app.engine.run.session import RunConfig, Session
    from app.engine.testers.explore.explorer import Explorer
    from app.engine.trace.store import TrajectoryStore

    store = TrajectoryStore(db_path)
    result = Session(RunConfig(str(TARGETS / "board_pg"), max_steps=40, seed=0), store,
                     tester=Explorer(second_clicks=True, go_explore=False)).run()
    rows = store.steps(result.run_id)
    logs = [row["text"] for row in store.logs(result.run_id)]
    store.close()
    assert result.status == "completed", result.error
    ended = [t for t in logs if t.startswith("over ")]
    assert len(ended) >= 2, ([r["action"] for r in rows], logs)  # before: none in 40 steps (a random walk)
