"""Space, N and Esc control a live run wherever the focus is: the run list's search box too.

The search box has the focus at start-up and after the New run dialog; it once took Space as a space and the
run kept going.  Shift+Space still types a space into it (the documented way while a run is live)."""

from __future__ import annotations

import pytest
from views_support import isolated_settings, paused_live_run  # noqa: F401

from PySide6.QtCore import Qt  # noqa: E402

from app.views.shell.main_window import MainWindow  # noqa: E402


@pytest.fixture
def paused(qtbot, tmp_path, isolated_settings):
    win = MainWindow()
    win.modal_messages = False
    win.resize(1200, 800)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()
    live = paused_live_run(win, tmp_path / "keys.db")
    yield win, live
    live.shutdown()
    win.close()


def _count(action):
    count = [0]
    action.triggered.connect(lambda *_: count.__setitem__(0, count[0] + 1))
    return count


def test_control_keys_reach_the_run_from_the_focused_search_box(paused, qtbot):
    win, _ = paused
    a, search = win.commands, win.browser.search
    pause, step, stop = _count(a.pause), _count(a.step), _count(a.stop)
    search.setFocus()
    qtbot.waitUntil(search.hasFocus, timeout=5000)
    qtbot.keyClick(search, Qt.Key.Key_Space)
    qtbot.keyClick(search, Qt.Key.Key_N)
    assert (pause[0], step[0]) == (1, 1) and search.text() == ""
    qtbot.keyClick(search, Qt.Key.Key_C)
    qtbot.keyClick(search, Qt.Key.Key_Space, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(search, Qt.Key.Key_D)
    assert search.text() == "c d" and pause[0] == 1
    qtbot.keyClick(search, Qt.Key.Key_Escape)
    assert stop[0] == 1
