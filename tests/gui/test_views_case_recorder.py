"""Recording a rubric case in the workbench: a real live run of tests/targets/rubric_tk is paused and
taken over, the person presses space in the live view, then marks on the recorder's frame what must hold (a box
dragged with the mouse, a colour typed by keyboard), saves the case beside the target's playcoder.toml (which
stays unchanged) and replays it on a fresh program."""

from __future__ import annotations

import shutil
import tomllib

import pytest
from views_support import isolated_settings, needs_xvfb  # noqa: F401

from PySide6.QtCore import QPointF, Qt  # noqa: E402

from app.engine.rubric.record import RECORDED_FILE, load_run  # noqa: E402
from app.views.live.live_run import FINISHED, PAUSED, LiveRun  # noqa: E402
from app.views.live.live_view import LiveView  # noqa: E402
from app.views.live.run_request import RunRequest  # noqa: E402
from app.views.run.case_recorder_view import CaseRecorderView  # noqa: E402

from suite import TARGETS  # noqa: E402


def _human_steps(db, run_id):
    try:
        return [s for s in load_run(db, run_id).steps if s.actor == "human"]
    except Exception:  # the engine has not written the run yet
        return []


@needs_xvfb
@pytest.mark.slow
def test_take_over_play_mark_save_and_replay(qtbot, tmp_path, isolated_settings):
    target = tmp_path / "rubric_tk"
    shutil.copytree(TARGETS / "rubric_tk", target)
    original = (target / "playcoder.toml").read_text()
    db = tmp_path / "record.db"

    # A live run, paused as soon as it starts, taken over: space in the live view is a human step.
    view = LiveView()
    qtbot.addWidget(view)
    view.resize(480, 320)
    view.show()
    live = LiveRun(RunRequest(str(target), max_steps=60), db)
    live.attach_view(view)
    live.start()
    try:
        qtbot.waitUntil(lambda: live.run_id is not None, timeout=30000)
        live.pause()
        qtbot.waitUntil(lambda: live.state == PAUSED and view.image() is not None, timeout=30000)
        view.set_takeover(True)
        assert view.takeover
        qtbot.keyClick(view, Qt.Key.Key_Space)
        qtbot.waitUntil(lambda: len(_human_steps(db, live.run_id)) == 1, timeout=30000)
        live.stop()
        qtbot.waitUntil(lambda: live.state == FINISHED and not live.bridge.running, timeout=30000)
    finally:
        live.shutdown()

    rec = CaseRecorderView(db, live.run_id)
    qtbot.addWidget(rec)
    rec.show()
    qtbot.waitExposed(rec)
    rec.activateWindow()
    qtbot.waitUntil(rec.isActiveWindow)
    assert rec.steps.count() == 1 and "press key=space (you)" in rec.steps.item(0).text()
    assert rec.canvas.image() is not None

    # Mouse: drag a box over the bar (the Region changes tool is the default).
    canvas = rec.canvas
    to_widget = canvas.image_transform().map
    qtbot.mousePress(canvas, Qt.MouseButton.LeftButton, pos=to_widget(QPointF(2, 2)).toPoint())
    qtbot.mouseMove(canvas, to_widget(QPointF(120, 30)).toPoint())
    qtbot.mouseRelease(canvas, Qt.MouseButton.LeftButton, pos=to_widget(QPointF(120, 30)).toPoint())
    assert [m.kind for m in rec.draft.marks] == ["region_changed"]

    # Keyboard: Alt+C picks Colour, type the point, Ctrl+Return adds it; the criterion id is typed too.
    rec.box.setFocus()
    qtbot.keyClick(rec, Qt.Key.Key_C, Qt.KeyboardModifier.AltModifier)
    assert rec.tool() == "pixel"
    rec.box.clear()
    qtbot.keyClicks(rec.box, "10, 20")
    qtbot.keyClick(rec.box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert [m.kind for m in rec.draft.marks] == ["region_changed", "pixel"]
    assert rec.draft.marks[1].params["colour"] == "#ff0000"

    # Mouse and keyboard: Alt+T, a box dragged over the label is offered with what OCR reads there.
    qtbot.keyClick(rec, Qt.Key.Key_T, Qt.KeyboardModifier.AltModifier)
    qtbot.mousePress(canvas, Qt.MouseButton.LeftButton, pos=to_widget(QPointF(6, 48)).toPoint())
    qtbot.mouseMove(canvas, to_widget(QPointF(100, 75)).toPoint())
    qtbot.mouseRelease(canvas, Qt.MouseButton.LeftButton, pos=to_widget(QPointF(100, 75)).toPoint())
    assert rec.text.hasFocus() and len(rec.draft.marks) == 2
    if not rec.text.text():  # no OCR on this machine: the person types it
        qtbot.keyClicks(rec.text, "count 1")
    assert rec.text.text() == "count 1"
    qtbot.keyClick(rec.text, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert [m.kind for m in rec.draft.marks] == ["region_changed", "pixel", "text"]
    rec.criterion.setFocus()
    rec.criterion.lineEdit().selectAll()
    qtbot.keyClicks(rec.criterion.lineEdit(), "bar-by-hand")
    assert "[[script]]" in rec.preview.toPlainText() and "bar-by-hand" in rec.preview.toPlainText()

    # Ctrl+S: a new file beside the target's playcoder.toml, which is unchanged.
    qtbot.keyClick(rec, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    saved = target / RECORDED_FILE
    assert saved.is_file(), rec.status.text()
    assert (target / "playcoder.toml").read_text() == original
    assert "unchanged" in rec.status.text()
    data = tomllib.loads(saved.read_text())
    case = data["script"][-1]
    assert case["criterion"] == "bar-by-hand" and case["restart"] is True
    assert case["steps"] == [{"action": "press", "key": "space"}]
    assert {c["id"] for c in data["criteria"]} >= {"bar-by-hand", "grows"}

    # Ctrl+R: the case alone on a fresh program; both marks hold.
    qtbot.keyClick(rec, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: rec.last_replay is not None, timeout=120000)
    assert rec.last_replay.verdict == ("pass" if shutil.which("tesseract") else "uncertain"), rec.status.text()
    assert len(rec.last_replay.lines) == 3
    assert all(line.startswith("pass") for line in rec.last_replay.lines[:2])  # the text: uncertain without OCR
    assert "PASS" in rec.status.text()


def _stored_run(db, folder) -> int:
    """A finished run of ``folder`` with two steps, the second one a person's, written through the store."""
    from PIL import Image

    from app.engine.trace.store import TrajectoryStore

    store = TrajectoryStore(db)
    white, red = Image.new("RGB", (240, 120), "white"), Image.new("RGB", (240, 120), "white")
    red.paste((255, 0, 0), (0, 0, 20, 40))
    shas = [store.put_image(white), store.put_image(red)]
    run_id = store.create_run(target="rubric-tk", target_path=str(folder), tester="offline", display="isolated",
                              seed=0, max_steps=2)
    with store.transaction():
        for i, (actor, action) in enumerate((("tester", {"action": "click", "x": 5, "y": 100}),
                                             ("human", {"action": "press", "key": "space"}))):
            store.add_step(run_id, i, {"actor": actor, "action": action, "outcome": "ok", "rationale": "",
                                       "frame_before": shas[0], "frame_after": shas[i], "settle_ms": 1.0,
                                       "settled": 1, "started_at": 0.0, "ended_at": 0.1})
    store.finish_run(run_id, status="completed", verdict="pass", reason="")
    store.close()
    return run_id


def test_the_workbench_opens_the_recorder_and_marks_work_by_keyboard(qtbot, tmp_path, isolated_settings,
                                                                      monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from app.views.shell.main_window import MainWindow

    target = tmp_path / "rubric_tk"
    shutil.copytree(TARGETS / "rubric_tk", target)
    original = (target / "playcoder.toml").read_text()
    db = tmp_path / "stored.db"
    run_id = _stored_run(db, target)
    win = MainWindow()
    win.modal_messages = False
    qtbot.addWidget(win)
    assert win.open_database(db)
    win.commands.record_case.trigger()  # no run shown yet: one sentence
    assert "Open a run" in win.messages[-1]
    win.open_run(run_id)
    win.commands.record_case.trigger()
    (rec,) = win.findChildren(CaseRecorderView)
    assert rec.steps.count() == 1 and rec.steps.item(0).text() == "1. press key=space (you)"

    rec.show()
    rec.activateWindow()
    qtbot.waitUntil(rec.isActiveWindow)
    rec.from_start.click()  # the tester's steps too; Delete in the steps list leaves one out
    assert rec.steps.count() == 2 and rec.steps.item(0).text() == "1. click x=5, y=100"
    rec.steps.setFocus()
    rec.steps.setCurrentRow(0)
    qtbot.keyClick(rec.steps, Qt.Key.Key_Delete)
    assert rec.steps.count() == 1 and rec.steps.item(0).text() == "1. press key=space (you)"
    rec.box.setFocus()
    qtbot.keyClicks(rec.box, "0, 0, 240, 40")
    qtbot.keyClick(rec.box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(rec, Qt.Key.Key_P, Qt.KeyboardModifier.AltModifier)  # a picture to match
    qtbot.keyClick(rec.box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert [m.kind for m in rec.draft.marks] == ["region_changed", "similar"]
    rec.marks.setFocus()
    rec.marks.setCurrentRow(1)
    qtbot.keyClick(rec.marks, Qt.Key.Key_Delete)
    assert [m.kind for m in rec.draft.marks] == ["region_changed"]
    rec.criterion.setCurrentText("grows")  # an existing criterion: no new [[criteria]] entry

    # The target's own playcoder.toml only after a yes; a no leaves it as it was.
    rec.dest.setText(str(target / "playcoder.toml"))
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.No)
    qtbot.keyClick(rec, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert (target / "playcoder.toml").read_text() == original and "unchanged" in rec.status.text()
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    qtbot.keyClick(rec, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    data = tomllib.loads((target / "playcoder.toml").read_text())
    assert data["script"][-1]["expect"] == [{"after": 0, "kind": "region_changed", "region": [0, 0, 240, 40]}]
    assert len(data["criteria"]) == 5 and "appended" in rec.status.text()
    rec.close()
    win.close()
