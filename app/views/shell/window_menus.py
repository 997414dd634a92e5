"""The main window's menu bar and toolbar, laid out from :class:`WorkbenchActions` (None is a separator)."""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar, QToolButton

from app.views.shell.workbench_actions import WorkbenchActions


def _fill(menu: QMenu | QToolBar, actions: Sequence[QAction | None]) -> None:
    for action in actions:
        if action is None:
            menu.addSeparator()
        else:
            menu.addAction(action)


def build_menus(window: QMainWindow, a: WorkbenchActions) -> None:
    bar = window.menuBar()
    _fill(bar.addMenu("&File"), (a.new_run, a.new_target, a.open_db, a.new_db, None, a.export_run, a.import_bundle,
                                 a.export_report, None, a.quit))
    _fill(bar.addMenu("&Edit"), (a.settings,))
    _fill(bar.addMenu("&Run"), (a.pause, a.step, a.stop, a.take_over, a.record_case, None, a.replay, None,
                                a.undo_override))
    _fill(bar.addMenu("&View"), (a.show_browser, a.show_film, None, a.previous_step, a.next_step, a.first_step,
                                 a.last_step, None, a.zoom_fit, a.refresh))
    _fill(bar.addMenu("Va&lidation"), (a.new_validation_set, None, a.annotate, a.agreement))
    _fill(bar.addMenu("Re&pair"), (a.new_repair, a.repair_sessions, None, a.present_repair, a.export_repair))
    _fill(bar.addMenu("&Help"), (a.about,))


def build_toolbar(window: QMainWindow, a: WorkbenchActions) -> QToolBar:
    bar = QToolBar("Main", window)
    bar.setObjectName("MainToolBar")
    bar.setMovable(False)
    _fill(bar, (a.new_run, None, a.pause, a.step, a.stop, a.take_over, None, a.first_step, a.previous_step, a.replay))
    bar.addWidget(a.speed)
    _fill(bar, (a.next_step, a.last_step))
    bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    for action in (a.first_step, a.previous_step, a.next_step, a.last_step):
        button = bar.widgetForAction(action)
        if isinstance(button, QToolButton):
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
    window.addToolBar(bar)
    return bar
