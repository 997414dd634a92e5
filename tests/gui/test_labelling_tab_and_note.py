"""Labelling: Tab from where the keys work reaches the note, not the set combo, and a note typed on an item is
never lost when the item changes (saved with a label, kept for an item not labelled yet)."""

from __future__ import annotations

import pytest
from PIL import Image
import views_support  # noqa: F401  (offscreen Qt)

from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.engine.study import validation  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.labelling.annotation_view import AnnotationView  # noqa: E402
from app.views.model.database import Database  # noqa: E402
from app.views.widgets.tool_window import ToolWindow  # noqa: E402


@pytest.fixture
def labelling(qtbot, db_path, tmp_path):
    store = TrajectoryStore(db_path)
    for i in range(6):
        run = store.create_run(target="flappy", tester="offline", config={"kind": "game"})
        frame = store.put_image(Image.new("RGB", (40, 30), (40 * i, 30, 90)))
        store.add_step(run, 0, {"action": {"action": "press", "key": "space"}, "outcome": "ok",
                                "frame_before": frame, "frame_after": frame, "started_at": 0.0, "ended_at": 0.5})
        store.finish_run(run, status="completed", verdict="pass" if i % 2 else "fail", reason="r")
    validation.sample_set(store, "s", successes=2, failures=2, seed=1)
    view = AnnotationView(Database(store), "ann", set_name="s",
                          settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = ToolWindow(view, size=(1000, 700))
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    yield view, store
    store.close()


def _tab() -> None:
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)


def test_tab_goes_from_the_keys_to_the_note_and_never_from_a_label_to_the_set(labelling):
    view, _store = labelling
    assert view.steps_view.hasFocus()
    _tab()
    assert view.note_edit.hasFocus()
    _tab()
    assert view.pass_button.hasFocus()
    for _ in range(2):
        _tab()
        assert not view.set_combo.hasFocus()
    assert view.unsure_button.hasFocus()


def test_a_typed_note_survives_a_change_of_item(labelling, qtbot):
    view, store = labelling
    first = view.current_run()
    view.note_edit.setText("flickers at start")
    view.go_next()  # not labelled yet: the note is kept, and said so
    assert view.note_edit.text() == "" and "kept" in view.status.text()
    view.go_back()
    assert view.current_run() == first and view.note_edit.text() == "flickers at start"
    view.apply_label("fail")
    labels = validation.labels_of(store, validation.get_set(store, "s"), "ann")
    assert labels[first].note == "flickers at start"
    view.note_edit.setText("flickers at start, twice")  # a labelled item: leaving saves the changed note
    view.go_next()
    labels = validation.labels_of(store, validation.get_set(store, "s"), "ann")
    assert labels[first].note == "flickers at start, twice" and labels[first].label == "fail"
