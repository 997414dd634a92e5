"""The run view follows the workbench model's changes: work that changed the run shown re-reads it,
whatever else saw the change, and no change re-reads it twice."""

from __future__ import annotations

import time

from views_support import isolated_settings, window, make_synthetic_run  # noqa: F401

from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.model.changes import Changes  # noqa: E402
from app.views.model.workbench_model import WorkbenchModel  # noqa: E402
from app.views.run.run_view import RunView  # noqa: E402


def bound_run_view(qtbot, db, **run) -> tuple[TrajectoryStore, WorkbenchModel, RunView, int]:
    """A run view bound to a fresh workbench model, showing a synthetic 3-step run of a new database."""
    store = TrajectoryStore(db)
    run_id = make_synthetic_run(store, 3, **run)
    model = WorkbenchModel()
    database = model.open_database(db)
    view = RunView()
    qtbot.addWidget(view)
    view.bind(model)
    view.set_database(database)
    view.show()
    view.open_run(run_id)
    return store, model, view, run_id


def add_log_line(db, run_id: int, text: str) -> None:
    """Another connection writes a target log line during the run's first step (the run list's row stays as it
    was: no run, step or judgment was added)."""
    writer = TrajectoryStore(db)
    started = writer.steps(run_id, 0, 1)[0]["started_at"]
    with writer.transaction():
        writer.conn.execute("INSERT INTO target_logs (run_id, stream, t, text) VALUES (?, ?, ?, ?)",
                            (run_id, "stderr", started + 0.01, text))
    writer.close()


def test_work_that_changed_the_run_shown_re_reads_it(window, tmp_path):
    db = tmp_path / "w.db"
    store = TrajectoryStore(db)
    run_id = make_synthetic_run(store, 3)
    store.close()
    assert window.open_database(db) and window.open_run(run_id)
    rv = window.run_view
    assert rv.current_row() == 0 and "late log line" not in rv.details.toPlainText()
    add_log_line(db, run_id, "late log line")
    window.model.apply(Changes(runs=frozenset({run_id})))  # what the work that wrote it returns
    assert "late log line" in rv.details.toPlainText()


def test_an_override_re_reads_the_run_view_once(window, tmp_path, monkeypatch):
    db = tmp_path / "o.db"
    store = TrajectoryStore(db)
    run_id = make_synthetic_run(store, 3, verdict="fail")
    store.close()
    assert window.open_database(db) and window.open_run(run_id)
    rv = window.run_view
    reads: list[int] = []
    real = RunView.on_run_changed
    monkeypatch.setattr(RunView, "on_run_changed", lambda self: reads.append(1) or real(self))
    _, changes = window.model.database.add_override(run_id, author="ann", verdict="pass", note="works")
    window.model.apply(changes)
    assert len(reads) == 1  # not once for the change and again when the run list saw its row change
    assert "PASS" in rv.header.title.text()
    assert rv.verdict.can_undo


def test_the_run_view_alone_follows_the_models_changes(qtbot, tmp_path, isolated_settings):
    """No window and no run list: the view's only news of new steps is the model's changes."""
    store, model, view, run_id = bound_run_view(qtbot, tmp_path / "alone.db", status="running")
    model.select_run(run_id)
    assert view.model.available == 3
    view.last_step()
    now = time.time()
    store.add_step(run_id, 3, {"action": {"action": "wait", "seconds": 0.1}, "outcome": "ok",
                               "started_at": now, "ended_at": now + 0.1})
    model.apply(Changes(runs=frozenset({run_id})))
    assert view.model.available == 4 and view.current_row() == 3  # at the last step: it follows the new one
    model.apply(Changes(runs=frozenset({run_id + 100})))  # another run: nothing to re-read
    assert view.current_row() == 3
    view.player.close()
    model.close_database()
    store.close()


def test_the_live_run_and_its_state_come_from_the_model(qtbot, tmp_path, isolated_settings):
    """The header of the run played live shows its control state, set on the model (by the live run's owner)."""
    store, model, view, run_id = bound_run_view(qtbot, tmp_path / "live.db", status="running", verdict=None)
    assert view.header.live_button.isHidden()
    model.set_live(run_id, "paused")
    assert "PAUSED" in view.header.title.text() and not view.header.live_button.isHidden()
    model.set_live(run_id, "running")
    assert "RUNNING" in view.header.title.text() and "PAUSED" not in view.header.title.text()
    model.set_live(run_id, "paused")
    model.set_live(None, None)  # the live run is over (its row still says running until it is re-read)
    assert "PAUSED" not in view.header.title.text() and view.header.live_button.isHidden()
    view.player.close()
    model.close_database()
    store.close()
