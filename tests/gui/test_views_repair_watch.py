"""A real repair (``playcoder repair … --events -`` as a child process, plays under their own Xvfb) watched live
from the workbench: the plays' frames as they happen, the diagnosis and the patch before their cycle is recorded,
the cycle list growing, pause and resume, and each cycle opened at the step where the failure shows."""

from __future__ import annotations

import time

import pytest
from views_support import isolated_settings, needs_xvfb  # noqa: F401

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from app.views.repair.new_repair_dialog import RepairRequest  # noqa: E402
from app.views.engine_bridge import PAUSED, RUNNING  # noqa: E402
from app.views.shell.main_window import MainWindow  # noqa: E402

pytestmark = needs_xvfb
BUG = "tiles2048@crash-on-restart"
"""Crashes on the first restart; the offline refiner's second candidate fixes it."""


@pytest.fixture
def window(qtbot, isolated_settings, tmp_path):
    win = MainWindow()
    win.modal_messages = False
    qtbot.addWidget(win)
    win.show()
    assert win.open_database(tmp_path / "repair.db")
    yield win
    win.close()


def test_a_real_repair_is_watched_live_to_its_end(qtbot, window):
    seen = {"diagnosis_before_record": False, "diff_before_record": False, "retest_frames": 0, "cycles": []}
    with qtbot.waitSignal(window.repair.sig_repair_ended, timeout=400_000) as ended:
        assert window.repair.start_repair(RepairRequest(BUG, max_iterations=3), window.database, "Repair")
        view, run = window.repair.window.view, window.repair.run
        view.activateWindow()
        qtbot.waitUntil(view.isActiveWindow, timeout=5000)

        # the first play, live: its frames arrive while its steps are recorded
        qtbot.waitUntil(lambda: view.frames.live_side == "before" and view.frames.before_live.frames_shown > 3,
                        timeout=60_000)
        assert "first play" in view.tree.currentItem().text(0)

        # Space pauses the repair (the play waits at its next step), Space again resumes it
        QTest.keyClick(view, Qt.Key.Key_Space)
        qtbot.waitUntil(lambda: run.state == PAUSED, timeout=20_000)
        assert "PAUSED" in view.header.text() and view.pause_button.text() == "Resume"
        steps = run.progress.play_steps if run.progress is not None else 0
        qtbot.wait(1500)
        assert (run.progress.play_steps if run.progress is not None else 0) == steps  # nothing moves while paused
        view.pause_button.click()
        qtbot.waitUntil(lambda: run.state == RUNNING, timeout=20_000)

        # the presentation mode shows the play going on, live, too
        QTest.keyClick(view, Qt.Key.Key_F11)
        show = view.presentation
        qtbot.waitUntil(lambda: show.before.image() is not None or show.after.image() is not None, timeout=30_000)
        assert "in progress" in show.title.text() and "live" in show.status.text()
        with qtbot.waitSignal(show.sig_closed, timeout=5000):
            QTest.keyClick(show, Qt.Key.Key_Escape)

        def watch() -> bool:
            progress = run.progress
            if progress is not None and progress.iteration >= 1 and view.showing_progress():
                if progress.diagnosis and "Play run" in view.diagnosis.toPlainText():
                    seen["diagnosis_before_record"] |= view.cycle_count() < progress.iteration
                if progress.diff and "+" in view.diff_browser.toPlainText():
                    seen["diff_before_record"] |= view.cycle_count() < progress.iteration
                if view.frames.live_side == "after":
                    seen["retest_frames"] = max(seen["retest_frames"], view.frames.after_live.frames_shown)
            if not seen["cycles"] or seen["cycles"][-1] != view.cycle_count():
                seen["cycles"].append(view.cycle_count())
            return not window.repair.repairing

        qtbot.waitUntil(watch, timeout=400_000)
    assert ended.args == [0], window.messages  # fixed
    assert seen["diagnosis_before_record"] and seen["diff_before_record"], seen
    assert seen["retest_frames"] > 3, seen  # a re-test was shown live
    assert seen["cycles"][0] == 0 and seen["cycles"][-1] >= 2 and seen["cycles"] == sorted(seen["cycles"]), seen

    # the end: the fixed cycle is current, opened where the failure showed, before and after at that step
    rec = view.current_cycle()
    assert rec is not None and rec.outcome == "fixed" and view.cycle_count() == rec.iteration
    assert view.step_slider.value() == view.failure_step(rec) > 0
    before, after = view.frame_pair()
    assert before is not None and after is not None and before != after  # crashed before, still playing after
    assert view.frames.captions()[1].startswith("run ") and view.frames.live_side is None
    assert not view.pause_button.isVisible() and "fixed" in window.statusBar().currentMessage()
    deadline = time.monotonic() + 5
    while window.repair.run.capture is not None and time.monotonic() < deadline:
        qtbot.wait(50)
    assert window.repair.run.capture is None  # no capture thread left behind
