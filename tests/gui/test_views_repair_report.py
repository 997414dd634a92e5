"""HTML report of a whole repair session: the engine's file, Export HTML… off the GUI thread (progress, cancel,
one-sentence failures), ``playcoder export SESSION -o FILE.html`` and ``playcoder repair … --report``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading

from views_support import ROOT, make_synthetic_run, needs_xvfb  # noqa: F401

import pytest  # noqa: E402

from app.views.model.database import Database  # noqa: E402
from app.engine.errors import UserError  # noqa: E402
from app.engine.repair import report as report_module  # noqa: E402
from app.engine.repair.events import CycleRecorded, DiagnosisMade, repair_event_from_json  # noqa: E402
from app.engine.play.events import event_to_json  # noqa: E402
from app.engine.repair.report import render_repair_report, write_repair_report  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.repair.repair_view import RepairView  # noqa: E402
from app.views.widgets.long_task import CANCELLED, FAILED, FINISHED  # noqa: E402
from test_views_repair_live import add_cycle, add_session  # noqa: E402


@pytest.fixture
def repaired(tmp_path):
    db = tmp_path / "repair.db"
    store = TrajectoryStore(db)
    session, before = add_session(store)
    add_cycle(store, session, 1, before)
    add_cycle(store, session, 2, before)
    store.finish_run(session, status="completed", verdict="fail", reason="not fixed after 2 iterations")
    yield db, store, session, before
    store.close()


def test_the_report_holds_every_cycle_with_its_patch_and_frames(repaired):
    db, store, session, before = repaired
    progress = []
    text = render_repair_report(store, session, lambda done, total, what: progress.append((done, total)))
    assert progress == [(0, 2), (1, 2), (2, 2)]
    assert "Repair of flappy@crash" in text and "not fixed" in text and "not fixed after 2 iterations" in text
    assert text.count('<section class=cycle id="cycle-') == 2
    assert "Iteration 1" in text and "Iteration 2" in text and "diagnosis 2" in text
    assert '<span class="gd">' in text and '<span class="gi">' in text and ".hl .gd" in text  # pygments, with its CSS
    # both frames at the step where the failure shows (idx 3), numbered from 1 as everywhere in the workbench
    assert "Both at step 4" in text and f"run {before}, step 4" in text and "step 3," not in text
    assert "the program died" in text and "[syntax] ok" in text
    frames = re.findall(r"\.f[0-9a-f]{16}\{background-image:url\(data:image/", text)
    assert 1 <= len(frames) <= 3  # each distinct frame once, though four pictures show
    assert "http://" not in text and "https://" not in text and "<script" not in text  # self-contained


def test_a_crash_shows_the_last_live_picture_instead_of_the_dead_window(repaired):
    """Issue 28: the failure step of a crash has a blank frame after it (the window was gone); the report shows
    the last picture that was not blank, and says so."""
    from PIL import Image

    _db, store, session, before = repaired
    black = store.put_image(Image.new("RGB", (64, 48), "black"))
    live = store.step(before, 3)["frame_before"]
    store.conn.execute("UPDATE steps SET frame_after = ? WHERE run_id = ? AND idx = 3", (black, before))
    store.conn.commit()
    text = render_repair_report(store, session, lambda *_: None)
    assert f"run {before}, step 4 · the window was gone: the last live picture, before step 4" in text
    assert f".f{live[:16]}" in text and f".f{black[:16]}" not in text  # the dead window is never embedded


def test_a_play_run_or_a_missing_run_is_refused_in_one_sentence(repaired, tmp_path):
    _db, store, _session, before = repaired
    with pytest.raises(UserError, match="not a repair session"):
        render_repair_report(store, before)
    with pytest.raises(UserError, match="no run 999"):
        render_repair_report(store, 999)
    with pytest.raises(UserError, match="choose another file or folder"):
        (tmp_path / "file").write_text("x")
        write_repair_report(store, _session, tmp_path / "file" / "r.html")


def test_repair_events_travel_as_json_lines():
    for event in (DiagnosisMade(3, 1, "why", (4, 5)), CycleRecorded(3, 1, 7, "fixed", "pass", None, "guard")):
        assert repair_event_from_json(event_to_json(event)) == event
    with pytest.raises(ValueError):
        repair_event_from_json('{"event":"RunStarted","run_id":1}')


@pytest.fixture
def view(qtbot, repaired):
    _db, store, _session, _before = repaired
    view = RepairView(Database(store))
    qtbot.addWidget(view)
    view.show()
    return view


def test_export_html_runs_off_the_gui_thread_and_writes_the_file(qtbot, view, repaired, tmp_path):
    _db, _store, session, _before = repaired
    out = tmp_path / "out" / "session.html"
    said: list[str] = []
    main_thread = threading.get_ident()
    threads = []
    original = report_module.render_repair_report

    def spy(*args, **kwargs):
        threads.append(threading.get_ident())
        return original(*args, **kwargs)

    report_module.render_repair_report = spy
    try:
        task = view.export_report(out, say=said.append)
        with qtbot.waitSignal(task.sig_finished, timeout=20000):
            pass
    finally:
        report_module.render_repair_report = original
    assert task.outcome == FINISHED and out.is_file() and threads and threads[0] != main_thread
    assert said == [f"Wrote the report of repair session {session} to {out}."]
    assert "Iteration 2" in out.read_text()


def test_export_html_can_be_cancelled_and_writes_nothing(qtbot, view, monkeypatch, tmp_path):
    gate = threading.Event()
    original = report_module.cycles

    def slow_cycles(*args, **kwargs):
        gate.wait(10)
        return original(*args, **kwargs)

    monkeypatch.setattr(report_module, "cycles", slow_cycles)
    out = tmp_path / "cancelled.html"
    said: list[str] = []
    task = view.export_report(out, say=said.append)
    task.cancel()
    gate.set()
    with qtbot.waitSignal(task.sig_cancelled, timeout=20000):
        pass
    assert task.outcome == CANCELLED and not out.exists() and not list(tmp_path.glob(".cancelled.html*"))
    assert said == ["Cancelled: the repair report was not written."]


def test_export_html_failure_is_one_sentence(qtbot, view, tmp_path):
    (tmp_path / "file").write_text("x")
    said: list[str] = []
    task = view.export_report(tmp_path / "file" / "r.html", say=said.append)
    with qtbot.waitSignal(task.sig_failed, timeout=20000):
        pass
    assert task.outcome == FAILED and len(said) == 1
    assert said[0].startswith("Cannot write") and said[0].endswith("choose another file or folder.")
    assert "Traceback" not in said[0]


def test_export_needs_a_session(qtbot, tmp_path):
    store = TrajectoryStore(tmp_path / "empty.db")
    view = RepairView(Database(store))
    qtbot.addWidget(view)
    said: list[str] = []
    assert view.export_report(tmp_path / "x.html", say=said.append) is None
    assert said == ["Select a repair session (or one of its cycles) to export first."]
    store.close()


def test_the_export_command_writes_a_repair_session_report(repaired, tmp_path):
    db, store, session, _before = repaired
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    out = tmp_path / "cli.html"
    proc = subprocess.run([sys.executable, "-m", "app", "export", str(session), "-o", str(out), "--db", str(db)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert out.is_file() and 'id="cycle-2"' in out.read_text()


@needs_xvfb
def test_repair_report_flag_writes_the_report_at_the_end(tmp_path):
    db, out = tmp_path / "r.db", tmp_path / "report.html"
    proc = subprocess.run([sys.executable, "-m", "app", "repair", "tiles2048@crash-on-restart", "--max-iterations",
                           "1", "--json", "--report", str(out), "--db", str(db)], capture_output=True, text=True,
                          timeout=400, cwd=ROOT, env=dict(os.environ, SDL_AUDIODRIVER="dummy"))
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["report"] == str(out) and out.is_file(), proc.stderr
    text = out.read_text()
    assert f"run {summary['session_run']}" in text and 'id="cycle-1"' in text and "ZeroDivisionError" in text
    assert '<span class="gi">' in text
    bad = subprocess.run([sys.executable, "-m", "app", "repair", "tiles2048", "--report", str(tmp_path / "r.txt"),
                          "--db", str(db)], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert bad.returncode == 2 and "must end in .html" in bad.stderr and "Traceback" not in bad.stderr
