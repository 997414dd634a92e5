"""Issue 15 through the workbench: a desktop run (Xvfb with a window manager) while a green window covers the target.

Pause, step, take over and resume work as on a private display; the live view and
the stored frames show only the target; a target that is minimised holds the run
with one sentence, and the run goes on by itself once the window is back.
"""

from __future__ import annotations

import io
import sqlite3

import numpy as np
from PIL import Image
from views_support import PROBE, isolated_settings  # noqa: F401

import pytest  # noqa: E402
from PySide6.QtCore import QPointF, Qt  # noqa: E402

from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.live.live_run import PAUSED, RUNNING  # noqa: E402
from app.views.live.run_request import RunRequest  # noqa: E402
from app.views.shell.main_window import MainWindow  # noqa: E402
from desktop_support import Cover, iconify, needs_wm, restore, wm_display  # noqa: E402,F401

pytestmark = needs_wm
LONG_RUN = 400


@pytest.fixture
def window(qtbot, tmp_path, isolated_settings, wm_display):
    win = MainWindow()
    win.modal_messages = False
    win.resize(1400, 900)
    qtbot.addWidget(win)
    win.show()
    assert win.open_database(tmp_path / "live.db")
    yield win
    win.close()


def _wait_state(qtbot, live, state, timeout=30_000):
    if live.state != state:
        with qtbot.waitSignal(live.sig_state_changed, timeout=timeout, check_params_cb=lambda s: s == state):
            pass


def _green(rgb: np.ndarray) -> int:
    return int(((rgb[:, :, 0] == 0) & (rgb[:, :, 1] == 255) & (rgb[:, :, 2] == 0)).sum())


def test_a_desktop_run_from_the_workbench(window, qtbot, tmp_path, wm_display):
    db = tmp_path / "live.db"
    notices: list[str] = []
    live = window.start_run(RunRequest(str(PROBE), display="desktop", max_steps=LONG_RUN))
    assert live is not None
    live.sig_notice.connect(notices.append)
    with qtbot.waitSignal(live.bridge.sig_window_found, timeout=30_000) as found:
        pass
    window_id = found.args[0].window_id
    cover = Cover(wm_display.name, "Probe", every_s=0.25)
    cover.start()
    try:
        qtbot.waitUntil(lambda: cover.covered_seen >= 2, timeout=30_000)
        with qtbot.waitSignal(live.bridge.sig_step_recorded, timeout=30_000):
            pass
        run_id = live.run_id
        view = window.run_view.live

        # Pause: the live view goes on showing the target alone, covered as it is.
        window.commands.pause.trigger()
        _wait_state(qtbot, live, PAUSED)
        shown = view.frames_shown
        qtbot.wait(1000)
        assert view.frames_shown - shown >= 5
        image = view.image()
        assert image is not None
        rgb = np.asarray(Image.frombytes("RGBA", (image.width(), image.height()),
                                         bytes(image.convertToFormat(image.Format.Format_RGBA8888).constBits())))
        assert _green(rgb[:, :, :3]) == 0

        # Step, then a take-over click: both reach the target, not the window over it.
        with qtbot.waitSignal(live.bridge.sig_step_recorded, timeout=30_000):
            window.commands.step.trigger()
        _wait_state(qtbot, live, PAUSED)
        point = view.image_transform().map(QPointF(200, 150)).toPoint()
        with qtbot.waitSignal(live.bridge.sig_step_recorded, timeout=30_000) as human:
            qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=point)
        assert human.args[0].action["action"] == "click" and human.args[0].outcome == "ok"

        # Resume; then the target is minimised: the run holds, says why, and goes on once it is back.
        window.commands.pause.trigger()
        _wait_state(qtbot, live, RUNNING)
        reasons: list[str] = []
        live.bridge.sig_control_changed.connect(lambda e: reasons.append(e.reason) if e.reason else None)
        for _ in range(20):
            iconify(wm_display.name, window_id)
            qtbot.wait(1000)
            if reasons:
                break
        assert reasons and "minimised" in reasons[0]
        _wait_state(qtbot, live, PAUSED)
        assert reasons[0] in notices and "minimised" in view.state_text
        restore(wm_display.name, window_id)
        _wait_state(qtbot, live, RUNNING)
        with qtbot.waitSignal(live.bridge.sig_step_recorded, timeout=30_000):
            pass
        with qtbot.waitSignal(live.bridge.sig_process_ended, timeout=30_000):
            window.commands.stop.trigger()
    finally:
        cover.stop.set()
        cover.join(10)
    assert cover.error is None and cover.inputs == []
    store = TrajectoryStore(db)
    logs = [line["text"] for line in store.logs(run_id)]
    store.close()
    last = human.args[0].action
    assert f"click 1 {last['x']} {last['y']}" in logs
    conn = sqlite3.connect(db)
    for (data,) in conn.execute("SELECT data FROM frames"):
        assert _green(np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))) == 0
    conn.close()
    assert any("beside" in n or "no room" in n for n in notices)
