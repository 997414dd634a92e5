"""The long-work helper: off the GUI thread, progress, cancel (also inside a store statement), one-sentence failures."""

from __future__ import annotations

import time

import pytest
from views_support import isolated_settings, make_synthetic_run  # noqa: F401

from PySide6.QtCore import Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QPushButton, QWidget  # noqa: E402

from app.engine.errors import StoreError  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.widgets.long_task import (  # noqa: E402
    CANCELLED, FAILED, FINISHED, LongTask, TaskControl, run_long_task, running_tasks,
)


@pytest.fixture(autouse=True)
def no_work_left_running():
    yield
    for task in running_tasks():
        task.cancel()
        assert task.wait(5000), "a test left background work running"


def test_work_runs_off_the_gui_thread_reports_progress_and_its_result(qtbot):
    import threading

    gui = threading.get_ident()
    seen: dict[str, object] = {}

    def work(control: TaskControl) -> int:
        seen["thread"] = threading.get_ident()
        for i in range(5):
            control.progress(i, 5, f"piece {i}")
            time.sleep(0.05)  # the GUI thread keeps ticking meanwhile
        return 42

    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    progress: list[tuple[int, int, str]] = []
    task = LongTask(work, what="count", label="Counting…", show_after_ms=0)
    task.sig_progressed.connect(lambda *a: progress.append(a))
    with qtbot.waitSignal(task.sig_finished, timeout=10000) as blocker:
        task.start()
        assert task.running
    timer.stop()
    assert blocker.args == [42] and task.outcome == FINISHED and not task.running
    assert seen["thread"] != gui
    assert [p[0] for p in progress] == [0, 1, 2, 3, 4] and progress[-1] == (4, 5, "piece 4")
    assert len(ticks) >= 5, "the GUI thread did not run while the work went on"
    assert task.dialog is None  # closed with the outcome


def test_a_failure_is_one_sentence_never_a_traceback(qtbot):
    def user_error(control: TaskControl) -> None:
        raise StoreError("The bundle is damaged; export it again.")

    def os_error(control: TaskControl) -> None:
        raise PermissionError(13, "Permission denied", "/nope/run.zip")

    def bug(control: TaskControl) -> None:
        raise KeyError("frame_before")

    sentences = []
    for work in (user_error, os_error, bug):
        task = LongTask(work, what="export run 3", label="Exporting…", dialog=False)
        with qtbot.waitSignal(task.sig_failed, timeout=10000) as blocker:
            task.start()
        assert task.outcome == FAILED
        sentences.append(blocker.args[0])
    assert sentences[0] == "The bundle is damaged; export it again."
    assert sentences[1] == "Could not export run 3 (Permission denied: /nope/run.zip); choose another file or folder."
    assert sentences[2].startswith("Could not export run 3: KeyError") and "Traceback" not in sentences[2]
    assert all("\n" not in s for s in sentences)


def test_cancel_stops_the_work_at_its_next_check(qtbot):
    started = []

    def work(control: TaskControl) -> str:
        started.append(1)
        while True:
            control.check()
            time.sleep(0.01)

    task = LongTask(work, what="wait", label="Waiting…", show_after_ms=0)
    task.start()
    qtbot.waitUntil(lambda: bool(started), timeout=5000)
    assert task.dialog is not None
    qtbot.waitUntil(task.dialog.isVisible, timeout=5000)  # shown after show_after_ms
    button = task.dialog.findChild(QPushButton)
    assert button is not None and button.text() == "Cancel"
    with qtbot.waitSignal(task.sig_cancelled, timeout=5000):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert task.outcome == CANCELLED


def test_cancel_aborts_a_long_store_statement_and_rolls_a_write_back(qtbot, tmp_path):
    db = tmp_path / "runs.db"
    TrajectoryStore(db).close()
    inside = []

    def work(control: TaskControl) -> None:
        store = control.open_database(db).store
        with store.transaction():
            store.create_run(target="half-imported", tester="offline")
            inside.append(1)
            # a statement that would run for minutes: only the cancel ends it
            store.conn.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                               "SELECT count(*) FROM c").fetchone()

    task = run_long_task(work, what="import", label="Importing…", dialog=False)
    qtbot.waitUntil(lambda: bool(inside), timeout=10000)
    t0 = time.perf_counter()
    with qtbot.waitSignal(task.sig_cancelled, timeout=10000):
        task.cancel()
    assert time.perf_counter() - t0 < 5
    check = TrajectoryStore(db, readonly=True)
    assert check.runs() == []  # all or nothing
    check.close()


def test_a_destroyed_owner_cancels_the_work_and_drops_its_outcome(qtbot):
    owner = QWidget()
    started, outcomes = [], []

    def work(control: TaskControl) -> int:
        started.append(1)
        while not control.cancelled:
            time.sleep(0.01)
        return 1

    task = run_long_task(work, what="wait", label="Waiting…", parent=owner, on_finished=outcomes.append,
                         on_cancelled=lambda: outcomes.append("cancelled"))
    qtbot.waitUntil(lambda: bool(started), timeout=5000)
    owner.deleteLater()
    qtbot.waitUntil(lambda: task.outcome is not None, timeout=5000)
    assert task.control.cancelled and outcomes == []


def test_run_transfer_export_is_cancellable_and_writes_nothing(qtbot, tmp_path, monkeypatch, isolated_settings):
    from PySide6.QtWidgets import QFileDialog

    from app.views.shell.main_window import MainWindow

    db = tmp_path / "runs.db"
    store = TrajectoryStore(db)
    run_id = make_synthetic_run(store, 30, distinct_frames=3)
    store.close()
    window = MainWindow()
    window.modal_messages = False
    qtbot.addWidget(window)
    window.open_database(db)
    window.open_run(run_id)
    out = tmp_path / "run.zip"
    gate = []

    def slow_export(store, rid, path):  # the engine's export, stuck in its reads until cancelled
        gate.append(1)
        store.conn.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                           "SELECT count(*) FROM c").fetchone()
        path.write_bytes(b"never")

    import types
    import sys

    monkeypatch.setitem(sys.modules, "app.engine.trace.bundle", types.SimpleNamespace(export_bundle=slow_export))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), "")))
    window.commands.export_run.trigger()
    qtbot.waitUntil(lambda: bool(gate), timeout=10000)
    window.commands.export_run.trigger()  # a second transfer waits for the first
    assert "still going" in window.messages[-1]
    with qtbot.waitSignal(window.transfer.sig_task_ended, timeout=10000) as blocker:
        window.transfer.task.cancel()
    assert blocker.args == [CANCELLED] and not out.exists()
    assert "Cancelled" in window.statusBar().currentMessage()
    window.close()
