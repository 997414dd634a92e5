"""A recorder's replay is stored as a replay, not a test run, and its notes name the user's folder."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from suite import TARGETS
from app.engine.rubric.record import REPLAY_KIND, CaseDraft, load_run
from app.engine.trace.store import TrajectoryStore
from app.engine.trace.store_validation import PLAYED
from app.views.browser.runs_model import RunsModel

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from test_recorded_cases_append import _stored_run  # noqa: E402


def test_replay_is_marked_and_suggests_commands_on_the_users_folder(tmp_path):
    target = tmp_path / "rubric_tk"
    shutil.copytree(TARGETS / "rubric_tk", target)
    db = tmp_path / "stored.db"
    draft = CaseDraft(load_run(db, _stored_run(db, target)), criterion="by-hand", name="x")
    draft.mark("similar", 0, region=[0, 0, 20, 40])
    replayed = draft.replay(db)
    assert replayed.run_id is not None and replayed.lines
    text = "\n".join(replayed.lines)
    assert "playcoder-replay-" not in text, text
    assert f"refs record {target}" in text, text  # the case's picture has no fonts manifest: the hint is said
    store = TrajectoryStore(db)
    try:
        row = store.run(replayed.run_id)
        assert row["kind"] == REPLAY_KIND
        played = store.conn.execute(f"SELECT id FROM runs WHERE {PLAYED}").fetchall()
        assert replayed.run_id not in [r[0] for r in played]
    finally:
        store.close()
    assert RunsModel._display(row, "target", row["target"]).endswith("· recorder replay")
