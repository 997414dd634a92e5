"""RunCommands: the main window's commands on the run shown — step through it, replay it, undo an override,
show or hide the panes — and what they offer as the run view moves."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QStatusBar, QWidget

from app.views.browser.run_browser_view import RunBrowserView
from app.views.model.run_offers import run_offers
from app.views.run.run_view import RunView
from app.views.shell.workbench_actions import WorkbenchActions


class RunCommands(QObject):
    def __init__(self, window: QWidget, commands: WorkbenchActions, run_view: RunView, browser: RunBrowserView,
                 status: Callable[[], QStatusBar], blinded: Callable[[], bool]) -> None:
        super().__init__(window)
        self.window, self.commands, self.run_view = window, commands, run_view
        self._status, self._blinded = status, blinded
        a, rv = commands, run_view
        a.replay.triggered.connect(self._on_replay_triggered)
        a.speed.currentIndexChanged.connect(self._on_speed_changed)
        rv.replay.sig_playing_changed.connect(self._on_replay_playing_changed)
        a.undo_override.triggered.connect(rv.verdict.undo)
        rv.verdict.sig_undo_available.connect(self._on_verdict_undo_available)
        a.show_browser.toggled.connect(browser.setVisible)
        a.show_film.toggled.connect(rv.film.setVisible)
        a.previous_step.triggered.connect(rv.previous_step)
        a.next_step.triggered.connect(rv.next_step)
        a.first_step.triggered.connect(rv.first_step)
        a.last_step.triggered.connect(rv.last_step)
        a.zoom_fit.triggered.connect(rv.zoom_to_fit)
        a.refresh.triggered.connect(browser.refresh)
        rv.sig_step_changed.connect(self._on_run_view_step_changed)

    def offer(self) -> None:
        """Replay is offered for a run with steps, Undo while an override is in force (and neither while a
        blinded labelling window is open)."""
        offers = run_offers(self.run_view.run, self.run_view.model.available)
        self.commands.replay.setEnabled(offers.replay and not self._blinded())
        self.commands.undo_override.setEnabled(self.run_view.verdict.can_undo and not self._blinded())

    def _on_replay_triggered(self) -> None:
        self.run_view.replay.toggle(self.run_view.current_row())

    def _on_speed_changed(self, _index: int) -> None:
        self.run_view.replay.set_speed(float(self.commands.speed.currentData()))

    def _on_replay_playing_changed(self, playing: bool) -> None:
        self.commands.set_replaying(playing, self.window.style())

    def _on_verdict_undo_available(self, available: bool) -> None:
        self.commands.undo_override.setEnabled(available and not self._blinded())

    def _on_run_view_step_changed(self, row: int) -> None:
        self.offer()
        total = self.run_view.model.available
        self._status().showMessage(f"Step {row + 1} of {total}" if row >= 0 else "")
