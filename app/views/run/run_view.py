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

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QImage, QResizeEvent
from PySide6.QtWidgets import QSplitter, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from app.engine.play.events import StepRecorded
from app.engine.trace.film_reader import FilmReader
from app.engine.trace.repair_plays import REPAIR_KIND, REPAIR_PLAY_KIND
from app.views.model.changes import Changes
from app.views.model.database import READ_ERRORS, Database
from app.views.model.workbench_model import WorkbenchModel
from app.views.run.code_view import CodeView
from app.views.run.difference_maker import DifferenceMaker, difference_key
from app.views.run.film_player import FilmPlayer
from app.views.run.film_strip_view import FilmStripView
from app.views.run.scrub_view import ScrubView
from app.views.widgets.findings_view import FindingsView
from app.views.widgets.frame_cache import FrameCache
from app.views.widgets.frame_view import FrameView
from app.views.live.live_view import LiveView
from app.views.run.replay_controller import ReplayController
from app.views.run.run_header_view import FRAMES_PAGE, LIVE_PAGE, RunHeaderView
from app.views.run.step_details_view import LOG_BEFORE_S, StepDetailsView
from app.views.run.steps_model import StepsModel, action_caption
from app.views.run.timeline_view import TimelineView
from app.views.run.verdict_view import VerdictView
from app.views.widgets.step_number import step_text

log = logging.getLogger(__name__)


def _moment(finding: dict[str, Any]) -> float | None:
    """When a finding happened on the film (``evidence["film"]["t"]``), if it says."""
    evidence = finding.get("evidence")
    film = evidence.get("film") if isinstance(evidence, dict) else None
    t = film.get("t") if isinstance(film, dict) else None
    return float(t) if isinstance(t, (int, float)) else None

DETAILS_TAB, CODE_TAB, FINDINGS_TAB, VERDICT_TAB = 0, 1, 2, 3
FRAMES_SHARE = 0.7
"""The frames' share of the height beside the details tabs, at first (the splitter keeps what the user sets)."""
TABS_MIN_HEIGHT = 90
"""The details tabs give way down to this (a tab bar and a few lines) before they collapse."""
AFTER_TITLE, CANDIDATE_TITLE = "After", "Candidate"


class RunView(QWidget):
    sig_step_changed = Signal(int)
    """Emitted with the row of the newly shown step (-1: none)."""
    sig_verdict_changed = Signal(int)
    """Emitted with the run id after the user appended an override or an undo."""
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
        self._with_reference = False
        """Does the open run carry reference frames (three panes: candidate | reference | difference)?"""
        self._difference_key = ""
        """The difference the difference pane waits for or shows."""
        self._shared = False
        """Has the user set the frames' share of the height (moved the splitter, or it was restored)?"""
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
        self.before = FrameView("Before", self)
        self.after = FrameView(AFTER_TITLE, self)
        self.reference = FrameView("Reference", self)
        self.difference = FrameView("Difference", self)
        self.differences = DifferenceMaker(self)
        self.live = LiveView(self)
        self.details = StepDetailsView(self, frames=self.frames)
        self.code = CodeView(self)
        self.findings = FindingsView(self)
        self.verdict = VerdictView(self)

        pair = QSplitter(Qt.Orientation.Horizontal, self)
        pair.addWidget(self.before)
        pair.addWidget(self.after)
        pair.addWidget(self.reference)
        pair.addWidget(self.difference)
        pair.setChildrenCollapsible(False)
        self.reference.hide()
        self.difference.hide()
        self.center = QStackedWidget(self)
        self.center.addWidget(pair)
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
        right.splitterMoved.connect(self._on_right_splitter_moved)
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

        self.timeline.selectionModel().currentChanged.connect(self._on_selection_current_changed)
        self.findings.sig_step_requested.connect(self._on_findings_step_requested)
        self.verdict.sig_verdict_changed.connect(self._on_verdict_verdict_changed)
        self.verdict.sig_changed.connect(self.sig_changed)
        self.sig_changed.connect(lambda changes: self._workbench.apply(changes))
        self._follow(self._workbench)
        self.replay.sig_row_reached.connect(self._on_replay_row_reached)
        self.header.sig_page_requested.connect(self._on_header_page_requested)
        self.scrub.sig_time_scrubbed.connect(self._on_scrub_time_scrubbed)
        self.player.sig_frame_decoded.connect(self._on_player_frame_decoded)
        self.differences.sig_difference_made.connect(self._on_differences_difference_made)

    # -- opening -----------------------------------------------------------------------------
    @property
    def database(self) -> Database | None:
        return self._workbench.database

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
        handlers = (("database", self._on_model_database_changed), ("run_id", self._on_model_run_id_changed),
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
            self._open(run_id)
        else:
            self._workbench.select_run(run_id)

    def _on_model_database_changed(self, database: Database | None) -> None:
        self.frames.set_source(database)
        self.differences.clear()
        self._open(None)

    def _on_model_run_id_changed(self, run_id: int | None) -> None:
        self.details.expanded.clear()
        self._open(run_id)

    def _on_model_run_changed(self, run: dict[str, Any] | None) -> None:
        if run is not None and run.get("id") == self.run_id:
            self.refresh_header()

    def _open(self, run_id: int | None) -> None:
        """Show ``run_id`` at its first step; reads only the first rows."""
        self.replay.pause()
        db = self.database
        run = self._workbench.run if run_id is not None and run_id == self._workbench.run_id else None
        self.model.set_run(db, run_id if run is not None else None)
        self._findings = db.findings(run_id) if db is not None and run_id is not None and run is not None else []
        self.findings.set_findings(self._findings)
        self.model.set_findings(self._findings)
        self._update_findings_tab()
        self.verdict.set_run(db if run is not None else None, run_id)
        self.code.set_run(db, run)
        self._set_reference_panes(self._has_reference_frames())
        self.refresh_header()
        self._load_film()
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
        if self.run is None or self.database is None:
            self.header.show_run(None, None)
            return
        effective = self.database.effective_verdict(self.run["id"], tester_verdict=self.run.get("verdict"))
        self.header.live_state = self._live_state if self.run["id"] == self._live_run_id else None
        play = self.database.repair_play(self.run["id"]) if self.run.get("kind") == REPAIR_PLAY_KIND else None
        self.header.show_run(self.run, effective, steps=self.model.available, usage=self._llm_usage(),
                             repair=(play.session_run, play.iteration) if play is not None else None)

    def reload_run(self) -> None:
        """Re-read the run row, findings and verdict (after the run finished or was judged)."""
        if self.run is None or self.database is None:
            return
        self._workbench.reload_run()
        if self.run is None:
            return
        self._findings = self.database.findings(self.run["id"])
        self.findings.set_findings(self._findings)
        self.model.set_findings(self._findings)
        self._update_findings_tab()
        self.verdict.refresh()
        self.code.set_run(self.database, self.run)
        self.refresh_header()

    def on_run_changed(self) -> None:
        """The open run changed in the database (any process wrote it): new steps, status, findings, verdict.

        A user looking at the last step follows new steps, as in a live run."""
        if self.run is None or self.database is None:
            return
        try:
            count = self.database.step_count(self.run["id"])
            if count > self.model.available:
                following = self.current_row() in (-1, self.model.available - 1)
                self.model.set_available(count)
                if following:
                    self.go_to_row(count - 1)
            self.reload_run()
            self._load_film()
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

    def splitters(self) -> dict[str, QSplitter]:
        """The splitters whose positions the window keeps between sessions, by name."""
        return {"film": self.vertical, "body": self.body, "frames": self.right}

    def restore_splitters(self, states: dict[str, Any]) -> None:
        """Put the splitters where the user left them (saved ``saveState`` bytes by name)."""
        for name, splitter in self.splitters().items():
            if states.get(name) is not None and splitter.restoreState(states[name]):
                self._shared = True

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self._shared:  # until the user moves the splitter, the frames keep their share (once laid out)
            QTimer.singleShot(0, self._share_height)

    def _share_height(self) -> None:
        total = sum(self.right.sizes())
        if not self._shared and total > 0:
            self.right.setSizes([round(total * FRAMES_SHARE), total - round(total * FRAMES_SHARE)])

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
        self._load_film()

    def on_finding_raised(self, run_id: int) -> None:
        if run_id == self.run_id and self.database is not None:
            self._findings = self.database.findings(run_id)
            self.findings.set_findings(self._findings)
            self.model.set_findings(self._findings)
            self._update_findings_tab()
            row = self.current_row()
            if row >= 0:
                self._show_row(row)

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
        changed = "changed region highlighted" if bbox else "no visible change"
        if step.get("frame_reference") and not self._with_reference:
            self._set_reference_panes(True)  # a live differential run's first reference frame
        if self._with_reference:  # "before" is hidden: the action is drawn on the candidate
            self.after.set_frame(self.frames.image(step.get("frame_after")), action=step.get("action"), bbox=bbox,
                                 subtitle=f"{step_text(step['idx'])} {caption} · {changed}")
            self._show_reference(step)
        else:
            self.before.set_frame(self.frames.image(step.get("frame_before")), action=step.get("action"),
                                  subtitle=f"{step_text(step['idx'])} {caption}")
            self.after.set_frame(self.frames.image(step.get("frame_after")), bbox=bbox, subtitle=changed)
        self.details.show_step(step, [f for f in self._findings if f.get("step") == step["idx"]], self._logs(step),
                               calls=self._llm_calls(step))
        self.code.show_step(int(step["idx"]))
        self.scrub.select_span(step.get("started_at"), step.get("ended_at"))
        self.replay.sync(row)
        self.sig_step_changed.emit(row)

    # -- a differential run: candidate | reference | difference ---------------------------------------
    def _has_reference_frames(self) -> bool:
        if self.database is None or self.run is None:
            return False
        try:
            return bool(self.database.has_reference_frames(self.run["id"]))
        except READ_ERRORS as exc:  # a database from before reference frames, opened read-only
            log.warning("could not look for reference frames: %s", exc)
            return False

    def _set_reference_panes(self, on: bool) -> None:
        """Three panes (candidate | reference | difference) for a run with reference frames, else before | after."""
        self._with_reference = on
        self.before.setVisible(not on)
        self.reference.setVisible(on)
        self.difference.setVisible(on)
        self.after.set_title(CANDIDATE_TITLE if on else AFTER_TITLE)

    def _show_reference(self, step: dict[str, Any]) -> None:
        """The step's reference frame, and its difference from the candidate (made now, or kept from before)."""
        ref = step.get("frame_reference") or self._reread_reference(step)
        candidate, reference = self.frames.image(step.get("frame_after")), self.frames.image(ref)
        if reference is None:
            self.reference.set_frame(None, placeholder="The reference did not play this step.")
        else:
            self.reference.set_frame(reference, subtitle="after the same input")
        if candidate is None or reference is None or not ref:
            self._difference_key = ""
            self.difference.set_frame(None, placeholder="No difference: a frame is missing.")
            return
        self._difference_key = difference_key(step["frame_after"], ref)
        if self.differences.made(self._difference_key) is not None:
            self._show_difference()
        else:
            self.difference.set_frame(None, placeholder="Making the difference…")
            self.differences.request(self._difference_key, candidate, reference)

    def _reread_reference(self, step: dict[str, Any]) -> str | None:
        """A row read just before its reference frame was written (another process's run) learns it now."""
        if self.database is None or self.run_id is None:
            return None
        try:
            fresh = self.database.step(self.run_id, int(step["idx"]))
        except READ_ERRORS as exc:
            log.warning("could not re-read step %s: %s", step.get("idx"), exc)
            return None
        ref = fresh.get("frame_reference") if fresh else None
        if ref:
            step["frame_reference"] = ref
        return ref if isinstance(ref, str) else None

    def _show_difference(self) -> None:
        made = self.differences.made(self._difference_key)
        if made is None:
            return
        if made.image is None:
            self.difference.set_frame(None, placeholder=made.why_none)
            return
        what = f"{made.pixels} pixels differ (red)" if made.pixels else "no pixel differs"
        self.difference.set_frame(made.image, subtitle=what)

    def _on_differences_difference_made(self, key: str) -> None:
        if key == self._difference_key and self._with_reference:
            self._show_difference()

    def _logs(self, step: dict[str, Any]) -> list[dict[str, Any]]:
        if self.database is None or self.run_id is None or step.get("started_at") is None:
            return []
        try:
            return list(self.database.logs(self.run_id, float(step["started_at"]) - LOG_BEFORE_S,
                                        float(step.get("ended_at") or step["started_at"])))
        except READ_ERRORS as exc:
            log.warning("could not read the target log: %s", exc)
            return []

    def _llm_calls(self, step: dict[str, Any]) -> list[dict[str, Any]]:
        if self.database is None or self.run_id is None:
            return []
        try:
            return list(self.database.llm_calls(self.run_id, int(step["idx"])))
        except READ_ERRORS as exc:
            log.warning("could not read the model calls: %s", exc)
            return []

    def _llm_usage(self) -> dict[str, Any] | None:
        if self.database is None or self.run is None:
            return None
        try:
            usage: dict[str, Any] = self.database.llm_usage(self.run["id"])
        except READ_ERRORS as exc:
            log.warning("could not read the model usage: %s", exc)
            return None
        return usage if usage["calls"] else None

    # -- the film ---------------------------------------------------------------------------------------------
    def _load_film(self) -> None:
        """(Re)read the run's film index and step times for the time axis: a few hundred kB for a long run."""
        reader: FilmReader | None = None
        steps: list[tuple[int, float, float, bool]] = []
        if self.database is not None and self.run is not None:
            try:
                reader = self.database.film(self.run["id"])
                steps = self.database.step_times(self.run["id"])
            except READ_ERRORS as exc:  # an older database without films, or a writer holding the file
                log.warning("could not read the film of run %s: %s", self.run["id"], exc)
        self.player.set_reader(reader)
        run = self.run or {}
        moments = [t for t in (_moment(f) for f in self._findings) if t is not None]
        self.scrub.set_run(run.get("started_at"), run.get("ended_at"), steps, moments,
                           reader.times if reader is not None else None)
        row = self.current_row()
        step = self.model.step_at(row) if row >= 0 else None
        if step is not None:
            self.scrub.select_span(step.get("started_at"), step.get("ended_at"))

    def _on_scrub_time_scrubbed(self, t: float) -> None:
        """The step under the playhead becomes the current step (list, strip, Before pane and details move
        with it); the film's picture at ``t`` then takes the After pane."""
        step = self._scrub_step_at(t)
        row = self.model.row_of_idx(step[0]) if step is not None else None
        if row is not None and row != self.current_row():
            self.go_to_row(row)
        self.scrub.set_playhead(t)  # choosing the step put the playhead at its end
        self.player.request(t)

    def _scrub_step_at(self, t: float) -> tuple[int, float, float, bool] | None:
        """The step under ``t`` on the time axis: the last one started at or before it (the first before any)."""
        steps = self.scrub.steps
        return next((s for s in reversed(steps) if s[1] <= t), steps[0] if steps else None)

    def _on_player_frame_decoded(self, requested: float, t: float, index: int, image: QImage) -> None:
        if self.run is None:
            return
        step = next((s for s in reversed(self.scrub.steps) if s[1] <= t), None)  # None: before the first step
        where = f"during step {step_text(step[0])}" if step is not None and t <= step[2] else \
            f"after step {step_text(step[0])}" if step is not None else "before the first step"
        self.after.set_frame(image, subtitle=f"film t+{t - float(self.run['started_at']):.3f} s, frame {index} ({where})")
        self.show_page(FRAMES_PAGE)

    def _update_findings_tab(self) -> None:
        n = len(self._findings)
        self.tabs.setTabText(FINDINGS_TAB, f"Findings ({n})" if n else "Findings")

    # -- handlers --------------------------------------------------------------------------------------------
    def _on_selection_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._show_row(current.row() if current.isValid() else -1)

    def _on_findings_step_requested(self, idx: int) -> None:
        self.go_to_step(idx)
        self.show_page(FRAMES_PAGE)

    def _on_verdict_verdict_changed(self, run_id: int) -> None:
        self.refresh_header()
        self.sig_verdict_changed.emit(run_id)

    def _on_replay_row_reached(self, row: int) -> None:
        self.go_to_row(row)

    def _on_right_splitter_moved(self, _pos: int, _index: int) -> None:
        self._shared = True

    def _on_header_page_requested(self, page: int) -> None:
        self.show_page(page)
