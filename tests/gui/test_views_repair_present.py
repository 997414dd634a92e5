"""Presentation mode of the repair window: full screen, large type, keys only (PgDn/PgUp, Space, ←/→, Esc)."""

from __future__ import annotations

from views_support import make_synthetic_run  # noqa: F401

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

from app.views.model.database import Database  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.repair.presentation_view import PresentationView  # noqa: E402
from app.views.repair.repair_view import RepairView  # noqa: E402
from app.views.shell.main_window import STYLE_SHEET  # noqa: E402
from test_views_repair_live import add_cycle, add_session  # noqa: E402


@pytest.fixture
def view(qtbot, qapp, tmp_path):
    qapp.setStyleSheet(STYLE_SHEET.read_text(encoding="utf-8"))  # the workbench's: it sets every widget's type
    store = TrajectoryStore(tmp_path / "repair.db")
    session, before = add_session(store)
    add_cycle(store, session, 1, before)
    add_cycle(store, session, 2, before)
    view = RepairView(Database(store))
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    qtbot.waitExposed(view)
    yield view
    if view.presentation is not None:
        view.presentation.close()
    store.close()
    qapp.setStyleSheet("")


def test_presentation_mode_is_driven_by_keys_alone(qtbot, view):
    assert view.current_cycle().iteration == 1 and view.step_slider.value() == 3
    QTest.keyClick(view, Qt.Key.Key_F11)
    show = view.presentation
    assert isinstance(show, PresentationView)
    qtbot.waitUntil(show.isVisible, timeout=5000)
    assert show.isFullScreen() or show.windowState() & Qt.WindowState.WindowFullScreen
    for label in (show.title, show.description, show.trigger):  # large type, under the workbench's own style
        assert label.font().pointSizeF() >= 1.5 * view.header.font().pointSizeF(), label.objectName()
    assert all(w.focusPolicy() == Qt.FocusPolicy.NoFocus for w in show.findChildren(QWidget))  # no key is eaten
    show.activateWindow()
    qtbot.waitUntil(show.isActiveWindow, timeout=5000)
    assert "Iteration 1" in show.title.text() and "try 1" in show.description.text()
    assert show.before.image() is not None and show.after.image() is not None  # both at the failing step
    assert "x = 2" in show.diff.toPlainText() and "crash" in show.trigger.text()

    QTest.keyClick(show, Qt.Key.Key_PageDown)
    assert view.current_cycle().iteration == 2 and "Iteration 2" in show.title.text()
    QTest.keyClick(show, Qt.Key.Key_PageUp)
    assert view.current_cycle().iteration == 1

    QTest.keyClick(show, Qt.Key.Key_Right)
    assert view.step_slider.value() == 4 and "step 5" in show.status.text()  # idx 4, numbered from 1
    QTest.keyClick(show, Qt.Key.Key_Left)
    QTest.keyClick(show, Qt.Key.Key_Left)
    assert view.step_slider.value() == 2 and "run" in view.frames.captions()[0]
    QTest.keyClick(show, Qt.Key.Key_Home)
    assert view.step_slider.value() == 0

    QTest.keyClick(show, Qt.Key.Key_Space)  # play the steps
    assert view.frames.replaying and "playing" in show.status.text()
    qtbot.waitUntil(lambda: view.step_slider.value() >= 2, timeout=5000)
    QTest.keyClick(show, Qt.Key.Key_Space)  # pause
    assert not view.frames.replaying
    stopped_at = view.step_slider.value()
    qtbot.wait(900)
    assert view.step_slider.value() == stopped_at

    with qtbot.waitSignal(show.sig_closed, timeout=5000):
        QTest.keyClick(show, Qt.Key.Key_Escape)
    assert view.presentation is None and not show.isVisible()


def test_the_replay_in_the_window_stops_at_the_last_step(qtbot, view):
    view.step_slider.setValue(view.step_slider.maximum() - 1)
    with qtbot.waitSignal(view.frames.sig_replay_changed, timeout=5000) as started:
        view.play_or_pause()
    assert started.args == [True]
    with qtbot.waitSignal(view.frames.sig_replay_changed, timeout=5000) as stopped:
        pass
    assert stopped.args == [False] and view.step_slider.value() == view.step_slider.maximum()
    assert QApplication.instance() is not None
