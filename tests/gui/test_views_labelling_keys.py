"""Labelling by keyboard: 20 items without the mouse, overlays on the frames, time per item, no run id;
the sampler draws only completed play runs with steps, with filters and a preview of what is available."""

from __future__ import annotations

import time

import pytest
from PIL import Image
import views_support  # noqa: F401  (offscreen Qt)

from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

from app.views.model.database import Database  # noqa: E402
from app.engine.errors import UserError  # noqa: E402
from app.engine.study import validation  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.labelling.annotation_view import AnnotationView  # noqa: E402
from app.views.labelling.new_set_dialog import NewSetDialog  # noqa: E402
from app.views.widgets.tool_window import ToolWindow  # noqa: E402

ACTIONS = ({"action": "click", "x": 10, "y": 12}, {"action": "drag", "x": 2, "y": 3, "x2": 30, "y2": 20},
           {"action": "press", "key": "space"})


def play_run(store: TrajectoryStore, verdict: str, *, target: str = "flappy", kind: str = "game",
             tester: str = "offline", steps: int = 3) -> int:
    run = store.create_run(target=target, tester=tester, config={"kind": kind})
    colours = [store.put_image(Image.new("RGB", (40, 30), (60 * i, 30, 200 - 50 * i))) for i in range(4)]
    t0 = store.run(run)["started_at"]
    for i in range(steps):
        store.add_step(run, i, {"action": ACTIONS[i % 3], "outcome": "ok", "frame_before": colours[i],
                                "frame_after": colours[i + 1], "changed_bbox": [1, 2, 20, 15],
                                "started_at": t0 + i, "ended_at": t0 + i + 0.5})
    store.finish_run(run, status="completed", verdict=verdict, reason="r")
    return run


@pytest.fixture
def store(db_path):
    s = TrajectoryStore(db_path)
    for i in range(24):
        play_run(s, "pass" if i % 2 else "fail")
    yield s
    s.close()


def test_twenty_items_labelled_without_touching_the_mouse(qtbot, store, tmp_path):
    validation.sample_set(store, "s", successes=10, failures=10, seed=4)
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    view = AnnotationView(Database(store), "ann", set_name="s", settings=settings)
    window = ToolWindow(view, size=(1000, 700))
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    order = [i.run_id for i in validation.annotator_order(store, validation.get_set(store, "s"), "ann")]

    def key(k: Qt.Key) -> None:  # to whatever has the focus now, as a keyboard would: no click, no setFocus
        QTest.keyClick(QApplication.focusWidget() or window, k)

    assert not view.note_edit.hasFocus()  # the keys work at once, they do not type into the note
    for n, run in enumerate(order):
        assert view.current_run() == run
        assert view.item_label.text() == f"Item {n + 1} of 20 — flappy"  # no run id to look up
        key(Qt.Key.Key_Right)
        assert view.steps_view.currentIndex().row() == 1
        assert view.before._action == ACTIONS[1] and view.after._bbox == [1, 2, 20, 15]  # the run view's overlays
        key(Qt.Key.Key_Right)
        key(Qt.Key.Key_Left)
        assert view.steps_view.currentIndex().row() == 1
        time.sleep(0.01)
        key(Qt.Key.Key_1 if n % 2 else Qt.Key.Key_2)
        key(Qt.Key.Key_Return)
    labels = validation.labels_of(store, validation.get_set(store, "s"), "ann")
    assert len(labels) == 20 and all(lab.seconds is not None and lab.seconds > 0 for lab in labels.values())
    assert view.position == 19
    key(Qt.Key.Key_PageUp)
    assert view.position == 18
    before = labels[order[18]].seconds
    time.sleep(0.02)
    key(Qt.Key.Key_PageDown)  # leaving a labelled item adds the time of the visit
    assert view.position == 19
    after = validation.labels_of(store, validation.get_set(store, "s"), "ann")[order[18]].seconds
    assert after > before
    key(Qt.Key.Key_Backspace)
    assert view.position == 18
    window.close()


def test_a_finish_step_draws_nothing_that_tells_the_verdict(store):
    run = play_run(store, "pass")
    store.add_step(run, 3, {"action": {"action": "finish", "verdict": "pass", "reason": "all good"},
                            "outcome": "finish", "started_at": 1.0, "ended_at": 1.1})
    steps = validation.blinded_run(store, run).steps
    assert steps[3].action == {"action": "finish"} and steps[0].action == ACTIONS[0]
    assert steps[0].changed_bbox == [1, 2, 20, 15]


def test_the_sampler_draws_only_completed_play_runs_with_steps(store):
    empty = store.create_run(target="flappy", tester="offline")
    store.finish_run(empty, status="completed", verdict="pass", reason="no step")
    repair = store.create_run(target="flappy", tester="offline", kind="repair")
    store.add_step(repair, 0, {"action": ACTIONS[0], "outcome": "ok", "started_at": 1.0, "ended_at": 1.1})
    store.finish_run(repair, status="completed", verdict="pass", reason="repair row")
    counts = validation.candidate_counts(store)
    assert counts["pass"] == 12 and counts["fail"] == 12
    vset = validation.sample_set(store, "all", successes=12, failures=12, seed=1)
    assert {empty, repair}.isdisjoint(u.run_id for u in validation.units(store, vset))


def test_filters_by_tester_kind_and_target_with_a_preview(qtbot, store):
    for _ in range(3):
        play_run(store, "pass", target="calculator@wrong-sum", kind="app", tester="script")
    play_run(store, "fail", target="calculator", kind="app", tester="script")
    play_run(store, "fail", target="calculator_pro", kind="app", tester="script")
    assert validation.candidate_counts(store, kind="app") == {"pass": 3, "fail": 2, "uncertain": 0}
    assert validation.candidate_counts(store, target="calculator") == {"pass": 3, "fail": 1, "uncertain": 0}
    assert validation.candidate_counts(store, tester="offline", kind="app") == {"pass": 0, "fail": 0, "uncertain": 0}
    choices = validation.candidate_choices(store)
    assert choices == {"tester": ["offline", "script"], "kind": ["app", "game"],
                       "target": ["calculator", "calculator_pro", "flappy"]}
    with pytest.raises(UserError, match="Only 1 run has the tester verdict fail"):
        validation.sample_set(store, "calc", successes=1, failures=2, seed=0, target="calculator")

    dialog = NewSetDialog(Database(store))
    qtbot.addWidget(dialog)
    assert "15 completed runs the tester passed, 14 it failed" in dialog.available_label.text()
    dialog.kind_combo.setCurrentIndex(dialog.kind_combo.findData("app"))
    assert "3 completed runs the tester passed, 2 it failed" in dialog.available_label.text()
    dialog.target_combo.setCurrentIndex(dialog.target_combo.findData("calculator"))
    assert "3 completed runs the tester passed, 1 it failed" in dialog.available_label.text()
    dialog.name_edit.setText("calc")
    dialog.successes_spin.setValue(2)
    dialog.failures_spin.setValue(1)
    dialog.accept()
    assert dialog.created is not None
    runs = {u.run_id for u in validation.units(store, dialog.created)}
    assert all(store.run(r)["target"].partition("@")[0] == "calculator" for r in runs)


def test_the_labelling_window_fits_the_screen(qtbot, store):
    window = ToolWindow(QWidget(), size=(1200, 800))
    qtbot.addWidget(window)
    area = window.screen().availableGeometry()
    assert window.width() <= area.width() and window.height() <= area.height()
