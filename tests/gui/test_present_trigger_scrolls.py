"""Present mode: "What triggered it" is shown whole in a pane that scrolls (wheel, ↑ / ↓), never cut off."""

from __future__ import annotations

from views_support import make_synthetic_run  # noqa: F401

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from test_views_repair_present import view  # noqa: E402,F401  (the repair window with two cycles)


def test_long_trigger_notes_scroll_instead_of_being_cut(qtbot, view):
    QTest.keyClick(view, Qt.Key.Key_F11)
    show = view.presentation
    qtbot.waitUntil(show.isVisible, timeout=5000)
    show.activateWindow()
    qtbot.waitUntil(show.isActiveWindow, timeout=5000)
    show.trigger.setText("<b>What triggered it</b><br>" + "<br>".join(
        f"step {i} · exception: ZeroDivisionError in compute() at line {i}" for i in range(40)))
    qtbot.wait(50)
    label, scroll = show.trigger, show.trigger_scroll
    assert label.parentWidget() is scroll.viewport() or scroll.widget() is label
    assert label.height() >= label.heightForWidth(label.width())  # every line is laid out, none cut
    bar = scroll.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == 0
    QTest.keyClick(show, Qt.Key.Key_Down)
    assert bar.value() > 0  # the keys scroll the notes
    QTest.keyClick(show, Qt.Key.Key_Up)
    assert bar.value() == 0
