"""A live run of the probe target from the workbench: pause, step, take-over, stop, crash."""

from __future__ import annotations

import os
import signal
import time

import psutil
import pytest
from views_support import PROBE, isolated_settings, needs_xvfb  # noqa: F401

from PySide6.QtCore import QPointF, Qt  # noqa: E402

from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.live.live_run import PAUSED, RUNNING  # noqa: E402
from app.views.shell.main_window import MainWindow  # noqa: E402
from app.views.run.run_header_view import LIVE_PAGE  # noqa: E402
from app.views.live.run_request import RunRequest  # noqa: E402

pytestmark = needs_xvfb
LONG_RUN = 400


@pytest.fixture
def window(qtbot, tmp_path, isolated_settings):
    win = MainWindow()
    win.modal_messages = False
    win.resize(1400, 900)
    qtbot.addWidget(win)
    win.show()
    assert win.open_database(tmp_path / "live.db")
    yield win
    win.close()


def _wait_state(qtbot, live, state, timeout=20_000):
    if live.state != state:
        with qtbot.waitSignal(live.sig_state_changed, timeout=timeout, check_params_cb=lambda s: s == state):
            pass


def _steps(db, run_id):
    store = TrajectoryStore(db)
    try:
        return store.steps(run_id)
    finally:
        store.close()


def test_live_run_pause_step_takeover_and_stop(window, qtbot, tmp_path):
    db = tmp_path / "live.db"
    live = window.start_run(RunRequest(str(PROBE), max_steps=LONG_RUN))
    assert live is not None
    with qtbot.waitSignal(live.bridge.sig_window_found, timeout=30_000):
        pass
    with qtbot.waitSignal(live.bridge.sig_step_recorded, timeout=30_000):
        pass
    run_id = live.run_id
    assert run_id is not None and window.run_view.run_id == run_id  # the browser selected the live run
    assert window.run_view.center.currentIndex() == LIVE_PAGE
    assert window.commands.pause.isEnabled() and window.commands.stop.isEnabled()

    # Pause (the Space action) and check that nothing moves any more.
    window.commands.pause.trigger()
    _wait_state(qtbot, live, PAUSED)
    assert window.commands.pause.text() == "&Resume" and window.run_view.live.takeover_allowed
    assert not window.run_view.live.takeover  # take-over is a mode the user enters, not the pause itself
    qtbot.wait(700)  # a step already under way when the pause arrived may still land
    paused_at = len(_steps(db, run_id))
    qtbot.wait(700)
    assert len(_steps(db, run_id)) == paused_at

    # The live view keeps showing the paused display at >= 10 fps.
    shown = window.run_view.live.frames_shown
    qtbot.wait(1000)
    assert window.run_view.live.frames_shown - shown >= 10

    # Step (N): exactly one more tester action.
    with qtbot.waitSignal(live.bridge.sig_step_recorded, timeout=20_000) as stepped:
        window.commands.step.trigger()
    assert stepped.args[0].idx == paused_at
    qtbot.wait(600)
    assert len(_steps(db, run_id)) == paused_at + 1
    _wait_state(qtbot, live, PAUSED)

    # Take-over: a click on the live view becomes a human step at window coordinates.
    view = window.run_view.live
    qtbot.waitUntil(lambda: view.image() is not None, timeout=5000)
    target = view.image_transform().map(QPointF(123, 77)).toPoint()
    with qtbot.waitSignal(live.bridge.sig_step_recorded, timeout=20_000) as human:
        qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=target)
    assert human.args[0].action["action"] == "click"
    rows = _steps(db, run_id)
    last = rows[-1]
    assert last["actor"] == "human" and last["action"]["action"] == "click"
    assert abs(last["action"]["x"] - 123) <= 1 and abs(last["action"]["y"] - 77) <= 1
    with qtbot.waitSignal(live.bridge.sig_step_recorded, timeout=20_000) as key:
        qtbot.keyClick(view, Qt.Key.Key_A)
    assert key.args[0].action == {"action": "press", "key": "a"}
    # The run view followed the live run to its newest step.
    assert window.run_view.current_row() == key.args[0].idx

    # Leave take-over (Ctrl+T, never sent), then Space on the focused live view resumes the run.
    qtbot.keyClick(view, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    assert not view.takeover
    qtbot.keyClick(view, Qt.Key.Key_Space)
    _wait_state(qtbot, live, RUNNING)
    assert all(s["actor"] != "human" or s["action"].get("key") != "space" for s in _steps(db, run_id))
    # Stop (Esc): the engine, its Xvfb and the target all go away.
    assert not window.run_view.live.takeover
    engine = psutil.Process(live.bridge.pid())
    family = [engine, *engine.children(recursive=True)]
    assert len(family) >= 3  # engine, Xvfb, target
    with qtbot.waitSignal(live.bridge.sig_process_ended, timeout=20_000):
        window.commands.stop.trigger()
    assert not live.active and not window.commands.stop.isEnabled()
    gone, alive = psutil.wait_procs(family, timeout=5)
    assert not alive
    store = TrajectoryStore(db)
    assert store.run(run_id)["status"] == "stopped"
    logs = [line["text"] for line in store.logs(run_id)]
    store.close()
    # The target saw the click exactly where the recorded human action says.
    assert f"click 1 {last['action']['x']} {last['action']['y']}" in logs, logs[-10:]
    assert window.messages == []


def test_closing_the_window_stops_the_engine(qtbot, tmp_path, isolated_settings):
    win = MainWindow()
    win.modal_messages = False
    qtbot.addWidget(win)
    win.show()
    win.open_database(tmp_path / "close.db")
    live = win.start_run(RunRequest(str(PROBE), max_steps=LONG_RUN))
    with qtbot.waitSignal(live.bridge.sig_step_recorded, timeout=30_000):
        pass
    engine = psutil.Process(live.bridge.pid())
    family = [engine, *engine.children(recursive=True)]
    t0 = time.monotonic()
    win.close()
    assert time.monotonic() - t0 < 5
    gone, alive = psutil.wait_procs(family, timeout=5)
    assert not alive


def test_engine_crash_shows_one_message_and_the_run_stays_readable(window, qtbot, tmp_path):
    db = tmp_path / "live.db"
    live = window.start_run(RunRequest(str(PROBE), max_steps=LONG_RUN))
    with qtbot.waitSignal(live.bridge.sig_step_recorded, timeout=30_000):
        pass
    qtbot.wait(300)
    run_id = live.run_id
    with qtbot.waitSignal(live.bridge.sig_process_ended, timeout=20_000):
        os.kill(live.bridge.pid(), signal.SIGKILL)
    assert len(window.messages) == 1
    assert "crashed" in window.messages[0] and "Traceback" not in window.messages[0]
    assert not live.active and not window.commands.pause.isEnabled()
    steps = _steps(db, run_id)
    assert steps and [s["idx"] for s in steps] == list(range(len(steps)))
    window.browser.refresh()
    assert window.browser.select_run(run_id)
    assert window.run_view.model.available == len(steps)
    qtbot.wait(500)  # the engine's Xvfb and target die with it (PR_SET_PDEATHSIG)


def test_second_run_is_refused_while_one_is_live(window, qtbot):
    live = window.start_run(RunRequest(str(PROBE), max_steps=LONG_RUN))
    with qtbot.waitSignal(live.bridge.sig_run_started, timeout=30_000):
        pass
    assert window.start_run(RunRequest(str(PROBE), max_steps=2)) is None
    assert "already going" in window.messages[-1]
    with qtbot.waitSignal(live.bridge.sig_process_ended, timeout=20_000):
        live.stop()

