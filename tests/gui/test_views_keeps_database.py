"""The workbench keeps following its database after a file dialog glanced at it and other processes wrote.

A file dialog opened in the database's folder reads ``runs.db`` and ``runs.db-shm`` (their icons, their types)
and closes them again; on Linux that once dropped every lock SQLite held on them in the workbench's process,
the next command-line run deleted the ``-wal`` and ``-shm`` the workbench still had open, and from then on new
runs never appeared and reads failed with "malformed" or "disk I/O error"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from views_support import ROOT, isolated_settings, window, make_synthetic_run  # noqa: F401

from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit  # noqa: E402

from app.engine.trace.bundle import export_bundle  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402

DIALOG_LOOK_MS = 1500
"""How long the real file dialog stays open, listing the database's folder, before the test answers it."""


def _answer_dialog_with(path: Path) -> None:
    """Once a real QFileDialog is up and has listed the folder of ``path``, choose ``path`` in it."""
    def look() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QFileDialog):
            QTimer.singleShot(50, look)
            return
        dialog.setDirectory(str(path.parent))
        QTimer.singleShot(DIALOG_LOOK_MS, lambda: choose(dialog))

    def choose(dialog: QFileDialog) -> None:
        name = dialog.findChild(QLineEdit, "fileNameEdit")  # typed, as a person does
        name.setText(str(path))
        dialog.accept()
    QTimer.singleShot(50, look)


def _cli_run(db: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "app", "test", "calculator", "--max-steps", "2", "--db", str(db)],
                          cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]


def _deleted_files_held() -> list[str]:
    held = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            held.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass
    return [name for name in held if name.endswith("(deleted)") and ".db-" in name]


@pytest.mark.parametrize("command", ["export_report", "import_bundle"])
def test_runs_written_after_a_file_dialog_still_appear(window, qtbot, tmp_path, command):
    db = tmp_path / "runs.db"
    store = TrajectoryStore(db)
    first = make_synthetic_run(store, 3, target="calculator", distinct_frames=2)
    export_bundle(store, first, tmp_path / "run.zip")
    store.close()
    assert window.open_database(db) and window.open_run(first)

    _answer_dialog_with(tmp_path / ("run.html" if command == "export_report" else "run.zip"))
    with qtbot.waitSignal(window.transfer.sig_task_ended, timeout=60000) as ended:
        getattr(window.commands, command).trigger()
    assert ended.args == ["finished"] and window.messages == []
    shown = window.browser.model.rowCount()

    _cli_run(db)
    assert _deleted_files_held() == []
    _cli_run(db)
    qtbot.waitUntil(lambda: window.browser.model.rowCount() == shown + 2, timeout=20000)
    newest = max(row["id"] for row in window.database.runs())
    assert window.open_run(newest) and window.run_view.model.available == 2
    assert window.messages == [] and QApplication.activeModalWidget() is None
