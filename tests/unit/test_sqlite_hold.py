"""A store keeps its database whatever else its process and other processes do with the file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from app.engine.trace.store import TrajectoryStore
from app.views.model.database import Database

ROOT = Path(__file__).resolve().parents[2]
WRITE_ONE_RUN = ("import sys; from app.engine.trace.store import TrajectoryStore as T; s = T(sys.argv[1]); "
                 "r = s.create_run(target='cli', tester='offline', status='running'); "
                 "s.finish_run(r, status='done', verdict='pass'); s.close()")


def _write_elsewhere(db: Path) -> None:
    subprocess.run([sys.executable, "-c", WRITE_ONE_RUN, str(db)], cwd=ROOT, check=True, timeout=120)


def _glance(path: Path) -> None:
    """What a file dialog does to show a file's type: open, read a little, close (in this process)."""
    with open(path, "rb") as fh:
        fh.read(64)


def test_a_glance_at_the_files_does_not_let_another_process_delete_the_wal(tmp_path):
    db = tmp_path / "runs.db"
    _write_elsewhere(db)
    held = Database.open(db)
    assert len(held.runs()) == 1
    _glance(db)
    _glance(Path(f"{db}-shm"))
    _write_elsewhere(db)
    _write_elsewhere(db)
    assert Path(f"{db}-wal").exists() and Path(f"{db}-shm").exists()
    assert len(held.runs()) == 3
    held.close()
    last = TrajectoryStore(db)
    last.close()
    assert not Path(f"{db}-wal").exists(), "the last connection anywhere still tidies the WAL away"


def test_a_file_moved_over_the_database_is_opened_again(tmp_path):
    db, other = tmp_path / "runs.db", tmp_path / "other.db"
    _write_elsewhere(db)
    for _ in range(3):
        _write_elsewhere(other)
    shutil.copyfile(other, tmp_path / "incoming.db")
    database = Database.open(db)
    before = database.data_version()
    assert len(database.runs()) == 1
    os.replace(tmp_path / "incoming.db", db)
    database.end_read()
    assert database.data_version() != before
    assert len(database.runs()) == 3
    database.close()
