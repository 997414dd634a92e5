"""LiveControls: the main window's live run — starting it, Run › Pause/Step/Stop/Take over/Record case, and
what its engine reports, written to the workbench model.

One live run at a time.  The engine's events come through the run's bridge
(:func:`~app.views.engine_bridge.connect_handlers` joins ``sig_<event>`` to
``_on_live_<event>`` here); what they changed goes to the model, which tells
the run list and the run view: a run that started is added and shown, one
that ended is re-read.  New steps and findings go straight to the run view,
which follows them step by step without re-reading the run list."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

from app.engine.play.events import FindingRaised, RunFinished, RunStarted, StepRecorded
from app.views.engine_bridge import connect_handlers
from app.views.live.live_run import FINISHED, LiveRun
from app.views.live.new_run_dialog import NewRunDialog
from app.views.live.run_request import RunRequest
from app.views.model.changes import run_added, run_changed
from app.views.model.workbench_model import WorkbenchModel
from app.views.run.case_recorder_view import open_recorder
from app.views.run.run_header_view import LIVE_PAGE
from app.views.run.run_view import RunView
from app.views.shell.workbench_actions import WorkbenchActions

NOTICE_MS = 15000
FINISHED_MS = 10000


class LiveHost(Protocol):
    """What the live controls need of the main window, without importing it."""

    messages: list[str]

    def show_message(self, text: str) -> None: ...

    def statusBar(self) -> QStatusBar: ...


class LiveControls(QObject):
    def __init__(self, window: QWidget, host: LiveHost, model: WorkbenchModel, commands: WorkbenchActions,
                 run_view: RunView) -> None:
        super().__init__(window)
        self.window, self.host, self.model, self.commands, self.run_view = window, host, model, commands, run_view
        self.live: LiveRun | None = None
        self.label = QLabel(window)
        self.label.setObjectName("LiveStatus")
        host.statusBar().addPermanentWidget(self.label)
        a = commands
        a.new_run.triggered.connect(self._on_new_run_triggered)
        a.pause.triggered.connect(self._on_pause_triggered)
        a.step.triggered.connect(self._on_step_triggered)
        a.stop.triggered.connect(self._on_stop_triggered)
        a.take_over.toggled.connect(self._on_take_over_toggled)
        a.record_case.triggered.connect(self._on_record_case_triggered)
        run_view.live.sig_takeover_changed.connect(self._on_live_view_takeover_changed)
        commands.set_live_controls(None)

    @property
    def active(self) -> bool:
        return self.live is not None and self.live.active

    def start_run(self, request: RunRequest) -> LiveRun | None:
        """Start a live run of ``request`` as an engine child process (one at a time)."""
        db = self.model.path
        if db is None:
            self.host.show_message("Open a database first (File › Open database…).")
            return None
        if self.active:
            self.host.show_message("A run is already going; stop it (Esc) before starting another.")
            return None
        if self.live is not None:
            self.live.deleteLater()
        live = self.live = LiveRun(request, Path(db), self)
        self.follow(live)
        live.start()
        return live

    def follow(self, live: LiveRun) -> None:
        """Take ``live``'s events and show it in the run view (a run started here, or made by a test)."""
        self.live = live
        connect_handlers(live.bridge, self, prefix="_on_live_")
        live.sig_state_changed.connect(self._on_live_state_changed)
        live.sig_notice.connect(self._on_live_notice)
        live.attach_view(self.run_view.live)

    def shutdown(self) -> None:
        if self.live is not None:
            self.live.shutdown()

    # -- commands ----------------------------------------------------------------------------------
    def _on_new_run_triggered(self) -> None:
        dialog = NewRunDialog(self.window)
        if dialog.exec() and (request := dialog.request()) is not None:
            self.start_run(request)

    def _on_pause_triggered(self) -> None:
        if self.live is not None:
            self.live.toggle_pause()

    def _on_step_triggered(self) -> None:
        if self.live is not None:
            self.live.step()

    def _on_stop_triggered(self) -> None:
        if self.live is not None:
            self.live.stop()

    def _on_record_case_triggered(self) -> None:
        """Record a [[script]] case from the live run's take-over steps (or the run shown)."""
        live = self.live if self.live is not None and self.live.run_id is not None else None
        problem = open_recorder(self.window, self.model.path, live.run_id if live else self.model.run_id,
                                live.bridge if live else None)
        if problem:
            self.host.show_message(problem)

    def _on_take_over_toggled(self, on: bool) -> None:
        if on:
            self.run_view.show_page(LIVE_PAGE)
        if self.run_view.live.set_takeover(on) != on:
            self.commands.take_over.setChecked(False)  # not paused: no take-over

    def _on_live_view_takeover_changed(self, on: bool) -> None:
        self.commands.take_over.setChecked(on)
        if self.active and self.live is not None:
            self._on_live_state_changed(self.live.state)

    # -- the live run's reports -----------------------------------------------------------------------
    def _on_live_notice(self, text: str) -> None:
        self.host.messages.append(text)
        self.host.statusBar().showMessage(text, NOTICE_MS)

    def _on_live_run_started(self, event: RunStarted) -> None:
        self.model.set_live(event.run_id, self.live.state if self.live is not None else None)
        self.model.apply(run_added(event.run_id), initiator=self)

    def _on_live_step_recorded(self, event: StepRecorded) -> None:
        self.run_view.on_step_recorded(event)
        mode = " · TAKE-OVER" if self.run_view.live.takeover else ""  # a step of the person's keeps the mode said
        self.label.setText(f"● run #{event.run_id} · step {event.idx + 1} · {self.live.state if self.live else ''}"
                           f"{mode}")

    def _on_live_finding_raised(self, event: FindingRaised) -> None:
        self.model.apply(run_changed(event.run_id), initiator=self)  # the run view re-reads its findings

    def _on_live_run_finished(self, event: RunFinished) -> None:
        self.model.apply(run_changed(event.run_id, listed=True), initiator=self)
        self.model.set_live(None, None)
        self.host.statusBar().showMessage(f"Run {event.run_id} {event.status}: {event.verdict} after {event.steps} "
                                          "steps", FINISHED_MS)
        if event.status == "error" and event.error:
            self.host.show_message(f"Run {event.run_id} ended with an error: {event.error}")

    def _on_live_engine_failed(self, message: str) -> None:
        self.host.show_message(message)

    def _on_live_process_ended(self, _exit_code: int) -> None:
        self.model.set_live(None, None)
        self.model.apply(run_changed(self.live.run_id if self.live is not None else None, listed=True),
                         initiator=self)

    def _on_live_state_changed(self, state: str) -> None:
        live_run = self.live.run_id if self.live is not None and state != FINISHED else None
        self.model.set_live(live_run, None if state == FINISHED else state)  # the run view follows
        self.commands.set_live_controls(state, self.live.request.tester if self.live is not None else None)
        if state == FINISHED:
            self.label.setText("")
        else:
            run = f"run #{self.live.run_id} · " if self.live and self.live.run_id else ""
            mode = " · TAKE-OVER" if self.run_view.live.takeover else ""
            self.label.setText(f"● {run}{state}{mode}")
