"""The verdict view follows the workbench model: an override or undo made elsewhere (another window writing
through the model) updates the shown verdict and Undo at once."""

from __future__ import annotations

from views_support import isolated_settings, window, make_synthetic_run  # noqa: F401

from app.engine.trace.store import TrajectoryStore  # noqa: E402


def test_an_override_made_elsewhere_updates_the_shown_verdict_and_undo(window, tmp_path):
    db = tmp_path / "v.db"
    store = TrajectoryStore(db)
    run_id = make_synthetic_run(store, 3, verdict="fail")
    store.close()
    assert window.open_database(db) and window.open_run(run_id)
    view, model = window.run_view.verdict, window.model
    assert model.run_id == run_id
    assert not view.can_undo and not window.commands.undo_override.isEnabled()
    assert "FAIL" in view.badge.text().upper()

    # the labelling window (say) overrides through the model; the verdict view wrote nothing itself
    jid, changes = model.database.add_override(run_id, author="ann", verdict="pass", note="it works")
    model.apply(changes)
    assert model.overrides == (jid,)
    assert view.can_undo and window.commands.undo_override.isEnabled()
    assert "PASS" in view.badge.text().upper() and "ann" in view.provenance.text()

    undone, changes = model.database.undo_override(run_id, "ann")
    model.apply(changes)
    assert undone is not None and model.overrides == ()
    assert not view.can_undo and not window.commands.undo_override.isEnabled()
    assert "FAIL" in view.badge.text().upper()


def test_the_verdict_view_alone_follows_the_models_events(qtbot, tmp_path, isolated_settings):
    """No run list to re-read behind it: the view's only news of the override is the model's events."""
    from app.views.model.workbench_model import WorkbenchModel
    from app.views.run.verdict_view import VerdictView

    db = tmp_path / "alone.db"
    store = TrajectoryStore(db)
    run_id = make_synthetic_run(store, 2, verdict="fail")
    model = WorkbenchModel()
    database = model.open_database(db)
    view = VerdictView()
    qtbot.addWidget(view)
    view.bind(model)
    view.set_run(database, run_id)
    model.select_run(run_id)
    assert not view.can_undo and "FAIL" in view.badge.text().upper()

    jid, changes = database.add_override(run_id, author="ann", verdict="pass", note="it works")
    model.apply(changes)
    assert view.can_undo and "PASS" in view.badge.text().upper()
    assert any(view.history.topLevelItem(i).text(3) == "it works" for i in range(view.history.topLevelItemCount()))

    database.undo_override(run_id, "ann")
    model.apply(changes)
    assert not view.can_undo and "FAIL" in view.badge.text().upper()
    model.close_database()
    store.close()
