"""Per step, how long the program was busy and how long the engine waited: stored, migrated, shown.

A real SQLite file: a step written with ``busy_ms`` and ``waited_ms`` reads them back; a file written
before them (schema 7) gains the columns on opening and its steps read None; the workbench's step
details (a real :class:`StepDetailsView`, offscreen) show both, and nothing for an older step.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import sqlite_utils  # noqa: E402

from app.engine.trace.store import MIGRATIONS, SCHEMA_VERSION, TrajectoryStore  # noqa: E402

STEP = {"action": {"action": "click", "x": 3, "y": 4}, "outcome": "ok", "settle_ms": 40.0, "settled": 1,
        "busy_ms": 31.5, "waited_ms": 8.5, "started_at": 1.0, "ended_at": 2.0}


def test_a_step_keeps_how_long_the_program_was_busy_and_the_engine_waited(tmp_path: Path) -> None:
    store = TrajectoryStore(tmp_path / "runs.db")
    run = store.create_run(target="t", tester="offline")
    store.add_step(run, 0, STEP)
    store.add_step(run, 1, dict(STEP, busy_ms=None, waited_ms=None))
    first, second = store.steps(run)
    assert (first["busy_ms"], first["waited_ms"]) == (31.5, 8.5)
    assert second["busy_ms"] is None and second["waited_ms"] is None
    store.close()


def test_a_schema_7_database_gains_the_columns_and_its_steps_read_none(tmp_path: Path) -> None:
    old = tmp_path / "old.db"
    conn = sqlite3.connect(old)
    db = sqlite_utils.Database(conn)
    for migration in MIGRATIONS[:7]:
        migration(db)
    conn.execute("PRAGMA user_version = 7")
    conn.execute("INSERT INTO runs (target, tester, started_at) VALUES ('t', 'offline', 1.0)")
    conn.execute("INSERT INTO steps (run_id, idx, action, outcome, settle_ms, started_at, ended_at) "
                 "VALUES (1, 0, '{\"action\": \"wait\", \"seconds\": 1}', 'ok', 300.0, 1.0, 2.0)")
    conn.commit()
    conn.close()
    store = TrajectoryStore(old)
    assert store.schema_version == SCHEMA_VERSION >= 8
    step = store.step(1, 0)
    assert step["settle_ms"] == 300.0 and step["busy_ms"] is None and step["waited_ms"] is None
    store.add_step(1, 1, STEP)
    assert store.step(1, 1)["busy_ms"] == 31.5
    store.close()


def test_the_step_details_show_the_programs_and_the_engines_share(qtbot, tmp_path: Path) -> None:
    from app.views.run.step_details_view import StepDetailsView

    store = TrajectoryStore(tmp_path / "runs.db")
    run = store.create_run(target="t", tester="offline")
    store.add_step(run, 0, STEP)
    store.add_step(run, 1, dict(STEP, busy_ms=None, waited_ms=None))
    view = StepDetailsView()
    qtbot.addWidget(view)
    view.show_step(store.step(run, 0))
    text = view.toPlainText()
    assert "settle 40 ms (settled)" in text
    assert "program busy 32 ms" in text and "engine waited 8 ms" in text  # rounded to whole ms (8.5 -> 8)
    view.show_step(store.step(run, 1))
    assert "program busy" not in view.toPlainText() and "settle 40 ms" in view.toPlainText()
    store.close()
