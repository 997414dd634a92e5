"""The smaller defects of the workbench, each with its check: scrubbing moves the whole view, a new database starts
unfiltered, Export acts on the run the list shows selected, and the list holds still under the pointer."""

from __future__ import annotations

import pytest
from views_support import isolated_settings, window, make_synthetic_run  # noqa: F401

from PySide6.QtCore import QEvent, QPoint, Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.views.model.database import Database  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.browser.runs_model import COLUMN_OF  # noqa: E402
from app.views.shell.main_window import MainWindow  # noqa: E402


@pytest.fixture
def two_dbs(tmp_path):
    first, second = tmp_path / "first.db", tmp_path / "second.db"
    store = TrajectoryStore(first)
    ids = [make_synthetic_run(store, n, target=t, distinct_frames=2) for n, t in ((30, "flappy"), (5, "calculator"))]
    store.close()
    store = TrajectoryStore(second)
    make_synthetic_run(store, 3, target="snake", distinct_frames=2)
    store.close()
    return first, second, ids


def test_scrubbing_moves_the_step_list_and_the_before_pane_too(window, two_dbs, qtbot):
    first, _, (flappy, _) = two_dbs
    assert window.open_database(first) and window.open_run(flappy)
    rv = window.run_view
    scrub = rv.scrub
    idx, start, end, _ = scrub.steps[10]
    moment = (start + end) / 2
    qtbot.mouseClick(scrub, Qt.MouseButton.LeftButton, pos=QPoint(round(scrub.x_of(moment)), 20))
    assert rv.current_row() == 10 and rv.timeline.currentIndex().row() == 10
    step = rv.model.step_at(10)
    assert rv.before.image() is rv.frames.image(step["frame_before"]) or \
        rv.before.image() == rv.frames.image(step["frame_before"])
    assert "#11" in rv.before._subtitle  # idx 10, numbered from 1
    assert scrub.playhead == pytest.approx(moment, abs=2 * (scrub.t1 - scrub.t0) / scrub.width())


def test_open_database_starts_with_no_search_and_no_filter(window, two_dbs):
    first, second, _ = two_dbs
    assert window.open_database(first)
    browser = window.browser
    browser.search.setText("flappy")
    browser.verdict_filter.setCurrentIndex(2)
    assert browser.proxy.rowCount() == 0
    assert window.open_database(second)
    assert browser.search.text() == "" and browser.verdict_filter.currentIndex() == 0
    assert browser.proxy.rowCount() == 1


def test_export_acts_on_the_selected_visible_run_only(window, two_dbs, monkeypatch):
    first, _, (flappy, calculator) = two_dbs
    assert window.open_database(first) and window.open_run(flappy)
    assert window.current_run_id() == flappy
    window.browser.search.setText("no such run")  # hides the open run; the run view still shows it
    assert window.run_view.run_id == flappy and window.current_run_id() is None
    asked = []
    monkeypatch.setattr("app.views.shell.run_transfer.QFileDialog.getSaveFileName",
                        lambda *a, **k: asked.append(a) or ("", ""))
    window.commands.export_run.trigger()
    assert not asked and "Select a run" in window.messages[-1]
    window.browser.search.setText("calculator")
    window.browser.select_run(calculator)
    window.commands.export_run.trigger()
    assert asked and f"run-{calculator}.zip" in asked[-1]


def test_the_list_holds_still_under_the_pointer(window, two_dbs, qtbot):
    first, _, (flappy, calculator) = two_dbs
    assert window.open_database(first)
    browser = window.browser
    browser.table.sortByColumn(COLUMN_OF["target"], Qt.SortOrder.AscendingOrder)
    order = [browser.proxy.run_id_at(r) for r in range(browser.proxy.rowCount())]
    assert order == [calculator, flappy]
    QApplication.sendEvent(browser.table.viewport(), QEvent(QEvent.Type.Enter))
    assert browser.order_held
    rows = {r["id"]: dict(r) for r in (browser.model.run_at(i) for i in range(browser.model.rowCount()))}
    rows[flappy]["target"] = "aardvark"  # a bench re-judging a run: its row would jump to the top
    rows[999] = dict(rows[calculator], id=999, target="aaa-new")
    browser.model.set_rows(list(rows.values()))
    assert [browser.proxy.run_id_at(r) for r in range(2)] == [calculator, flappy]  # nothing moved
    QApplication.sendEvent(browser.table.viewport(), QEvent(QEvent.Type.Leave))
    assert not browser.order_held
    assert [browser.proxy.run_id_at(r) for r in range(3)] == [999, flappy, calculator]


def test_frames_can_be_enlarged_at_150_percent_and_stay_so(qtbot, two_dbs, isolated_settings):
    """1920×1080 at 150 % is 1280×720 logical pixels; the frames had a quarter of the window's height."""
    first, _, (flappy, _) = two_dbs
    win = MainWindow()
    win.modal_messages = False
    qtbot.addWidget(win)
    win.resize(1280, 690)
    win.show()
    assert win.open_database(first) and win.open_run(flappy)
    rv = win.run_view
    qtbot.waitUntil(lambda: rv.center.height() >= 0.3 * win.height(), timeout=3000)
    rv.right.setSizes([2000, 0])  # drag the tabs' handle to the bottom
    rv.vertical.setSizes([0, 2000])  # and the film strip's to the top
    rv.right.splitterMoved.emit(0, 1)  # as a drag of the handle tells
    qtbot.waitUntil(lambda: rv.center.height() >= 0.6 * win.height(), timeout=3000)
    win.close()
    again = MainWindow()
    qtbot.addWidget(again)
    again.resize(1280, 690)
    again.show()
    assert again.open_database(first) and again.open_run(flappy)
    qtbot.waitUntil(lambda: again.run_view.center.height() >= 0.6 * again.height(), timeout=3000)
    again.close()


@pytest.mark.parametrize("width", [1280, 1600])
def test_differential_subtitles_are_not_cut(qtbot, tmp_path, isolated_settings, width):
    store = TrajectoryStore(tmp_path / "diff.db")
    run_id = make_synthetic_run(store, 4, target="calculator@wrong-subtraction", tester="differential",
                                distinct_frames=3)
    for step in store.steps(run_id):
        store.set_step_reference(run_id, step["idx"], step["frame_before"])
    store.close()
    win = MainWindow()
    win.modal_messages = False
    qtbot.addWidget(win)
    win.resize(width, 800)
    win.show()
    assert win.open_database(tmp_path / "diff.db") and win.open_run(run_id)
    rv = win.run_view
    rv.go_to_row(3)  # a drag: "#4 drag(50, 60 → 400, 300) · changed region highlighted"
    qtbot.waitUntil(lambda: "pixels differ" in rv.difference._subtitle or "no pixel" in rv.difference._subtitle,
                    timeout=5000)
    for pane in (rv.after, rv.reference, rv.difference):
        assert pane.isVisible() and pane._subtitle
        lines = pane.subtitle_lines()
        assert not lines or " ".join(lines) == pane._subtitle, (pane.title(), pane.width(), lines)
    win.close()


def test_new_repair_keeps_its_width_and_remembers_choices(qtbot, isolated_settings):
    from app.views.repair.new_repair_dialog import NewRepairDialog

    dialog = NewRepairDialog()
    qtbot.addWidget(dialog)
    dialog.app_combo.setCurrentIndex(dialog.app_combo.findText("brickout"))
    dialog.bug_combo.setCurrentIndex(dialog.bug_combo.findData("substeps-at-60fps"))  # a 460-character description
    dialog.show()
    assert dialog.sizeHint().width() < 800 and dialog.width() < 800
    whole = dialog.bug_combo.currentData(Qt.ItemDataRole.ToolTipRole)
    assert len(whole) > 400 and dialog.bug_combo.toolTip() == whole and dialog.bug_label.text() == whole
    assert dialog.bug_combo.currentText().endswith("…")
    dialog.refiner_combo.setCurrentText("llm")
    dialog.iterations_spin.setValue(3)
    dialog.accept()
    again = NewRepairDialog()
    qtbot.addWidget(again)
    assert again.app_combo.currentText() == "brickout" and again.bug_combo.currentData() == "substeps-at-60fps"
    assert again.refiner_combo.currentText() == "llm" and again.iterations_spin.value() == 3


def test_new_run_remembers_choices(qtbot, isolated_settings):
    from app.views.live.new_run_dialog import NewRunDialog

    dialog = NewRunDialog()
    qtbot.addWidget(dialog)
    dialog.app_combo.setCurrentIndex(dialog.app_combo.findText("snake"))
    dialog.bug_combo.setCurrentIndex(dialog.bug_combo.findData("late-crash"))
    dialog.steps_spin.setValue(77)
    dialog.seed_spin.setValue(5)
    assert dialog.request() is not None
    dialog.accept()
    again = NewRunDialog()
    qtbot.addWidget(again)
    assert again.bundled_radio.isChecked() and again.app_combo.currentText() == "snake"
    assert again.bug_combo.currentData() == "late-crash"
    assert (again.steps_spin.value(), again.seed_spin.value(), again.tester()) == (77, 5, "offline")


def test_the_window_comes_back_after_a_desktop_run(qtbot, tmp_path, isolated_settings):
    from app.views.live.desktop_placement import WindowState
    from app.views.live.live_run import FINISHED, RUNNING, LiveRun
    from app.views.live.run_request import RunRequest

    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    before = WindowState.of(win)
    live = LiveRun(RunRequest("snake", display="desktop"), tmp_path / "d.db", win)
    live._set_state(RUNNING)
    live._before_placement = (win, before)  # what _on_bridge_window_found keeps when it narrows the window
    narrow = win.minimumSizeHint().width() + 10
    win.resize(narrow, 800)
    qtbot.waitUntil(lambda: win.width() == narrow, timeout=2000)
    live._set_state(FINISHED)
    qtbot.waitUntil(lambda: win.width() == 1200, timeout=2000)
    win.close()


def test_a_crash_step_shows_the_last_live_picture_not_the_dead_window(qtbot, tmp_path):
    from PIL import Image

    from app.views.repair.cycle_frames_view import CycleFramesView, is_blank

    store = TrajectoryStore(tmp_path / "crash.db")
    run = store.create_run(target="tiles2048", tester="offline")
    live = []
    for i in range(3):
        picture = Image.new("RGB", (60, 40), (200, 40 * i, 90))
        picture.paste((255, 255, 255), (5 + 10 * i, 5, 15 + 10 * i, 15))
        live.append(store.put_image(picture))
    dead = store.put_image(Image.new("RGB", (60, 40), (0, 0, 0)))
    frames = [(live[0], live[1]), (live[1], live[2]), (live[2], dead)]
    for i, (before, after) in enumerate(frames):
        store.add_step(run, i, {"action": {"action": "press", "key": "r"}, "outcome": "ok", "frame_before": before,
                                "frame_after": after, "started_at": float(i), "ended_at": i + 0.5})
    view = CycleFramesView(Database(store))
    qtbot.addWidget(view)
    view.show_runs(run, None, 2)
    image = view.frame_pair()[0]
    assert image is not None and not is_blank(image)
    assert image == view._image(live[2])
    assert "the last live picture, before step 3" in view.captions()[0]
    view.show_step(1)  # a live step is shown as it is
    assert view.frame_pair()[0] == view._image(live[2]) and "last live" not in view.captions()[0]
    store.close()
