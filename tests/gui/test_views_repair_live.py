"""Repair, live: New repair… starts a child process, the repair view follows the database (cycles appear, F5),
each cycle opens at the step where the failure shows, Stop ends the repair."""

from __future__ import annotations

import json
import sys
import textwrap
import time
from pathlib import Path

import pytest
from views_support import ROOT, isolated_settings, make_synthetic_run  # noqa: F401

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from app.views.model.database import Database  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.repair.new_repair_dialog import NewRepairDialog, RepairRequest  # noqa: E402
from app.views.repair.repair_view import RepairView  # noqa: E402
from app.views.shell.main_window import MainWindow  # noqa: E402

FAKE_REPAIR = textwrap.dedent("""
    # Stands in for `playcoder repair`: a session whose cycles are recorded one by one, with progress lines.
    import json, signal, sys, time
    sys.path.insert(0, {root!r})
    sys.path.insert(0, {tests!r})
    sys.path.insert(0, {root!r} + '/tests')  # the suite's support modules
    from app.engine.trace.store import TrajectoryStore
    from test_views_repair_live import add_cycle, add_session
    store = TrajectoryStore({db!r})
    session, before = add_session(store)
    print("repairing flappy@crash with the offline refiner (at most 2 iterations)…", flush=True)
    for iteration in (1, 2):
        time.sleep({pause})
        add_cycle(store, session, iteration, before)
        print(f"iteration {{iteration}}: reverted — try {{iteration}}", flush=True)
    store.finish_run(session, status="completed", verdict="fail", reason="not fixed")
    print("not fixed: 2 iteration(s)", flush=True)
    sys.exit(1)
""")


def add_session(store: TrajectoryStore) -> tuple[int, int]:
    """A repair session row and the play it started from (a finding at step 3)."""
    before = make_synthetic_run(store, 6, target="flappy@crash", verdict="fail", distinct_frames=3)
    store.add_finding(before, {"step": 3, "kind": "crash", "message": "the program died"})
    session = store.create_run(target="flappy@crash", tester="offline", kind="repair",
                               config={"refiner": "offline"})
    return session, before


def add_cycle(store: TrajectoryStore, session: int, iteration: int, before: int) -> int:
    retest = make_synthetic_run(store, 6, target="flappy@crash", verdict="fail", distinct_frames=3)
    files = {"session": session, "target": "flappy@crash", "files": ["main.py"], "before_run": before,
             "before_runs": [before], "retest_runs": [retest], "description": f"try {iteration}",
             "outcome": "reverted", "refiner": "offline"}
    with store.transaction():
        return int(store.db.table("patches").insert({
            "run_id": session, "iteration": iteration, "diagnosis": f"diagnosis {iteration}",
            "diff": "--- a/main.py\n+++ b/main.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n", "files": json.dumps(files),
            "validation": json.dumps({"text": "[syntax] ok", "verdict": "fail"}), "retest_run": retest,
            "tokens": 0, "seconds": 1.0, "at": time.time()}).last_pk)


def test_the_repair_view_follows_cycles_written_elsewhere_and_opens_at_the_failure(qtbot, tmp_path):
    db = tmp_path / "repair.db"
    store = TrajectoryStore(db)
    session, before = add_session(store)
    add_cycle(store, session, 1, before)
    view = RepairView(Database(store))
    qtbot.addWidget(view)
    view.follow(db)
    assert view.cycle_count() == 1 and view.current_cycle().iteration == 1
    assert view.step_slider.value() == 3  # the step where the crash shows, not step 0
    assert "step 4" in view.step_label.text()  # idx 3, numbered from 1

    writer = TrajectoryStore(db)
    add_cycle(writer, session, 2, before)
    qtbot.waitUntil(lambda: view.cycle_count() == 2, timeout=5000)  # the list grows by itself
    assert view.current_cycle().iteration == 1  # what the presenter looks at stays

    view.follow(None)  # not following: F5 re-reads at once
    add_cycle(writer, session, 3, before)
    assert view.cycle_count() == 2
    view.show()
    view.activateWindow()
    qtbot.waitUntil(view.isActiveWindow, timeout=5000)
    QTest.keyClick(view, Qt.Key.Key_F5)
    assert view.cycle_count() == 3
    writer.close()
    store.close()


def test_new_repair_dialog_builds_the_command_line(qtbot, tmp_path):
    dialog = NewRepairDialog(llm={"provider": "openai", "model": "gpt-x", "base_url": ""})
    qtbot.addWidget(dialog)
    dialog.app_combo.setCurrentIndex(dialog.app_combo.findText("flappy"))
    assert dialog.bug_combo.count() > 1
    dialog.bug_combo.setCurrentIndex(dialog.bug_combo.findData("crash-on-fifth-flap"))
    dialog.iterations_spin.setValue(3)
    request = dialog.request()
    assert request == RepairRequest("flappy@crash-on-fifth-flap", "offline", 3, "offline", 40)
    args = request.arguments(tmp_path / "r.db")
    assert args[:4] == ["-m", "app", "repair", "flappy@crash-on-fifth-flap"]
    assert args[args.index("--max-iterations") + 1] == "3" and args[args.index("--db") + 1] == str(tmp_path / "r.db")
    dialog.refiner_combo.setCurrentText("llm")
    llm = dialog.request().arguments("x.db")
    assert llm[llm.index("--provider") + 1] == "openai" and "--base-url" not in llm
    dialog.folder_radio.setChecked(True)
    dialog.folder_edit.setText(str(tmp_path))
    assert dialog.request() is None and "playcoder.toml" in dialog.error_label.text()


@pytest.fixture
def window(qtbot, isolated_settings, tmp_path):
    win = MainWindow()
    win.modal_messages = False
    qtbot.addWidget(win)
    win.show()
    assert win.open_database(tmp_path / "repair.db")
    yield win
    win.close()


def _fake(window, pause: float) -> list[str]:
    script = FAKE_REPAIR.format(root=str(ROOT), tests=str(Path(__file__).resolve().parent), db=str(window.db_path), pause=pause)
    return ["-c", script]


def test_a_repair_started_from_the_workbench_is_watched_to_its_end(qtbot, window):
    request = RepairRequest("flappy@crash")
    with qtbot.waitSignal(window.repair.sig_repair_ended, timeout=60000) as ended:
        assert window.repair.start_repair(request, window.database, "Repair", program=sys.executable,
                                          arguments=_fake(window, 0.4))
        view = window.repair.window.view
        assert view.stop_button.isVisible() and "starting" in view.running_label.text()
        qtbot.waitUntil(lambda: view.cycle_count() >= 1, timeout=30000)  # the first cycle appears while it runs
        assert "Repairing flappy@crash" in view.running_label.text()
        assert not window.repair.start_repair(request, window.database, "Repair")  # one at a time
        assert "already going" in window.messages[-1]
    assert ended.args == [1]
    assert view.cycle_count() == 2 and not view.stop_button.isVisible()
    assert "not fixed" in window.statusBar().currentMessage()
    assert view.step_slider.value() == 3


def test_stop_repair_ends_the_child_process(qtbot, window):
    with qtbot.waitSignal(window.repair.sig_repair_ended, timeout=30000):
        window.repair.start_repair(RepairRequest("flappy@crash"), window.database, "Repair", program=sys.executable,
                                   arguments=_fake(window, 30))
        qtbot.waitUntil(lambda: "repairing flappy" in window.repair.window.view.running_label.text(), timeout=20000)
        t0 = time.monotonic()
        window.repair.window.view.stop_button.click()
    assert time.monotonic() - t0 < 10 and not window.repair.repairing


FAKE_EVENTS = textwrap.dedent("""
    # Stands in for `playcoder repair --events -`: the repair's own events and its plays', one stage per stdin line
    # ("resume" from the test), so the test sees every stage however slow the machine.
    import json, sys
    sys.path.insert(0, {root!r})
    sys.path.insert(0, {tests!r})
    sys.path.insert(0, {root!r} + '/tests')  # the suite's support modules
    from app.engine.play.events import RunFinished, RunStarted, StepRecorded, event_to_json
    from app.engine.repair.events import (CycleRecorded, DiagnosisMade, PatchChecked, PatchProposed,
                                          RepairFinished, RepairPhaseChanged, RepairStarted)
    from app.engine.trace.store import TrajectoryStore
    from test_views_repair_live import add_cycle, add_session
    store = TrajectoryStore({db!r})

    def say(event):
        print(event_to_json(event), flush=True)

    def wait():
        if not sys.stdin.readline():
            sys.exit(130)

    session, before = add_session(store)
    say(RepairStarted(session, "flappy@crash", "offline", 1, {db!r}))
    say(RepairPhaseChanged(session, 0, "playing", "playing the program as it is"))
    say(RunStarted(before, "flappy", "offline", "isolated", {db!r}))
    say(StepRecorded(before, 0, {{"action": "press", "key": "space"}}, "ok", None, None, 10.0))
    wait()
    say(RunFinished(before, "completed", "fail", 6))
    say(DiagnosisMade(session, 1, "the program died at step 3", (before,)))
    say(RepairPhaseChanged(session, 1, "refining", "iteration 1: the offline refiner looks for a patch"))
    wait()
    diff = "--- a/main.py\\n+++ b/main.py\\n@@ -1 +1 @@\\n-x = 1\\n+x = 2\\n"
    say(PatchProposed(session, 1, "guard the division", diff, ("main.py",)))
    say(PatchChecked(session, 1, True, "[syntax] ok"))
    say(RepairPhaseChanged(session, 1, "retesting", "iteration 1: re-testing the patched program"))
    wait()
    patch = add_cycle(store, session, 1, before)
    say(CycleRecorded(session, 1, patch, "reverted", "fail", None, "try 1"))
    store.finish_run(session, status="completed", verdict="fail", reason="not fixed")
    say(RepairFinished(session, "completed", "fail", False, 1, "not fixed after 1 iterations"))
    sys.exit(1)
""")


def test_the_cycle_in_progress_shows_its_diagnosis_and_patch_before_it_is_recorded(qtbot, window):
    script = FAKE_EVENTS.format(root=str(ROOT), tests=str(Path(__file__).resolve().parent), db=str(window.db_path))
    with qtbot.waitSignal(window.repair.sig_repair_ended, timeout=60000) as ended:
        assert window.repair.start_repair(RepairRequest("flappy@crash", max_iterations=1), window.database, "Repair",
                                          program=sys.executable, arguments=["-c", script])
        view, run = window.repair.window.view, window.repair.run
        qtbot.waitUntil(lambda: view.showing_progress() and "first play" in view.tree.currentItem().text(0),
                        timeout=30000)
        assert view.pause_button.isVisible() and view.follow_check.isChecked()
        qtbot.waitUntil(lambda: "1 step(s)" in view.header.text(), timeout=10000)
        assert view.frames.live_side == "before"  # the first play shows live on the "before" side

        window.repair.window.close()  # the repair goes on without its window; opened again, it follows it again
        qtbot.waitUntil(lambda: window.repair.window is None, timeout=5000)
        assert window.repair.repairing
        view = window.repair.open(window.database, "Repair").view
        qtbot.waitUntil(lambda: view.showing_progress() and "1 step(s)" in view.header.text(), timeout=10000)

        run.bridge.send("resume")  # → the diagnosis of cycle 1, made before the cycle is recorded
        qtbot.waitUntil(lambda: "the program died" in view.diagnosis.toPlainText(), timeout=10000)
        assert view.cycle_count() == 0 and "iteration 1" in view.tree.currentItem().text(0)
        assert view.findings.finding_count() >= 1 and view.step_slider.value() == 3  # opened where it failed
        assert view.tabs.currentIndex() == 0

        run.bridge.send("resume")  # → the patch, the gate, the re-test
        qtbot.waitUntil(lambda: "x = 2" in view.diff_browser.toPlainText(), timeout=10000)
        assert view.tabs.currentIndex() == 1  # following: the new patch is shown
        assert "[syntax] ok" in view.validation.toPlainText() and "re-testing" in view.running_label.text()
        assert view.cycle_count() == 0

        run.bridge.send("resume")  # → the cycle is recorded, then the repair ends
    assert ended.args == [1]
    assert view.cycle_count() == 1 and not view.showing_progress()
    assert view.current_cycle().iteration == 1 and view.step_slider.value() == 3
    assert not view.pause_button.isVisible() and view.frames.live_side is None
    assert "not fixed after 1 iterations" in window.statusBar().currentMessage()
