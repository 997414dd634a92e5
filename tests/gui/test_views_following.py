"""Live and consistent: the run list follows other processes cheaply, a stopped run keeps its verdict,
PAUSED shows, step badges match findings, a step's log ends with the step; windows fit the screen; New database."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import time

import pytest
from views_support import ROOT, isolated_settings, make_synthetic_run  # noqa: F401

from PySide6.QtCore import QRect, QSize  # noqa: E402
from PySide6.QtWidgets import QFileDialog, QWidget  # noqa: E402

from app.views.model.database import Database  # noqa: E402
from app.engine.judge.oracles import Finding  # noqa: E402
from app.engine.judge.verdict import Evidence, decide  # noqa: E402
from app.engine.run.session import RunConfig, Session  # noqa: E402
from app.engine.testers.base import TesterBase  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.browser.run_browser_view import RunBrowserView  # noqa: E402
from app.views.run.run_view import RunView  # noqa: E402
from app.views.run.steps_model import BADGE_ROLE  # noqa: E402
from app.views.shell.main_window import DEFAULT_SIZE, MainWindow  # noqa: E402
from app.views.widgets.long_task import running_tasks  # noqa: E402
from app.views.widgets.screen_fit import DECORATION_ALLOWANCE, fit_to_screen, fitted_frame  # noqa: E402
from app.views.widgets.tool_window import ToolWindow  # noqa: E402

WRITER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {root!r})
    from app.engine.trace.store import TrajectoryStore
    store = TrajectoryStore({db!r})
    store.finish_run({running}, status="completed", verdict="fail", reason="finished by another process")
    new = store.create_run(target="from-the-cli", tester="offline", display="isolated", seed=0, max_steps=1)
    store.add_step(new, 0, {{"action": {{"action": "wait", "seconds": 0.1}}, "outcome": "ok",
                            "started_at": time.time(), "ended_at": time.time()}})
    store.finish_run(new, status="completed", verdict="pass", reason="ok")
    print(new)
""")


@pytest.fixture(autouse=True)
def no_work_left_running():
    yield
    for task in running_tasks():
        task.cancel()
        assert task.wait(5000)


def _stop(widget: QWidget) -> None:
    browser = widget if isinstance(widget, RunBrowserView) else getattr(widget, "browser", None)
    if browser is not None:
        browser.stop_watching()


def test_run_list_is_one_query_with_the_same_rows_as_runs(tmp_path):
    store = TrajectoryStore(tmp_path / "runs.db")
    rng = random.Random(3)
    ids = [make_synthetic_run(store, rng.randint(0, 4), distinct_frames=1, verdict=rng.choice(["pass", "fail"]),
                              status=rng.choice(["completed", "running", "stopped"])) for _ in range(30)]
    for rid in ids[::3]:
        store.add_judgment(rid, source="human", author="ann", verdict="pass", note="seen it")
    for rid in ids[::6]:
        store.undo_last_override(rid, "ann")
    store.add_judgment(ids[1], source="tester", author="tester", verdict="uncertain", criterion="c1")
    store.add_judgment(ids[2], source="human", author="bo", verdict="fail", criterion="c1")
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    rows = store.run_list()
    store.conn.set_trace_callback(None)
    assert len([s for s in statements if s.lstrip().upper().startswith(("SELECT", "WITH"))]) == 1
    assert rows == store.runs()

    whole, mark = store.run_list_changes(None)
    assert whole == rows
    assert store.run_list_changes(mark)[0] == [r for r in rows if r["ended_at"] is None]  # only runs not ended
    store.add_judgment(ids[7], source="human", author="cy", verdict="fail")
    new = make_synthetic_run(store, 1, distinct_frames=1)
    changed, mark2 = store.run_list_changes(mark)
    assert {r["id"] for r in changed} == {ids[7], new} | {r["id"] for r in rows if r["ended_at"] is None}
    assert {r["id"]: r for r in changed}[ids[7]]["effective_verdict"] == "fail"
    assert mark2.runs == new and mark2.judgments > mark.judgments
    open_run = next(r["id"] for r in rows if r["ended_at"] is None)
    store.finish_run(open_run, status="stopped", verdict=None, reason="ended between two reads")
    changed, _ = store.run_list_changes(mark2)  # stopping a run adds no id anywhere: it is asked for by name
    assert {r["id"]: r for r in changed}[open_run]["status"] == "stopped"
    store.close()


def test_the_run_list_follows_another_process_with_one_read_per_change(qtbot, tmp_path):
    db = tmp_path / "runs.db"
    store = TrajectoryStore(db)
    done = make_synthetic_run(store, 2, distinct_frames=1)
    running = make_synthetic_run(store, 3, distinct_frames=1, verdict=None, status="running")
    browser = RunBrowserView()
    qtbot.addWidget(browser)
    browser.set_database(Database(store))
    assert browser.model.rowCount() == 2
    row = browser.model.row_of(running)
    assert browser.model.run_at(row)["status"] == "running"
    reads = browser.watcher.reads
    qtbot.wait(800)  # nothing changed: no re-read at all
    assert browser.watcher.reads == reads
    with qtbot.waitSignal(browser.sig_runs_changed, timeout=20000) as blocker:
        out = subprocess.run([sys.executable, "-c", WRITER.format(root=str(ROOT), db=str(db), running=running)],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
    new = int(out.stdout.strip())
    qtbot.waitUntil(lambda: browser.model.row_of(new) is not None, timeout=10000)
    assert {running, new} <= blocker.args[0] and done not in blocker.args[0]
    assert browser.model.run_at(browser.model.row_of(running))["status"] == "completed"
    assert browser.model.run_at(browser.model.row_of(running))["effective_verdict"] == "fail"
    assert browser.watcher.reads - reads <= 2  # one whole-list read per change seen, never one per run
    _stop(browser)
    store.close()


def test_the_open_run_follows_a_run_finished_elsewhere(qtbot, tmp_path, isolated_settings):
    db = tmp_path / "runs.db"
    store = TrajectoryStore(db)
    running = make_synthetic_run(store, 3, distinct_frames=1, verdict=None, status="running")
    store.close()
    window = MainWindow()
    window.modal_messages = False
    qtbot.addWidget(window)
    window.open_database(db)
    window.open_run(running)
    window.run_view.last_step()
    assert window.run_view.run["status"] == "running"
    other = TrajectoryStore(db)
    other.add_step(running, 3, {"action": {"action": "wait", "seconds": 0.1}, "outcome": "ok",
                                "started_at": time.time(), "ended_at": time.time()})
    other.finish_run(running, status="completed", verdict="pass", reason="done elsewhere")
    other.close()
    qtbot.waitUntil(lambda: window.run_view.run["status"] == "completed", timeout=10000)
    assert window.run_view.model.available == 4 and window.run_view.current_row() == 3  # it followed
    assert "PASS" in window.run_view.header.title.text()
    window.close()


def test_a_stopped_run_is_judged_on_what_was_seen_and_says_so(tmp_path):
    class Tester(TesterBase):
        def verdict(self, findings, steps):
            return decide(Evidence(findings, steps, judges_criteria=False, scope="over 3 screens"))

    store = TrajectoryStore(tmp_path / "runs.db")
    session = Session(RunConfig("x"), store, tester=Tester())
    session.run_id = store.create_run(target="x", tester="offline")
    session.steps = 59
    result = session._finish("stopped", "")
    assert result.status == "stopped" and result.verdict == "pass"
    assert result.reason.endswith("(run stopped after 59 steps)")
    run = store.run(session.run_id)
    assert run["status"] == "stopped" and run["verdict"] == "pass" and "run stopped" in run["reason"]

    crashed = Session(RunConfig("x"), store, tester=Tester())
    crashed.run_id = store.create_run(target="x", tester="offline")
    crashed.steps = 4
    crashed.findings = [Finding("crash", "the program died", 3)]
    assert crashed._finish("stopped", "").verdict == "fail"

    nothing = Session(RunConfig("x"), store, tester=Tester())
    nothing.run_id = store.create_run(target="x", tester="offline")
    assert nothing._finish("stopped", "").verdict == "error"  # no step seen: no verdict recorded
    assert store.run(nothing.run_id)["verdict"] is None
    store.close()


def test_header_says_paused_badges_match_findings_and_the_log_ends_with_the_step(qtbot, tmp_path, qtmodeltester):
    store = TrajectoryStore(tmp_path / "runs.db")
    run_id = make_synthetic_run(store, 12, distinct_frames=2, verdict=None, status="running")
    step2 = store.step(run_id, 2)
    store.add_finding(run_id, {"step": 2, "kind": "exit", "message": "the program quit"})  # recorded apart
    store.conn.execute("INSERT INTO target_logs (run_id, stream, t, text) VALUES (?, 'stderr', ?, ?)",
                       [run_id, step2["ended_at"] + 0.01, "Traceback of a later step"])
    view = RunView()
    qtbot.addWidget(view)
    view.set_database(Database(store))
    view.open_run(run_id)
    view.set_live_run(run_id)
    view.set_live_state("paused")
    assert "PAUSED" in view.header.title.text()
    view.set_live_state("running")
    assert "RUNNING" in view.header.title.text() and "PAUSED" not in view.header.title.text()

    model = view.model
    qtmodeltester.check(model)
    assert model.index(5, 0).data(BADGE_ROLE)[0] == "exception"  # step 5 carries an exception, its action went ok
    assert model.step_at(5)["outcome"] == "ok"
    assert model.index(2, 0).data(BADGE_ROLE)[0] == "exit"
    assert model.index(3, 0).data(BADGE_ROLE)[0] == "refused"
    assert model.index(4, 0).data(BADGE_ROLE)[0] == "ok"
    assert "exception" in model.index(5, 0).data()

    view.go_to_row(2)
    text = view.details.toPlainText()
    assert "exit (action ok)" in text and "log line 2" not in text.split("Target log")[0]
    assert "Traceback of a later step" not in text  # written after step 2 ended
    assert "log line 1" in text
    view.go_to_row(3)
    assert "Traceback of a later step" in view.details.toPlainText()
    store.close()


def test_windows_fit_the_screen_at_any_scaling(qtbot):
    laptop = QRect(0, 0, 1280, 800)
    scaled = QRect(0, 0, 1280, 690)  # 1920x1080 at 150 %, less a 60 px panel, in logical pixels
    for area in (laptop, scaled):
        for wanted in (QSize(*DEFAULT_SIZE), QSize(1300, 850), QSize(1200, 800)):
            frame = fitted_frame(wanted, area)
            assert area.contains(frame), (area, frame)
            assert frame.width() - DECORATION_ALLOWANCE.width() <= wanted.width()
    small = fitted_frame(QSize(400, 300), laptop)
    assert small.size() == QSize(400, 300) + DECORATION_ALLOWANCE and small.center() == laptop.center()

    window = MainWindow()
    qtbot.addWidget(window)
    # the workbench's least size fits both screens, so fitting never has to overflow
    assert window.minimumSizeHint().width() <= 1280 - DECORATION_ALLOWANCE.width()
    assert window.minimumSizeHint().height() <= 690 - DECORATION_ALLOWANCE.height()
    available = window.screen().availableGeometry()
    fit_to_screen(window, DEFAULT_SIZE)
    assert window.width() <= max(available.width(), window.minimumSizeHint().width())
    assert window.height() <= available.height()
    tool = ToolWindow(QWidget(), size=(1300, 850))
    qtbot.addWidget(tool)
    assert tool.width() <= available.width() and tool.height() <= available.height()
    _stop(window)


def test_file_new_database_creates_an_empty_one_and_never_touches_a_file(qtbot, tmp_path, monkeypatch,
                                                                          isolated_settings):
    window = MainWindow()
    window.modal_messages = False
    qtbot.addWidget(window)
    target = tmp_path / "fresh" / "new.db"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "")))
    window.commands.new_db.trigger()
    assert target.is_file() and window.db_path == target and window.browser.model.rowCount() == 0
    assert str(target) in window.windowTitle()
    other = tmp_path / "keep.txt"
    other.write_text("mine")
    assert not window.new_database(other)
    assert "already exists" in window.messages[-1] and other.read_text() == "mine" and window.db_path == target
    window.close()
