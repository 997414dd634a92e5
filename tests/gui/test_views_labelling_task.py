"""Labelling shows the task (goal and criteria), Home / End move inside a run, the end of the set is summed up,
and a name change leaves no stale status."""

from __future__ import annotations

from PIL import Image
import views_support  # noqa: F401  (offscreen Qt)
from views_support import ROOT

from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.views.model.database import Database  # noqa: E402
from app.engine.play.targetspec import load_spec  # noqa: E402
from app.engine.study import validation  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.labelling import annotation_view  # noqa: E402
from app.views.labelling.annotation_view import AnnotationView  # noqa: E402
from app.views.widgets.tool_window import ToolWindow  # noqa: E402

CALCULATOR = ROOT / "benchmark" / "apps" / "calculator"


def _run(store: TrajectoryStore, verdict: str, steps: int = 5) -> int:
    run = store.create_run(target="calculator@wrong-subtraction", bug="wrong-subtraction",
                           target_path=str(CALCULATOR), tester="offline", config={"kind": "app"})
    frames = [store.put_image(Image.new("RGB", (40, 30), (40 * i, 30, 200 - 30 * i))) for i in range(steps + 1)]
    t0 = store.run(run)["started_at"]
    for i in range(steps):
        store.add_step(run, i, {"action": {"action": "click", "x": i, "y": i}, "outcome": "ok",
                                "frame_before": frames[i], "frame_after": frames[i + 1],
                                "started_at": t0 + i, "ended_at": t0 + i + 0.5})
    store.finish_run(run, status="completed", verdict=verdict, reason="r")
    return run


def test_task_keys_summary_and_a_name_change(qtbot, db_path, tmp_path, monkeypatch):
    store = TrajectoryStore(db_path)
    for i in range(4):
        _run(store, "pass" if i % 2 else "fail")
    validation.sample_set(store, "s", successes=2, failures=2, seed=1)
    view = AnnotationView(Database(store), "ann", set_name="s", settings=QSettings(str(tmp_path / "s.ini"),
                                                                           QSettings.Format.IniFormat))
    window = ToolWindow(view, size=(1100, 750))
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)

    # The task, as the target declares it, without the bug.
    spec = load_spec(CALCULATOR)
    shown = view.instructions.text.text()
    assert spec.goal[:40] in shown and all(c.id in shown for c in spec.criteria)
    assert "wrong-subtraction" not in shown and "wrong-subtraction" not in view.item_label.text()

    def key(k: Qt.Key) -> None:
        QTest.keyClick(QApplication.focusWidget() or window, k)

    key(Qt.Key.Key_End)
    assert view.steps_view.currentIndex().row() == 4 and "step 5 of 5" in view.before._subtitle
    key(Qt.Key.Key_Home)
    assert view.steps_view.currentIndex().row() == 0

    # Label all four: the last label ends in a summary, not in "Saved".
    for n, label in enumerate((Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_1, Qt.Key.Key_3)):
        key(label)
        if n < 3:
            assert view.status.text().startswith("Saved")
            key(Qt.Key.Key_Return)
    summary = view.status.text()
    assert summary.startswith("All 4 runs labelled: 2 pass, 1 fail, 1 unsure") and "s per run" in summary

    # Change name: the other annotator starts with a clean status line.
    monkeypatch.setattr(annotation_view, "ask_annotator_name", lambda parent: "bob")
    view.annotator_button.click()
    assert view.annotator == "bob" and view.status.text() == ""
    assert view.current_label.text() == "Your label: not labelled yet"
    store.close()
