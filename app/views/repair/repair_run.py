"""RepairRun: one ``playcoder repair … --events -`` child process, followed as it happens.

The engine bridge turns the child's JSON lines into events; this object keeps
what the repair window needs from them: the state (starting → running ⇄
paused → stopping → finished, as the engine reports it), the cycle in
progress (:class:`CycleInProgress`: its phase, its diagnosis and patch as soon
as they are made, the gate's output, the play going on) and, while a play
runs, a :class:`~app.views.live.live_capture.LiveCapture` of its private
display whose frames it passes on.  Recorded cycles are read from the
database by the view; this object only says when one was recorded.

Stop sends SIGTERM (the command ends like Ctrl-C: its plays close as
stopped, the session row says so) and kills after the bridge's grace time;
pause and resume are control lines, acted on at the engine's next checkpoint
(before every action of a play, and between plays).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

from app.engine.play.events import ControlChanged, RunFinished, RunStarted, StepRecorded, WindowFound
from app.engine.repair.events import (
    RETESTING, CycleRecorded, DiagnosisMade, PatchChecked, PatchProposed, RepairFinished,
    RepairPhaseChanged, RepairStarted,
)
from app.views.engine_bridge import (
    ENGINE_STATES, FINISHED, RUNNING, STARTING, STOPPING, BridgeControls, EngineBridge, connect_handlers,
)
from app.views.live.live_capture import LiveCapture



@dataclass
class CycleInProgress:
    """What is known of the cycle the repair works on now (iteration 0: the first play, before any cycle)."""

    session_run: int
    iteration: int
    phase: str = ""
    text: str = ""
    diagnosis: str = ""
    before_runs: tuple[int, ...] = ()
    description: str = ""
    diff: str = ""
    files: tuple[str, ...] = ()
    validation: str = ""
    play_run: int | None = None
    """The play going on now (the first play, or the re-test), while it runs."""
    play_tester: str = ""
    play_steps: int = 0
    play_ended: bool = False
    history: list[str] = field(default_factory=list)

    @property
    def playing_live(self) -> bool:
        return self.play_run is not None and not self.play_ended

    @property
    def retesting(self) -> bool:
        return self.phase == RETESTING

    @property
    def first_play(self) -> bool:
        """The play of the program as it is (iteration 0), before any cycle."""
        return self.iteration == 0


class RepairRun(BridgeControls, QObject):
    sig_state_changed = Signal(str)
    """Emitted with the new state (starting, running, paused, stopping, finished)."""
    sig_progress_changed = Signal()
    """Emitted when the cycle in progress changed (phase, diagnosis, patch, gate output, play, steps)."""
    sig_cycle_recorded = Signal(int)
    """Emitted with the patch row id when a cycle was recorded in the database."""
    sig_frame_captured = Signal(QImage)
    """Emitted with each live frame of the play going on; call :meth:`frame_consumed` once it is shown."""
    sig_line_printed = Signal(str)
    """Emitted with a progress line that is not an event (a command without ``--events``)."""
    sig_repair_finished = Signal(object)
    """Emitted with :class:`~app.engine.repair.events.RepairFinished` when the loop ended."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = STARTING
        self.session_run: int | None = None
        self.target = ""
        self.max_iterations = 0
        self.progress: CycleInProgress | None = None
        self.last_text = ""
        """What the repair said it was doing last (it stays between a recorded cycle and the next)."""
        self.finished: RepairFinished | None = None
        self.capture: LiveCapture | None = None
        self.bridge = EngineBridge(self)
        self.connected = connect_handlers(self.bridge, self)
        self.bridge.sig_line_printed.connect(self.sig_line_printed)

    # -- lifecycle ----------------------------------------------------------------------------
    def start(self, arguments: list[str], *, program: str | None = None) -> None:
        self.bridge.start(arguments, program=program)
        self._set_state(STARTING)

    @property
    def running(self) -> bool:
        return self.bridge.running

    def stop(self) -> None:
        if self.running and self.state != STOPPING:
            self._set_state(STOPPING)
            self.bridge.terminate()

    def shutdown(self) -> None:
        """Closing the workbench: stop the repair and wait for it (blocks up to ~4 s)."""
        self._stop_capture()
        self.bridge.shutdown(terminate=True)

    def frame_consumed(self) -> None:
        if self.capture is not None:
            self.capture.frame_consumed()

    # -- repair events ------------------------------------------------------------------------------
    def _on_bridge_repair_event_received(self, event: Any) -> None:
        if isinstance(event, RepairStarted):
            self.session_run, self.target, self.max_iterations = event.session_run, event.target, event.max_iterations
            if self.state == STARTING:
                self._set_state(RUNNING)
            return
        if isinstance(event, RepairFinished):
            self.finished = event
            self.progress = None
            self.sig_progress_changed.emit()
            self.sig_repair_finished.emit(event)
            return
        if isinstance(event, CycleRecorded):
            self.progress = None
            self.last_text = (f"iteration {event.iteration} recorded: {event.outcome}"
                              + (f" (re-test {event.verdict})" if event.verdict else ""))
            self.sig_progress_changed.emit()
            self.sig_cycle_recorded.emit(event.patch_id)
            return
        progress = self._progress_for(event.session_run, event.iteration)
        if isinstance(event, RepairPhaseChanged):
            progress.phase, progress.text = event.phase, event.text
            self.last_text = event.text
            progress.history.append(event.text)
        elif isinstance(event, DiagnosisMade):
            progress.diagnosis, progress.before_runs = event.text, tuple(event.before_runs)
        elif isinstance(event, PatchProposed):
            progress.description, progress.diff, progress.files = event.description, event.diff, tuple(event.files)
        elif isinstance(event, PatchChecked):
            progress.validation = event.text or ("the patch passed the gate" if event.passed else "the gate refused it")
        self.sig_progress_changed.emit()

    def _progress_for(self, session_run: int, iteration: int) -> CycleInProgress:
        if self.progress is None or self.progress.iteration != iteration:
            self.progress = CycleInProgress(session_run, iteration)
        return self.progress

    # -- the plays inside the repair ---------------------------------------------------------------
    def _on_bridge_run_started(self, event: RunStarted) -> None:
        progress = self.progress or self._progress_for(self.session_run or 0, 0)
        progress.play_run, progress.play_tester, progress.play_steps, progress.play_ended = \
            event.run_id, event.tester, 0, False
        self.sig_progress_changed.emit()

    def _on_bridge_window_found(self, event: WindowFound) -> None:
        self._stop_capture()
        self.capture = LiveCapture(event.display, (event.x, event.y, event.width, event.height), parent=self)
        self.capture.sig_frame_captured.connect(self.sig_frame_captured)
        self.capture.start()

    def _on_bridge_step_recorded(self, event: StepRecorded) -> None:
        if self.progress is not None and self.progress.play_run == event.run_id:
            self.progress.play_steps = event.idx + 1
            self.sig_progress_changed.emit()

    def _on_bridge_run_finished(self, event: RunFinished) -> None:
        self._stop_capture()
        if self.progress is not None and self.progress.play_run == event.run_id:
            self.progress.play_ended = True
            self.sig_progress_changed.emit()

    def _on_bridge_control_changed(self, event: ControlChanged) -> None:
        state = ENGINE_STATES.get(event.state)
        if state is None or self.state == FINISHED or (self.state == STOPPING and state != STOPPING):
            return  # (every play of the repair reports the one control: the same state may come several times)
        self._set_state(state)

    def _on_bridge_process_ended(self, _exit_code: int) -> None:
        self._stop_capture()
        self.progress = None
        self._set_state(FINISHED)
        self.sig_progress_changed.emit()

    # -- helpers ---------------------------------------------------------------------------------------
    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.sig_state_changed.emit(state)
