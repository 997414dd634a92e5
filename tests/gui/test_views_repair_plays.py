"""A repair's plays in the workbench: labelled in the run list, filterable, linked to their repair; the
session's own row opens the repair window and offers no verdict override; Undo only when there is one."""

from __future__ import annotations

import pytest
from views_support import isolated_settings, make_synthetic_run, synthetic_frames  # noqa: F401

from PySide6.QtCore import Qt  # noqa: E402

from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.browser.runs_model import COLUMN_OF  # noqa: E402
from app.views.shell.main_window import MainWindow  # noqa: E402

COPY = "/tmp/playcoder-repair-views/calculator"


def _play(store: TrajectoryStore, verdict: str) -> int:
    run_id = store.create_run(target="calculator", target_path=COPY, tester="offline", window_width=640,
                              window_height=480)
    sha = store.put_image(synthetic_frames(1)[0])
    store.add_step(run_id, 0, {"action": {"action": "click", "x": 5, "y": 5}, "outcome": "ok", "frame_before": sha,
                               "frame_after": sha, "started_at": 1.0, "ended_at": 1.1}, [])
    store.finish_run(run_id, status="completed", verdict=verdict)
    return run_id


@pytest.fixture
def repaired(tmp_path):
    """A clean run, then a repair session with its buggy copy's play and one patch's re-test."""
    path = tmp_path / "plays.db"
    store = TrajectoryStore(path)
    clean = make_synthetic_run(store, 3, target="calculator", distinct_frames=2)
    session = store.create_run(kind="repair", target="calculator@wrong-subtraction", target_path=COPY,
                               tester="offline", config={"refiner": "offline", "max_iterations": 3})
    buggy = _play(store, "fail")
    patched = _play(store, "pass")
    with store.transaction():
        store.db.table("patches").insert({"run_id": session, "iteration": 1, "retest_run": patched, "diff": "",
                                          "files": '{"outcome": "fixed"}', "validation": "{}", "at": 0.0})
    store.finish_run(session, status="completed", verdict="pass")
    store.close()
    return path, clean, session, buggy, patched


@pytest.fixture
def window(qtbot, isolated_settings, repaired):
    win = MainWindow()
    win.modal_messages = False
    win.resize(1400, 900)
    qtbot.addWidget(win)
    win.show()
    assert win.open_database(repaired[0])
    yield win
    win.close()


def _target_text(win, run_id):
    row = win.browser.model.row_of(run_id)
    return win.browser.model.index(row, COLUMN_OF["target"]).data()


def test_plays_are_labelled_and_filterable(window, repaired):
    _, clean, session, buggy, patched = repaired
    assert _target_text(window, clean) == "calculator"
    assert _target_text(window, buggy) == f"calculator · repair #{session}, buggy copy"
    assert _target_text(window, patched) == f"calculator · repair #{session}, patch 1"
    assert _target_text(window, session) == "calculator · repair session"
    browser = window.browser
    browser.kind_filter.setCurrentIndex(browser.kind_filter.findData("repair-play"))
    assert {browser.proxy.run_id_at(r) for r in range(browser.proxy.rowCount())} == {buggy, patched}
    browser.kind_filter.setCurrentIndex(browser.kind_filter.findData("test"))
    assert {browser.proxy.run_id_at(r) for r in range(browser.proxy.rowCount())} == {clean}

    # A play's header says what it played and links to its repair.
    assert window.open_run(patched)
    assert browser.kind_filter.currentIndex() == 0  # selecting a hidden run clears the filter
    header = window.run_view.header
    assert f"play of repair #{session}: the patch of iteration 1" in header.meta.text()
    assert header.repair_button.isVisibleTo(header) and window.run_view.verdict.buttons.isVisibleTo(window.run_view.verdict)
    if window.repair.available:
        header.repair_button.click()
        view = window.repair.window.view
        assert view.current_session() == session and view.current_cycle().iteration == 1
    window.open_run(clean)
    assert not header.repair_button.isVisibleTo(header)


def test_the_session_row_opens_the_repair_and_offers_no_override(window, repaired, qtbot):
    _, _, session, _, _ = repaired
    assert window.open_run(session)
    verdict = window.run_view.verdict
    assert not verdict.buttons.isVisibleTo(verdict) and not verdict.pass_button.isEnabled()
    assert "repair session" in verdict.provenance.text()
    assert window.run_view.header.repair_button.isVisibleTo(window.run_view.header)
    assert window.repair.window is None or not window.repair.window.isVisible()
    table = window.browser.table
    index = window.browser.proxy.index(window.browser.proxy.mapFromSource(
        window.browser.model.index(window.browser.model.row_of(session), 0)).row(), COLUMN_OF["target"])
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(index).center())
    if window.repair.available:
        assert window.repair.window is not None and window.repair.window.isVisible()
        assert window.repair.window.view.current_session() == session
    else:
        assert "not available" in window.messages[-1]


def test_undo_is_offered_only_with_an_override_to_undo(window, repaired):
    _, clean, _, _, _ = repaired
    assert window.open_run(clean)
    undo, verdict = window.commands.undo_override, window.run_view.verdict
    assert not undo.isEnabled() and not verdict.undo_button.isEnabled()
    assert verdict.override("fail", "the display shows the wrong result") is not None
    assert undo.isEnabled() and verdict.undo_button.isEnabled()
    undo.trigger()
    assert not undo.isEnabled() and not verdict.undo_button.isEnabled()
