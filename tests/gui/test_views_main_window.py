"""The main window: databases, menus, engine hand-offs (bundles, reports) and the error hook."""

from __future__ import annotations

import logging
import os
import signal
import sqlite3
import subprocess
import sys
import time
import types

import pytest
from views_support import ROOT, isolated_settings, window, make_synthetic_run  # noqa: F401

APPS = ROOT / "benchmark" / "apps"

from PySide6.QtCore import Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QFileDialog  # noqa: E402

from app.engine.errors import StoreError, UserError  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.engine.play.targetspec import load_bugs  # noqa: E402
from app.views.shell.error_reporter import ErrorReporter  # noqa: E402
from app.views.shell.main_window import MainWindow, run_gui  # noqa: E402
from app.views.live.new_run_dialog import NewRunDialog  # noqa: E402


@pytest.fixture
def db_with_runs(tmp_path):
    path = tmp_path / "runs.db"
    store = TrajectoryStore(path)
    ids = [make_synthetic_run(store, n, target=t, distinct_frames=2) for n, t in ((3, "flappy"), (5, "calculator"))]
    store.close()
    return path, ids


def test_open_database_lists_runs_and_opens_one(window, db_with_runs):
    path, ids = db_with_runs
    assert window.open_database(path)
    assert str(path) in window.windowTitle()
    assert window.browser.model.rowCount() == 2
    assert window.open_run(ids[1])
    assert window.run_view.run_id == ids[1] and window.run_view.model.available == 5
    assert window.run_view.current_row() == 0
    window.commands.last_step.trigger()
    assert window.run_view.current_row() == 4
    window.commands.previous_step.trigger()
    assert window.run_view.current_row() == 3
    assert window.statusBar().currentMessage() == "Step 4 of 5"


def test_foreign_and_corrupt_databases_end_in_one_sentence(window, tmp_path, db_with_runs):
    good, _ = db_with_runs
    assert window.open_database(good)
    foreign = tmp_path / "foreign.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    assert not window.open_database(foreign)
    assert "not a PlayCoder database" in window.messages[-1]
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"this is not sqlite at all" * 100)
    assert not window.open_database(corrupt)
    assert "not a readable PlayCoder database" in window.messages[-1]
    assert all("Traceback" not in m for m in window.messages)
    assert window.db_path == good and window.browser.model.rowCount() == 2  # the open database stays open


def _transfer(window, qtbot, action, timeout=30000):
    """Trigger a File › transfer command and wait for its work (off the GUI thread) to end."""
    with qtbot.waitSignal(window.transfer.sig_task_ended, timeout=timeout) as blocker:
        action.trigger()
    return blocker.args[0]


def test_export_and_import_call_the_engine_and_report_user_errors(window, db_with_runs, tmp_path, monkeypatch, qtbot):
    path, ids = db_with_runs
    window.open_database(path)
    window.open_run(ids[0])
    calls = []

    def export_bundle(store, run_id, out):
        calls.append(("export", run_id, out))
        if out.name == "bad.zip":
            raise UserError("The bundle could not be written; choose another folder.")

    def import_bundle(store, src):
        if src.name == "corrupt.zip":
            raise StoreError("corrupt.zip is not a PlayCoder bundle; export it again.")
        return make_synthetic_run(store, 2, target="imported", distinct_frames=1)

    monkeypatch.setitem(sys.modules, "app.engine.trace.bundle",
                        types.SimpleNamespace(export_bundle=export_bundle, import_bundle=import_bundle))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(tmp_path / "run.zip"), "")))
    assert _transfer(window, qtbot, window.commands.export_run) == "finished"
    assert calls == [("export", ids[0], tmp_path / "run.zip")] and window.messages == []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(tmp_path / "bad.zip"), "")))
    assert _transfer(window, qtbot, window.commands.export_run) == "failed"
    assert window.messages == ["The bundle could not be written; choose another folder."]

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(tmp_path / "corrupt.zip"), "")))
    _transfer(window, qtbot, window.commands.import_bundle)
    assert window.messages[-1] == "corrupt.zip is not a PlayCoder bundle; export it again."
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(tmp_path / "ok.zip"), "")))
    _transfer(window, qtbot, window.commands.import_bundle)
    assert window.browser.model.rowCount() == 3
    assert window.run_view.run is not None and window.run_view.run["target"] == "imported"

    # A missing engine module (not written yet) is a clear message, not an ImportError.
    monkeypatch.setitem(sys.modules, "app.engine.trace.report", None)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(tmp_path / "r.html"), "")))
    window.commands.export_report.trigger()
    assert "cannot write reports yet" in window.messages[-1]


def test_new_run_dialog_builds_the_engine_request(qtbot, tmp_path):
    dialog = NewRunDialog()
    qtbot.addWidget(dialog)
    assert dialog.app_combo.count() >= 1  # the bundled benchmark apps
    dialog.app_combo.setCurrentIndex(dialog.app_combo.findText("flappy"))
    assert dialog.bug_combo.count() > 1 and dialog.bug_combo.isEnabled()
    dialog.bug_combo.setCurrentIndex(dialog.bug_combo.findData("crash-on-fifth-flap"))
    bug = next(b for b in load_bugs(APPS / "flappy") if b.id == "crash-on-fifth-flap")
    assert bug.description in dialog.bug_label.text() and bug.type in dialog.bug_label.text()
    dialog.steps_spin.setValue(12)
    dialog.seed_spin.setValue(3)
    request = dialog.request()
    assert request is not None and request.target.endswith("flappy@crash-on-fifth-flap")
    args = request.engine_arguments(tmp_path / "x.db")
    assert args[:4] == ["-m", "app", "test", request.target]
    assert args[args.index("--max-steps") + 1] == "12" and args[args.index("--seed") + 1] == "3"
    assert args[args.index("--events") + 1] == "-" and args[args.index("--display") + 1] == "isolated"

    dialog.folder_radio.setChecked(True)
    dialog.folder_edit.setText(str(tmp_path))
    assert dialog.request() is None and "playcoder.toml" in dialog.error_label.text()
    assert not dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()


def test_error_reporter_logs_and_never_raises(qapp, tmp_path, caplog):
    reporter = ErrorReporter(tmp_path / "logs" / "workbench.log", show_dialogs=False)
    previous = sys.excepthook
    reporter.install()
    try:
        assert sys.excepthook == reporter.hook
        try:
            raise RuntimeError("kaboom")
        except RuntimeError as exc:
            with caplog.at_level(logging.ERROR, logger="playcoder.workbench"):
                sys.excepthook(type(exc), exc, exc.__traceback__)
        try:
            raise UserError("Do this instead.")
        except UserError as exc:
            sys.excepthook(type(exc), exc, exc.__traceback__)
    finally:
        reporter.uninstall()
    assert sys.excepthook is previous
    assert [type(e).__name__ for e in reporter.reported] == ["RuntimeError", "UserError"]
    assert "kaboom" in caplog.text and "Traceback" in caplog.text
    assert "kaboom" in (tmp_path / "logs" / "workbench.log").read_text()
    assert not any(isinstance(h, logging.FileHandler) for h in logging.getLogger("playcoder").handlers)


def test_run_gui_opens_the_requested_run_and_returns_an_exit_code(qapp, db_with_runs, isolated_settings,
                                                                  monkeypatch, tmp_path):
    path, ids = db_with_runs
    monkeypatch.setattr("app.views.shell.main_window.default_log_file", lambda: tmp_path / "gui.log")
    seen = {}

    def inspect_and_close():
        windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        seen["run"] = windows[0].run_view.run_id if windows else None
        seen["title"] = windows[0].windowTitle() if windows else ""
        for w in windows:
            w.close()

    QTimer.singleShot(300, inspect_and_close)
    previous = sys.excepthook
    assert run_gui(db=path, open_run=ids[0]) == 0
    assert sys.excepthook is previous
    assert seen["run"] == ids[0] and str(path) in seen["title"]


def cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def wait_idle(proc: subprocess.Popen, at_least_s: float = 3.0, timeout_s: float = 60.0) -> None:
    """Until the process has used (almost) no CPU for a second: the window is up and idle in Qt's event loop.
    A fixed wait was not enough on a busy machine: the signal came while the window was still being built,
    and the command line's handler (exit 130) answered it instead of the window's."""
    time.sleep(at_least_s)
    deadline = time.monotonic() + timeout_s
    last = cpu_seconds(proc.pid)
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(1.0)
        now = cpu_seconds(proc.pid)
        if now - last < 0.05:
            return
        last = now


def test_gui_command_stops_cleanly_on_sigterm(db_with_runs, tmp_path):
    path, ids = db_with_runs
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_STATE_HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "app", "gui", "--db", str(path), "--open", str(ids[0])],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_idle(proc)
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 128 + signal.SIGTERM
    assert "Traceback" not in proc.stderr.read()


def test_export_import_and_report_round_trip_with_the_real_engine(window, db_with_runs, tmp_path, monkeypatch, qtbot):
    path, ids = db_with_runs
    window.open_database(path)
    window.open_run(ids[1])
    bundle, report = tmp_path / "out" / "run.zip", tmp_path / "out" / "run.html"
    bundle.parent.mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(bundle), "")))
    _transfer(window, qtbot, window.commands.export_run)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(report), "")))
    _transfer(window, qtbot, window.commands.export_report)
    assert window.messages == [] and bundle.is_file() and report.is_file()
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(bundle), "")))
    _transfer(window, qtbot, window.commands.import_bundle)
    assert window.browser.model.rowCount() == 3
    imported = window.run_view.run_id
    assert imported not in ids and window.run_view.model.available == 5
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(broken), "")))
    assert _transfer(window, qtbot, window.commands.import_bundle) == "failed"
    assert len(window.messages) == 1 and "Traceback" not in window.messages[0]
    assert window.browser.model.rowCount() == 3


def test_keyboard_moves_through_steps(window, db_with_runs, qtbot):
    path, ids = db_with_runs
    window.open_database(path)
    window.open_run(ids[1])
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    window.run_view.timeline.setFocus()
    qtbot.keyClick(window.run_view.timeline, Qt.Key.Key_Right)
    assert window.run_view.current_row() == 1
    qtbot.keyClick(window.run_view.timeline, Qt.Key.Key_End)
    assert window.run_view.current_row() == 4
    qtbot.keyClick(window.run_view.timeline, Qt.Key.Key_Left)
    assert window.run_view.current_row() == 3
    qtbot.keyClick(window.run_view.timeline, Qt.Key.Key_Home)
    assert window.run_view.current_row() == 0
    window.browser.search.setFocus()
    qtbot.keyClicks(window.browser.search, "calc")  # letters go to the search box, not to shortcuts
    assert window.browser.search.text() == "calc"
    qtbot.keyClick(window.browser.search, Qt.Key.Key_Left)  # the line edit keeps its arrows
    assert window.run_view.current_row() == 0 and window.browser.search.cursorPosition() == 3
