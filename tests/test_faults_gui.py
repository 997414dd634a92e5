"""The workbench quits on SIGTERM even while a modal dialog runs its own event loop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QMainWindow, QMessageBox  # noqa: E402

from app.views.shell.quit_on_signals import QuitOnSignals  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAFETY_MS = 8000
"""If the signal is not honoured, the test's own timer ends the loop with this code's opposite: 99."""


def _quits(qapp, qtbot, *, before_loop: bool) -> tuple[int, float, list[str]]:
    window = QMainWindow()
    qtbot.addWidget(window)
    window.show()
    signals = QuitOnSignals(window)
    signals.install()
    seen: list[str] = []

    def ask() -> None:
        seen.append("dialog open")
        QMessageBox.question(window, "PlayCoder", "Discard the labels?")
        seen.append("dialog closed")

    try:
        QTimer.singleShot(400, lambda: os.kill(os.getpid(), signal.SIGTERM))
        safety = QTimer()
        safety.setSingleShot(True)
        safety.timeout.connect(lambda: qapp.exit(99))
        safety.start(SAFETY_MS)
        t0 = time.monotonic()
        if before_loop:  # as when a message is shown while the window opens, before the main loop runs
            ask()
        else:
            QTimer.singleShot(50, ask)
        code = qapp.exec()
        safety.stop()
        return code, time.monotonic() - t0, seen
    finally:
        signals.uninstall()


def test_sigterm_closes_a_dialog_opened_in_the_main_loop(qapp, qtbot):
    code, seconds, seen = _quits(qapp, qtbot, before_loop=False)
    assert code == 128 + signal.SIGTERM and seconds < 3
    assert seen == ["dialog open", "dialog closed"]


def test_sigterm_during_a_dialog_before_the_main_loop_still_ends_the_main_loop(qapp, qtbot):
    code, seconds, seen = _quits(qapp, qtbot, before_loop=True)
    assert code == 128 + signal.SIGTERM and seconds < 3
    assert seen == ["dialog open", "dialog closed"]


def test_the_gui_command_quits_on_sigterm_while_a_message_box_is_up(tmp_path):
    """A damaged database opens a modal message before the main loop; SIGTERM must still end the program."""
    db = tmp_path / "damaged.db"
    db.write_bytes(b"SQLite format 3\x00" + b"\xff" * 8192)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_STATE_HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "app", "gui", "--db", str(db)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(3)
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 128 + signal.SIGTERM
    assert "Traceback" not in proc.stderr.read()
