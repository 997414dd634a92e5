"""The workbench model (app/views/model/) without Qt: a real SQLite file, events per field, Changes from work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from app.engine.trace.store import TrajectoryStore
from app.views.model.changes import Changes
from app.views.model.workbench_model import WorkbenchModel

ROOT = Path(__file__).resolve().parents[2]


def _run(store: TrajectoryStore, verdict: str) -> int:
    run_id = store.create_run(target="calculator", tester="offline", display="isolated", seed=0, max_steps=1)
    store.finish_run(run_id, status="completed", verdict=verdict, reason="r")
    return run_id


def test_fields_emit_once_per_change_and_an_override_returns_what_it_changed(tmp_path):
    db = tmp_path / "m.db"
    writer = TrajectoryStore(db)
    first, second = _run(writer, "fail"), _run(writer, "pass")
    model = WorkbenchModel()
    seen: list[tuple[str, object]] = []
    for name in ("database", "run_id", "verdict", "overrides", "live_state"):
        getattr(model.events, name).connect(lambda value, name=name: seen.append((name, value)))
    changes_seen: list[Changes] = []
    model.events.changed.connect(changes_seen.append)

    database = model.open_database(db)
    assert seen == [("database", database)] and model.path == db
    model.select_run(first)
    assert ("run_id", first) in seen and ("verdict", "fail") in seen and model.run["id"] == first
    seen.clear()
    model.select_run(first)  # the same run again: no field changed, no event
    assert seen == []

    jid, changes = database.add_override(first, author="ann", verdict="pass", note="it works")
    assert changes == Changes(runs=frozenset({first}), verdict=True) and changes.touches(first)
    model.apply(changes)
    assert changes_seen == [changes]
    assert ("verdict", "pass") in seen and ("overrides", (jid,)) in seen  # re-read because it touched the run shown
    seen.clear()
    model.apply(Changes(runs=frozenset({second}), verdict=True))  # another run: the shown run is not re-read
    assert seen == [] and len(changes_seen) == 2

    undone, changes = database.undo_override(first, "ann")
    assert undone is not None and changes.verdict
    model.apply(changes)
    assert model.verdict == "fail" and model.overrides == ()
    assert database.undo_override(first, "ann") == (None, Changes())  # nothing to undo: nothing changed
    model.apply(Changes())
    assert len(changes_seen) == 3  # empty changes tell no view

    model.set_live(second, "paused")
    assert ("live_state", "paused") in seen
    model.close_database()
    assert model.database is None and model.run_id is None and seen[-1] == ("database", None)
    writer.close()


def test_the_model_runs_with_qt_blocked():
    """Qt-free, as the engine: importing the model and opening a database works with PySide6 unimportable."""
    code = ("import sys, tempfile, pathlib; sys.modules['PySide6'] = None; sys.modules['shiboken6'] = None\n"
            "from app.views.model.workbench_model import WorkbenchModel\n"
            "m = WorkbenchModel(); m.open_database(pathlib.Path(tempfile.mkdtemp()) / 'x.db'); m.select_run(1)\n"
            "print(m.run, m.database.fresh_run_list()[0])")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "None []"
