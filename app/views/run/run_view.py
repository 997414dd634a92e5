"""RunView: one run — film strip, time axis, action timeline, before/after frames, details, findings, verdict.

A differential run (its steps carry the reference program's frame) shows three
panes instead of before | after: candidate (the step's after) | reference |
difference, the difference made off the GUI thread by a :class:`DifferenceMaker`.

The timeline and the film strip share one :class:`StepsModel` and one
selection, so moving in either moves both.  The time axis (:class:`ScrubView`)
scrubs the run's film between steps: the picture at the playhead, decoded off
the GUI thread, takes the "After" pane until a step is chosen again.  During a live run the view
follows the engine: :meth:`RunView.on_step_recorded` tells the model the new
step count and, if the user was looking at the last step, moves to the new one.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QSplitter, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from app.engine.play.events import StepRecorded
from app.engine.trace.repair_plays import REPAIR_KIND, REPAIR_PLAY_KIND
from app.views.model.changes import Changes
from app.views.model.database import READ_ERRORS, Database
from app.views.model.workbench_model import WorkbenchModel
from app.views.run.code_view import CodeView
from app.views.run.film_player import FilmPlayer
from app.views.run.film_strip_view import FilmStripView
from app.views.run.film_track import FilmTrack
from app.views.run.reference_panes import ReferencePanes
from app.views.run.run_splitters import RunSplitters
from app.views.run.scrub_view import ScrubView
from app.views.widgets.after_caption import after_caption, window_gone
from app.views.widgets.findings_view import FindingsView
from app.views.widgets.frame_cache import FrameCache
from app.views.live.live_view import LiveView
from app.views.run.replay_controller import ReplayController
from app.views.run.run_header_view import FRAMES_PAGE, LIVE_PAGE, RunHeaderView
from app.views.run.step_details_view import LOG_BEFORE_S, StepDetailsView
from app.views.run.steps_model import StepsModel, action_caption
from app.views.run.timeline_view import TimelineView
from app.views.run.verdict_view import VerdictView
from app.views.widgets.step_number import step_text

log = logging.getLogger(__name__)

DETAILS_TAB, CODE_TAB, FINDINGS_TAB, VERDICT_TAB = 0, 1, 2, 3
TABS_MIN_HEIGHT = 90
"""The details tabs give way down to this (a tab bar and a few lines) before they collapse."""


class RunView(QWidget):
    sig_step_changed = Signal(int)
    """Emitted with the row of the newly shown step (-1: none)."""
    sig_changed = Signal(object)
    """Emitted with the :class:`~app.views.model.changes.Changes` of an override or an undo."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RunView")
        self._workbench = WorkbenchModel()
        """The model followed: the window's once bound, else one of its own (a view shown alone)."""
        self._findings: list[dict[str, Any]] = []
        self._live_run_id: int | None = None
        self._live_state: str | None = None
        self.frames = FrameCache()
        self.model = StepsModel(self, frames=self.frames)
        self.replay = ReplayController(self.model, self)

        self.header = RunHeaderView(self)
        self.film = FilmStripView(self)
        self.film.setModel(self.model)
        self.timeline = TimelineView(self)
        self.timeline.setModel(self.model)
        self.film.setSelectionModel(self.timeline.selectionModel())
        self.scrub = ScrubView(self)
        self.player = FilmPlayer(self)
        self.panes = ReferencePanes(self, self.frames, lambda idx: self._workbench.reads.reference_frame(self.run_id, idx))
        self.before, self.after, self.reference, self.difference = self.panes.views()
        self.differences = self.panes.differences
        self.live = LiveView(self)
        self.details = StepDetailsView(self, frames=self.frames)
        self.code = CodeView(self)
        self.findings = FindingsView(self)
        self.verdict = VerdictView(self)

        self.center = QStackedWidget(self)
        self.center.addWidget(self.panes.splitter)
        self.center.addWidget(self.live)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.details, "Step details")
        self.tabs.addTab(self.code, "Code")
        self.tabs.addTab(self.findings, "Findings")
        self.tabs.addTab(self.verdict, "Verdict")
        # Every pane around the frames gives way when dragged (at 150 % scaling on a 1080p screen the frames
        # had a quarter of the height): the tabs and the film strip collapse, the timeline narrows.
        right = QSplitter(Qt.Orientation.Vertical, self)
        right.addWidget(self.center)
        right.addWidget(self.tabs)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)
        right.setChildrenCollapsible(False)
        right.setCollapsible(1, True)
        self.tabs.setMinimumHeight(TABS_MIN_HEIGHT)  # below their contents' wish: they scroll or clip, frames grow
        self.right = right
        body = QSplitter(Qt.Orientation.Horizontal, self)
        body.addWidget(self.timeline)
        body.addWidget(right)
        body.setStretchFactor(1, 1)
        body.setSizes([250, 900])
        body.setCollapsible(1, False)
        self.body = body
        lower = QWidget(self)
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.setSpacing(0)
        lower_layout.addWidget(self.scrub)
        lower_layout.addWidget(body, 1)
        self.vertical = QSplitter(Qt.Orientation.Vertical, self)
        self.vertical.addWidget(self.film)
        self.vertical.addWidget(lower)
        self.vertical.setStretchFactor(1, 1)
        self.vertical.setCollapsible(1, False)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.header)
        layout.addWidget(self.vertical, 1)
        self.splits = RunSplitters(self, film=self.vertical, body=body, frames=right)
        self.film_track = FilmTrack(self, self)

        self.timeline.selectionModel().currentChanged.connect(
            lambda current, _previous: self._show_row(current.row() if current.isValid() else -1))
        self.findings.sig_step_requested.connect(self._on_findings_step_requested)
        self.verdict.sig_changed.connect(self.sig_changed)
        self.sig_changed.connect(lambda changes: self._workbench.apply(changes))
        self._follow(self._workbench)
        self.replay.sig_row_reached.connect(self.go_to_row)
        self.header.sig_page_requested.connect(self.show_page)

    # -- opening -----------------------------------------------------------------------------

    @property
    def run(self) -> dict[str, Any] | None:
        """The row of the run shown, as the model last read it."""
        return self._workbench.run if self._workbench.run_id == self.run_id else None

    @property
    def run_id(self) -> int | None:
        return self.model.run_id


    def bind(self, model: WorkbenchModel) -> None:
        """Follow the workbench model: the run it selects is opened here and its row shows in the header; work
        whose :class:`Changes` name the run shown (new steps, findings or log lines, its end, a judgment)
        re-reads it here, and a change of verdicts that names no run re-reads its verdict, whoever made the
        change.  The live run and its control state come from the model too (the run played live, and whether
        it runs or is paused, show in the header of that run).  An override or undo made here goes to the
        model."""
        self._follow(model)
        self.verdict.bind(model)
        self._on_model_database_changed(model.database)
        if model.run_id is not None:
            self._open(model.run_id)

    def _follow(self, model: WorkbenchModel) -> None:
        handlers = (("database", self._on_model_database_changed), ("run_id", self._open),
                    ("run", self._on_model_run_changed), ("changed", self._on_model_changed),
                    ("live_run_id", self.set_live_run), ("live_state", self.set_live_state))
        for name, handler in handlers:
            getattr(self._workbench.events, name).disconnect(handler)
            getattr(model.events, name).connect(handler)
        self._workbench = model

    def set_database(self, database: Database | None) -> None:
        """Show the runs of ``database`` (a view alone; in the window the model hands it over)."""
        self._workbench.use_database(database)

    def open_run(self, run_id: int | None) -> None:
        """Show ``run_id`` (None: nothing) at its first step: the model selects it (the run it selects again is
        opened again)."""
        if run_id == self._workbench.run_id:
            self._open(run_id, again=True)
        else:
            self._workbench.select_run(run_id)

    def _on_model_database_changed(self, database: Database | None) -> None:
        self.frames.set_source(database)
        self.differences.clear()
        self._open(None)

    def _on_model_run_changed(self, run: dict[str, Any] | None) -> None:
        if run is not None and run.get("id") == self.run_id:
            self.refresh_header()

    def _open(self, run_id: int | None, again: bool = False) -> None:
        """Show ``run_id`` (the model's run) at its first step; reads only the first rows."""
        self.replay.pause()
        if not again:
            self.details.expanded.clear()
        db = self._workbench.database
        run = self._workbench.run if run_id is not None and run_id == self._workbench.run_id else None
        self.model.set_run(db, run_id if run is not None else None)
        self._set_findings(db.findings(run_id) if db is not None and run_id is not None and run is not None else [])
        self.verdict.set_run(db if run is not None else None, run_id)
        self.code.set_run(self._workbench.reads, run)
        self.panes.set_on(self._workbench.reads.has_reference_frames(run_id if run is not None else None))
        self.refresh_header()
        self.film_track.load(self._workbench.reads, self.run, self._findings)
        live = run_id is not None and run_id == self._live_run_id
        self.header.set_live_available(live)
        self.show_page(LIVE_PAGE if live else FRAMES_PAGE)
        if self.model.available:
            self.go_to_row(self.model.available - 1 if live else 0)
        else:
            self._show_row(-1)

    def _on_model_changed(self, changes: Changes) -> None:
        if changes.touches(self.run_id):
            self.on_run_changed()
        elif changes.verdict and not changes.runs:
            self.reload_run()

    def refresh_header(self) -> None:
        if self.run is None or self._workbench.database is None:
            self.header.show_run(None, None)
            return
        effective = self._workbench.database.effective_verdict(self.run["id"], tester_verdict=self.run.get("verdict"))
        self.header.live_state = self._live_state if self.run["id"] == self._live_run_id else None
        play = self._workbench.database.repair_play(self.run["id"]) if self.run.get("kind") == REPAIR_PLAY_KIND else None
        self.header.show_run(self.run, effective, steps=self.model.available, usage=self._workbench.reads.llm_usage(self.run_id),
                             repair=(play.session_run, play.iteration) if play is not None else None)

    def reload_run(self) -> None:
        """Re-read the run row, findings and verdict (after the run finished or was judged)."""
        if self.run is None or self._workbench.database is None:
            return
        self._workbench.reload_run()
        if self.run is None:
            return
        self._set_findings(self._workbench.database.findings(self.run["id"]))
        self.verdict.refresh()
        self.code.set_run(self._workbench.reads, self.run)
        self.refresh_header()

    def on_run_changed(self) -> None:
        """The open run changed in the database (any process wrote it): new steps, status, findings, verdict.

        A user looking at the last step follows new steps, as in a live run."""
        if self.run is None or self._workbench.database is None:
            return
        try:
            count = self._workbench.database.step_count(self.run["id"])
            if count > self.model.available:
                following = self.current_row() in (-1, self.model.available - 1)
                self.model.set_available(count)
                if following:
                    self.go_to_row(count - 1)
            self.reload_run()
            self.film_track.load(self._workbench.reads, self.run, self._findings)
        except READ_ERRORS as exc:  # a writer holding the file: the next change reads again
            log.warning("could not re-read run %s: %s", self.run["id"], exc)
            return
        row = self.current_row()
        if row >= 0:
            self._show_row(row)  # a finding recorded after its step changes the step's details

    # -- navigation ------------------------------------------------------------------------------
    def current_row(self) -> int:
        index = self.timeline.selectionModel().currentIndex()
        return index.row() if index.isValid() else -1

    def go_to_row(self, row: int) -> bool:
        """Select step ``row`` (fetching rows up to it first); False when there is no such step."""
        if self.model.available == 0:
            return False
        row = max(0, min(row, self.model.available - 1))
        if not self.model.ensure_loaded(row):
            return False
        index = self.model.index(row, 0)
        self.timeline.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        self.timeline.scrollTo(index)
        self.film.scrollTo(index)
        return True

    def _on_findings_step_requested(self, idx: int) -> None:
        self.go_to_step(idx)
        self.show_page(FRAMES_PAGE)

    def go_to_step(self, idx: int) -> bool:
        row = self.model.row_of_idx(idx)
        return row is not None and self.go_to_row(row)

    def next_step(self) -> None:
        self.go_to_row(self.current_row() + 1)

    def previous_step(self) -> None:
        self.go_to_row(max(0, self.current_row() - 1))

    def first_step(self) -> None:
        self.go_to_row(0)

    def last_step(self) -> None:
        self.go_to_row(self.model.available - 1)

    def zoom_to_fit(self) -> None:
        for view in (self.before, self.after, self.reference, self.difference, self.live):
            view.zoom_to_fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.splits.resized()

    def show_page(self, page: int) -> None:
        self.center.setCurrentIndex(page)
        self.header.set_page(page)

    # -- live runs -----------------------------------------------------------------------------------
    def set_live_run(self, run_id: int | None) -> None:
        """Mark ``run_id`` as the run being played live (None: no live run any more)."""
        was = self.run_id is not None and self.run_id == self._live_run_id
        self._live_run_id = run_id
        live = run_id is not None and run_id == self.run_id
        self.header.set_live_available(live)
        if live != was:  # the header's live state comes or goes with it
            self.refresh_header()
        if not live:
            self.show_page(FRAMES_PAGE)

    def set_live_state(self, state: str | None) -> None:
        """The live run's control state (running, paused, stopping …): the header of the live run shows it."""
        self._live_state = state
        if self.run is not None and self.run["id"] == self._live_run_id:
            self.refresh_header()

    def on_step_recorded(self, event: StepRecorded) -> None:
        if event.run_id != self.run_id:
            return
        following = self.current_row() in (-1, self.model.available - 1)
        self.model.set_available(event.idx + 1)
        if following:
            self.go_to_row(event.idx)
        self._workbench.reload_run()  # window size and status change while it runs
        self.refresh_header()
        self.film_track.load(self._workbench.reads, self.run, self._findings)

    # -- showing a step ----------------------------------------------------------------------------------
    def _show_row(self, row: int) -> None:
        step = self.model.step_at(row)
        if step is None:
            empty = "No run selected." if self.run is None else \
                "A repair session: its cycles and plays are in the repair window (Open repair, above)." \
                if self.run.get("kind") == REPAIR_KIND else "This run has no steps."
            for view in (self.before, self.after, self.reference, self.difference):
                view.set_frame(None, placeholder=empty)
            self.details.show_step(None, empty=empty)
            self.sig_step_changed.emit(-1)
            return
        caption = action_caption(step.get("action"))
        bbox = step.get("changed_bbox")
        before_image, after_image = self.frames.image(step.get("frame_before")), self.frames.image(step.get("frame_after"))
        changed = after_caption(before_image, after_image, bbox)
        if window_gone(before_image, after_image):
            bbox = None  # no rectangle around the whole blank picture
        if step.get("frame_reference") and not self.panes.on:
            self.panes.set_on(True)  # a live differential run's first reference frame
        if self.panes.on:  # "before" is hidden: the action is drawn on the candidate
            self.after.set_frame(after_image, action=step.get("action"), bbox=bbox,
                                 subtitle=f"{step_text(step['idx'])} {caption} · {changed}")
            self.panes.show_reference(step)
        else:
            self.before.set_frame(before_image, action=step.get("action"),
                                  subtitle=f"{step_text(step['idx'])} {caption}")
            self.after.set_frame(after_image, bbox=bbox, subtitle=changed)
        started = step.get("started_at")
        logs = self._workbench.reads.logs(self.run_id, float(started) - LOG_BEFORE_S, float(step.get("ended_at") or started)) \
            if started is not None else []
        self.details.show_step(step, [f for f in self._findings if f.get("step") == step["idx"]], logs,
                               calls=self._workbench.reads.llm_calls(self.run_id, int(step["idx"])))
        self.code.show_step(int(step["idx"]))
        self.scrub.select_span(step.get("started_at"), step.get("ended_at"))
        self.replay.sync(row)
        self.sig_step_changed.emit(row)

    def _set_findings(self, findings: list[dict[str, Any]]) -> None:
        self._findings = findings
        self.findings.set_findings(findings)
        self.model.set_findings(findings)
        n = len(findings)
        self.tabs.setTabText(FINDINGS_TAB, f"Findings ({n})" if n else "Findings")
