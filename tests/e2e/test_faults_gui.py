"""The workbench quits on SIGTERM even while a modal dialog runs its own event loop.

Each case runs in a process of its own: a signal that ends the application's
event loops from inside a dialog leaves Qt's timers unusable for whatever would
run next in the same process (here: the next test), as it should for an
application that is quitting.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = r"""
import json, os, signal, sys, time
sys.path.insert(0, sys.argv[2])
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMainWindow, QMessageBox
from app.views.shell.quit_on_signals import QuitOnSignals

app = QApplication([])
window = QMainWindow()
window.show()
signals = QuitOnSignals(window)
signals.install()
seen = []

def ask():
    seen.append("dialog open")
    QMessageBox.question(window, "PlayCoder", "Discard the labels?")
    seen.append("dialog closed")

QTimer.singleShot(400, lambda: os.kill(os.getpid(), signal.SIGTERM))
QTimer.singleShot(8000, lambda: app.exit(99))  # the signal was not honoured
t0 = time.monotonic()
if sys.argv[1] == "before-loop":  # as a message shown while the window opens, before the main loop runs
    ask()
else:
    QTimer.singleShot(50, ask)
code = app.exec()
print(json.dumps({"code": code, "seconds": time.monotonic() - t0, "seen": seen, "exit_code": signals.exit_code}))
"""


@pytest.mark.parametrize("when", ["in-loop", "before-loop"])
def test_sigterm_ends_the_workbench_with_a_dialog_open(when: str) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, "-c", SCRIPT, when, str(ROOT)], capture_output=True, text=True, timeout=60,
                         env=env)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["code"] == 128 + signal.SIGTERM == result["exit_code"], result
    assert result["seconds"] < 3 and result["seen"] == ["dialog open", "dialog closed"]


def wait_until_idle(pid: int, quiet_s: float = 0.6, limit_s: float = 30.0) -> None:
    """Until the process has used no CPU for ``quiet_s``: started up and waiting for input.
    (A fixed sleep is too short on a loaded machine, where the GUI's imports alone take seconds.)"""
    proc = psutil.Process(pid)
    deadline = time.monotonic() + limit_s
    last, since = -1.0, time.monotonic()
    while time.monotonic() < deadline:
        used = sum(proc.cpu_times()[:2])
        if used != last:
            last, since = used, time.monotonic()
        elif last > 0.5 and time.monotonic() - since >= quiet_s:
            return
        time.sleep(0.1)


def test_the_gui_command_quits_on_sigterm_while_a_message_box_is_up(tmp_path: Path) -> None:
    """A damaged database opens a modal message before the main loop; SIGTERM must still end the program."""
    db = tmp_path / "damaged.db"
    db.write_bytes(b"SQLite format 3\x00" + b"\xff" * 8192)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_STATE_HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "app", "gui", "--db", str(db)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until_idle(proc.pid)  # the modal message is up: the program waits in its event loop
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 128 + signal.SIGTERM
    assert "Traceback" not in (proc.stderr.read() if proc.stderr else "")
