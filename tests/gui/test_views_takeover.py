"""Take-over is an explicit mode: the run's keys (Space, N, Esc) control the run unless the user entered it.

The defect: after a take-over click the live view kept the focus, and
in the next pause Space, N and Esc went to the target as human steps.  These
tests drive the real main window and live view (offscreen) with a live run in
the paused state; the engine process is not needed to see where a key goes.
"""

from __future__ import annotations

import pytest
from views_support import isolated_settings, paused_live_run  # noqa: F401

from PySide6.QtCore import QPointF, Qt  # noqa: E402

from app.views.live.live_run import PAUSED, RUNNING  # noqa: E402
from app.views.shell.main_window import MainWindow  # noqa: E402


@pytest.fixture
def paused(qtbot, tmp_path, isolated_settings):
    """A main window whose live run (never started) is paused, its live view showing a picture."""
    win = MainWindow()
    win.modal_messages = False
    win.resize(1200, 800)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()
    live = paused_live_run(win, tmp_path / "takeover.db")
    yield win, live
    live.shutdown()
    win.close()


def _actions(view):
    sent: list[dict] = []
    view.sig_action_requested.connect(sent.append)
    return sent


def _triggers(action):
    count = [0]
    action.triggered.connect(lambda *_: count.__setitem__(0, count[0] + 1))
    return count


def test_control_keys_control_the_run_after_a_take_over_click(paused, qtbot):
    win, live = paused
    view, a = win.run_view.live, win.commands
    sent = _actions(view)
    pause, step, stop = _triggers(a.pause), _triggers(a.step), _triggers(a.stop)
    assert view.takeover_allowed and not view.takeover and not view.banner.isVisible()

    # Paused, not taken over: the view may hold the focus, the keys still belong to the workbench.
    view.setFocus()
    for key in (Qt.Key.Key_N, Qt.Key.Key_Space):
        qtbot.keyClick(view, key)
    assert sent == [] and step[0] == 1 and pause[0] == 1

    # A click on the picture enters take-over mode (visible) and is the first human action.
    qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=view.image_transform().map(QPointF(40, 30)).toPoint())
    assert view.takeover and view.banner.isVisible() and a.take_over.isChecked()
    assert "TAKE-OVER" in win.live_controls.label.text()
    assert sent[-1]["action"] == "click"
    qtbot.keyClick(view, Qt.Key.Key_A)
    qtbot.keyClick(view, Qt.Key.Key_Space)  # in the mode, Space is the target's
    assert sent[1:] == [{"action": "press", "key": "a"}, {"action": "press", "key": "space"}]
    assert pause[0] == 1

    # The take-over key leaves the mode and is never sent to the target.
    qtbot.keyClick(view, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    assert not view.takeover and not view.banner.isVisible() and not a.take_over.isChecked()
    assert len(sent) == 3
    for key in (Qt.Key.Key_Space, Qt.Key.Key_N, Qt.Key.Key_Escape):
        qtbot.keyClick(view, key)
    assert len(sent) == 3 and (pause[0], step[0], stop[0]) == (2, 2, 1)


def test_resuming_leaves_take_over_and_the_next_pause_starts_outside_it(paused, qtbot):
    win, live = paused
    view, a = win.run_view.live, win.commands
    sent = _actions(view)
    a.take_over.trigger()  # the toolbar button (or Ctrl+T) enters the mode without a click
    assert view.takeover and view.banner.isVisible() and view.hasFocus()
    live._set_state(RUNNING)
    assert not view.takeover and not view.takeover_allowed and not a.take_over.isChecked()
    assert not a.take_over.isEnabled()
    qtbot.keyClick(view, Qt.Key.Key_Space)
    live._set_state(PAUSED)
    assert not view.takeover and a.take_over.isEnabled()
    pause = _triggers(a.pause)
    qtbot.keyClick(view, Qt.Key.Key_Space)
    assert pause[0] == 1 and sent == []
    qtbot.keyClick(view, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)  # Ctrl+T enters, too
    assert view.takeover


def test_take_over_is_refused_while_the_run_plays(paused, qtbot):
    win, live = paused
    view = win.run_view.live
    live._set_state(RUNNING)
    sent = _actions(view)
    qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=view.rect().center())
    assert not view.takeover and sent == [] and not view.set_takeover(True)
