"""LiveRun: one engine child process, its live display capture and its control state.

States: ``starting`` (process launched) → ``running`` ⇄ ``paused`` → ``stopping``
→ ``finished``.  The engine is the authority: the state follows its
``ControlChanged`` events, not the buttons the user pressed.  ``shutdown``
(closing the window) sends stop, waits up to 3 s and then kills the process;
the engine's own children (Xvfb, target) die with it.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.engine.play.display import DESKTOP
from app.engine.play.events import ControlChanged, RunFinished, RunStarted, WindowFound
from app.views.engine_bridge import (
    ENGINE_STATES, FINISHED, PAUSED, RUNNING, STARTING, STOPPING, BridgeControls, EngineBridge, connect_handlers,
)
from app.views.live.desktop_placement import WindowState, place_beside
from app.views.live.live_capture import LiveCapture
from app.views.live.live_view import TAKEOVER_SHORTCUT, LiveView
from app.views.live.run_request import RunRequest
from app.views.model.run_offers import live_offers

log = logging.getLogger(__name__)

_STATE_TEXT = {
    STARTING: "starting the target…", RUNNING: "running",
    PAUSED: f"paused — click the picture or press {TAKEOVER_SHORTCUT.toString()} to take over",
    STOPPING: "stopping…", FINISHED: "run finished",
}


class LiveRun(BridgeControls, QObject):
    sig_state_changed = Signal(str)
    """Emitted with the new state (starting, running, paused, stopping, finished)."""
    sig_notice = Signal(str)
    """Emitted with one sentence for the status bar (e.g. where a desktop target was placed, or why not)."""

    def __init__(self, request: RunRequest, db: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.db = Path(db)
        self.state = STARTING
        self.run_id: int | None = None
        self.finished_event: RunFinished | None = None
        self.bridge = EngineBridge(self)
        self.capture: LiveCapture | None = None
        self._view: LiveView | None = None
        self._before_placement: tuple[Any, WindowState] | None = None
        """The workbench window as it was before a desktop run moved or narrowed it (put back at the end)."""
        self.connected = connect_handlers(self.bridge, self)

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> None:
        self.bridge.start(self.request.engine_arguments(self.db), extra_env=self.request.engine_environment())
        self._set_state(STARTING)

    def attach_view(self, view: LiveView | None) -> None:
        """Show the live display in ``view`` and take its take-over actions."""
        if self._view is not None:
            self._view.set_takeover_allowed(False)
            self._view.sig_action_requested.disconnect(self._on_view_action_requested)
            self._view.sig_frame_shown.disconnect(self._on_view_frame_shown)
        self._view = view
        if view is not None:
            view.sig_action_requested.connect(self._on_view_action_requested)
            view.sig_frame_shown.connect(self._on_view_frame_shown)
            view.set_takeover_allowed(live_offers(self.request.tester, self.state).take_over)
            view.set_state_text(self._state_text(self.state))
            if self.capture is not None:
                self.capture.sig_frame_captured.connect(view.show_frame)

    @property
    def active(self) -> bool:
        """True until the run finished and the engine process is gone."""
        return self.state != FINISHED or self.bridge.running

    def shutdown(self) -> None:
        """Stop the run and make sure no process or thread is left (blocks up to ~4 s)."""
        self._stop_capture()
        self.bridge.shutdown()
        if self.state != FINISHED:
            self._set_state(FINISHED)

    # -- control ------------------------------------------------------------------------------
    def step(self) -> None:
        self.bridge.step()

    def stop(self) -> None:
        if self.state in (FINISHED, STOPPING):
            return
        self._set_state(STOPPING)
        self.bridge.stop()

    def take_over(self, action: dict[str, Any]) -> bool:
        """Send a human action; only while paused (returns False otherwise)."""
        if self.state != PAUSED:
            return False
        return self.bridge.act(action)

    # -- handlers -----------------------------------------------------------------------------------
    def _on_bridge_run_started(self, event: RunStarted) -> None:
        self.run_id = event.run_id
        if self.state == STARTING:
            self._set_state(RUNNING)

    def _on_bridge_window_found(self, event: WindowFound) -> None:
        self._stop_capture()
        desktop = self.request.display == DESKTOP
        if desktop and self._view is not None:
            window = self._view.window()
            before = WindowState.of(window)
            notice = place_beside(window, event.display, event.window_id)
            if self._before_placement is None and WindowState.of(window) != before:
                self._before_placement = (window, before)
            if notice:
                self.sig_notice.emit(notice)
        self.capture = LiveCapture(event.display, (event.x, event.y, event.width, event.height), parent=self,
                                   window_id=event.window_id if desktop else None)
        self.capture.sig_capture_failed.connect(self._on_capture_failed)
        if self._view is not None:
            self.capture.sig_frame_captured.connect(self._view.show_frame)
        self.capture.start()

    def _on_bridge_control_changed(self, event: ControlChanged) -> None:
        state = ENGINE_STATES.get(event.state)
        if state is not None and self.state != FINISHED:
            self._set_state(state)
            if event.reason:
                if self._view is not None:
                    self._view.set_state_text(f"paused — {event.reason}")
                self.sig_notice.emit(event.reason)

    def _on_bridge_run_finished(self, event: RunFinished) -> None:
        self.finished_event = event
        self._stop_capture()
        self._set_state(FINISHED)

    def _on_bridge_process_ended(self, exit_code: int) -> None:
        self._stop_capture()
        if self.state != FINISHED:
            self._set_state(FINISHED)

    def _on_capture_failed(self, message: str) -> None:
        log.info("live view: %s", message)
        if self._view is not None and self.state != FINISHED:
            self._view.set_state_text("live view unavailable")

    def _on_view_action_requested(self, action: dict[str, Any]) -> None:
        self.take_over(action)

    def _on_view_frame_shown(self) -> None:
        if self.capture is not None:
            self.capture.frame_consumed()

    # -- helpers ---------------------------------------------------------------------------------------
    def _state_text(self, state: str) -> str:
        """What the live view says: paused says how to take over, or why this run's tester cannot take one."""
        offers = live_offers(self.request.tester, state)
        if state == PAUSED and not offers.take_over:
            return f"paused — {offers.take_over_note[0].lower()}{offers.take_over_note[1:]}"
        return _STATE_TEXT[state]

    def _set_state(self, state: str) -> None:
        self.state = state
        if state == FINISHED and self._before_placement is not None:
            window, before = self._before_placement
            self._before_placement = None
            before.restore(window)
        if self._view is not None:
            self._view.set_takeover_allowed(live_offers(self.request.tester, state).take_over)
            self._view.set_state_text(self._state_text(state))
        self.sig_state_changed.emit(state)
