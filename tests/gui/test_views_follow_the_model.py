"""Views follow the workbench model, the one broadcast: the run list selects the run the model shows and tells
the model the run the user selects; work by another hand makes the list read again while its own does not; in
the window a change is told once (the list's re-read adds no echo) and every view that shows the run follows."""

from __future__ import annotations

from views_support import isolated_settings, make_synthetic_run, window  # noqa: F401

from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.browser.run_browser_view import RunBrowserView  # noqa: E402
from app.views.model.changes import Changes  # noqa: E402
from app.views.model.workbench_model import WorkbenchModel  # noqa: E402


def test_the_run_list_follows_the_model_and_tells_it_the_users_choice(qtbot, tmp_path):
    db = tmp_path / "list.db"
    store = TrajectoryStore(db)
    first, second = make_synthetic_run(store, 2), make_synthetic_run(store, 2, verdict="fail")
    model = WorkbenchModel()
    browser = RunBrowserView()
    qtbot.addWidget(browser)
    browser.bind(model)
    model.open_database(db)
    assert browser.model.rowCount() == 2  # the database came from the model

    model.select_run(second)
    assert browser.current_run_id() == second  # the model's run is the list's selection
    browser.select_run(first)  # the user's choice goes to the model
    assert model.run_id == first and model.run is not None and model.run["id"] == first

    reads = browser.reads
    make_synthetic_run(store, 1, target="added elsewhere")
    model.apply(Changes(run_list=True), initiator="another window")
    assert browser.reads == reads + 1 and browser.model.rowCount() == 3
    model.apply(Changes(run_list=True), initiator=browser)  # the list's own news: it has read it already
    assert browser.reads == reads + 1
    browser.stop_watching()
    model.close_database()
    store.close()


def test_a_change_in_the_window_is_told_once_and_the_views_follow(window, tmp_path):
    db = tmp_path / "win.db"
    store = TrajectoryStore(db)
    run_id = make_synthetic_run(store, 3, verdict="fail")
    store.close()
    assert window.open_database(db) and window.open_run(run_id)
    rv, browser = window.run_view, window.browser
    assert window.model.run_id == run_id and rv.run_id == run_id and rv.run["id"] == run_id
    told: list[Changes] = []
    window.model.events.changed.connect(told.append)
    reads = browser.reads

    _, changes = window.model.database.add_override(run_id, author="ann", verdict="pass", note="it works")
    window.model.apply(changes)
    assert len(told) == 1  # the list re-read the run's row, and that report was no news
    assert browser.reads == reads + 1
    row = browser.run_row(run_id)
    assert row is not None and row["effective_verdict"] == "pass"  # the list follows
    assert "PASS" in rv.header.title.text() and rv.verdict.can_undo  # the run view and its verdict follow
    assert window.commands.undo_override.isEnabled()  # and the window's command
    assert window.model.verdict == "pass" and window.model.overrides != ()


def test_the_agreement_dashboard_follows_sets_drawn_elsewhere(qtbot, tmp_path):
    from app.views.labelling.agreement_view import AgreementView

    db = tmp_path / "sets.db"
    store = TrajectoryStore(db)
    for verdict in ("pass", "pass", "fail", "fail"):
        make_synthetic_run(store, 1, verdict=verdict)
    model = WorkbenchModel()
    database = model.open_database(db)
    _, changes = database.validation.sample("first", successes=1, failures=1, seed=1)
    model.apply(changes)
    view = AgreementView(database, set_name="first", resamples=50)
    qtbot.addWidget(view)
    unfollow = view.follow(model)
    assert [view.set_combo.itemText(i) for i in range(view.set_combo.count())] == ["first"]

    _, changes = database.validation.sample("second", successes=1, failures=1, seed=2)
    assert changes.labels
    with qtbot.waitSignal(view.sig_report_computed, timeout=30000):  # the dashboard recomputes by itself
        model.apply(changes, initiator="the main window")
    assert [view.set_combo.itemText(i) for i in range(view.set_combo.count())] == ["first", "second"]
    assert view.set_combo.currentText() == "first"  # the set shown stays
    unfollow()
    _, changes = database.validation.sample("third", successes=1, failures=1, seed=3)
    model.apply(changes)
    assert view.set_combo.count() == 2  # no longer following
    if view.task is not None:
        view.task.wait()
    model.close_database()
    store.close()
