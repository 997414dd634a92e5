"""RepairView: step through repair sessions cycle by cycle — and watch one happen.

Left, the sessions (runs of kind ``repair``) with their cycles
(:class:`~app.views.repair.cycle_tree.CycleTree`).  Right, for the selected
cycle: what triggered it, its diagnosis, patch and gate output
(:class:`~app.views.repair.cycle_details_view.CycleDetailsView`), and the
play before the patch beside the re-test after it at the same step
(:class:`~app.views.repair.cycle_frames_view.CycleFramesView`), opened at the
step where the failure shows (:func:`~app.engine.repair.records.failure_step`).
Page Down / Page Up go to the next / previous cycle, ← / → move the steps,
Space plays them.

The view follows the database (:meth:`RepairView.follow`): sessions and
cycles written by any process appear as they are recorded; F5 re-reads at
once.  A repair started from the workbench is attached
(:meth:`RepairView.attach_run`): its cycle in progress is an item of its
own ("iteration 2 · retesting…") whose diagnosis and patch appear as soon as
they are made and whose play shows live (Space then pauses and resumes the
repair); while *Follow the repair* is on, the selection moves with it.
*Present* (F11) opens the presentation mode, *Export HTML…* (Ctrl+E) writes
the session's report.  Recorded data is only read, through
:mod:`app.engine.repair.records` and the database's readers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QPushButton, QSplitter, QVBoxLayout, QWidget

from app.engine.repair.records import CycleRecord
from app.engine.repair.report import OUTCOME_TEXT
from app.views.repair.cycle_details_view import CycleDetailsView
from app.views.repair.cycle_frames_view import CycleFramesView
from app.views.repair.cycle_tree import CYCLE_ROLE, IN_PROGRESS, CycleTree
from app.views.repair.repair_follower import RepairFollower, escape_text
from app.views.repair.repair_run import RepairRun
from app.views.widgets.change_probe import DatabaseChangeProbe


@dataclass(frozen=True)
class Shown:
    """What the view shows now, in plain terms (the presentation mode shows the same)."""

    title: str
    description: str
    diff: str
    diff_hint: str
    findings: list[str]
    diagnosis: str
    live: bool


class RepairView(QWidget):
    sig_cycle_selected = Signal(int)
    """Emitted with the patch row id when a recorded cycle becomes current."""
    sig_stop_requested = Signal()
    """Emitted when the user asks to stop the repair running now (Stop repair)."""
    sig_shown_changed = Signal()
    """Emitted when what the view shows changed (another cycle, step or live frame, a cycle's progress)."""

    def __init__(self, database: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RepairView")
        self.database = database
        self.cycles: list[CycleRecord] = []
        self._current: CycleRecord | None = None
        self._signature: list[tuple[Any, ...]] | None = None
        self._title = ""
        self.presentation: Any = None
        self.probe = DatabaseChangeProbe(self)
        self.probe.sig_changed.connect(self.refresh)
        self.running_label = QLabel(self)
        self.running_label.setObjectName("LiveStatus")
        self.running_label.setWordWrap(True)
        self.follow_check = QCheckBox("Follow the repair", self)
        self.follow_check.setChecked(True)
        self.follow_check.setToolTip("Show the cycle in progress as the repair goes on")
        self.pause_button = QPushButton("Pause", self)
        self.pause_button.setToolTip("Pause the repair at its next step (Space on the cycle in progress)")
        self.stop_button = self._button("Stop repair", "End the running repair (its plays stop cleanly; recorded "
                                        "cycles stay)", self.sig_stop_requested.emit)
        self.present_button = self._button("Present", "Full screen, large type, keys only (F11; Esc leaves)",
                                           self.present)
        self.export_button = self._button("Export HTML…", "Write this repair session as one self-contained HTML "
                                          "file (Ctrl+E)", lambda: self.export_report())
        self.prev_button = self._button("◀ Previous cycle", "Previous cycle (Page Up)", self.previous_cycle)
        self.next_button = self._button("Next cycle ▶", "Next cycle (Page Down)", self.next_cycle)
        self.set_running(None)

        self.tree = CycleTree(self)
        self.tree.currentItemChanged.connect(self._on_tree_current_changed)
        self.header = QLabel("Select a repair cycle.", self)
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.details: CycleDetailsView = CycleDetailsView(self)
        self.tabs = self.details
        self.findings, self.diagnosis = self.details.findings, self.details.diagnosis
        self.diff_browser, self.side_by_side = self.details.diff_browser, self.details.side_by_side
        self.validation = self.details.validation
        self.frames = CycleFramesView(database, self)
        self.frames.sig_frames_changed.connect(self.sig_shown_changed)
        self.follower = RepairFollower(self, self)
        self.step_slider, self.step_label = self.frames.step_slider, self.frames.step_label
        self.before_frame, self.after_frame = self.frames.before_frame, self.frames.after_frame

        right = QSplitter(Qt.Orientation.Vertical, self)
        right.addWidget(self.details)
        right.addWidget(self.frames)
        nav = QHBoxLayout()
        nav.addWidget(self.prev_button)
        nav.addWidget(self.header, 1)
        nav.addWidget(self.next_button)
        right_box = QWidget(self)
        rl = QVBoxLayout(right_box)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addLayout(nav)
        rl.addWidget(right, 1)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.tree)
        split.addWidget(right_box)
        split.setStretchFactor(1, 3)
        top = QHBoxLayout()
        top.addWidget(self.running_label, 1)
        top.addStretch(0)  # takes the room while no repair runs (the label hides), so the buttons keep their size
        for widget in (self.follow_check, self.pause_button, self.stop_button, self.present_button,
                       self.export_button):
            top.addWidget(widget)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split)
        for key, slot in ((Qt.Key.Key_F5, self.refresh_now), (Qt.Key.Key_PageDown, self.next_cycle),
                          (Qt.Key.Key_PageUp, self.previous_cycle), (Qt.Key.Key_F11, self.present),
                          (Qt.Key.Key_Space, self.play_or_pause), (Qt.Key.Key_Left, self.frames.previous_step),
                          (Qt.Key.Key_Right, self.frames.next_step)):
            QShortcut(QKeySequence(key), self, slot)
        QShortcut(QKeySequence("Ctrl+E"), self, lambda: self.export_report())
        self.reload()

    def _button(self, text: str, tip: str, slot: Callable[[], Any]) -> QPushButton:
        button = QPushButton(text, self)
        button.setToolTip(tip)
        button.clicked.connect(lambda _checked=False: slot())
        return button

    # -- content ---------------------------------------------------------------------
    def set_database(self, database: Any) -> None:
        self.database = database
        self.frames.set_database(database)
        self.reload()
        if self.probe.path is not None:
            self.follow(getattr(database, "path", None))

    def follow(self, path: Path | None) -> None:
        """Follow the database file at ``path`` (None: stop): changes by any process appear by themselves."""
        self.probe.watch(path)

    def set_running(self, text: str | None) -> None:
        """Say what the repair running now is doing (None: no repair running; its buttons hide)."""
        self.running_label.setVisible(bool(text))
        self.running_label.setText(text or "")
        running = text is not None
        self.stop_button.setVisible(running)
        self.pause_button.setVisible(running and self.follower.run is not None)
        self.follow_check.setVisible(running and self.follower.run is not None)

    def refresh_now(self) -> None:
        """F5: re-read everything now, keeping the current cycle."""
        self._signature = None
        self.refresh()

    def refresh(self) -> None:
        """Re-read the sessions; the tree is rebuilt only when a session or a cycle changed (the current cycle
        stays current; the first cycle of a new database is selected)."""
        if self.database is None:
            return
        sessions = self.database.repairs.sessions()
        signature = [(s.run_id, s.status, s.verdict, s.cycles) for s in sessions]
        if signature != self._signature:
            self.reload(keep=self._current.patch_id if self._current is not None else None)

    def reload(self, keep: int | None = None) -> None:
        """Re-read the sessions from the database and select the cycle of patch ``keep`` (else the cycle in
        progress when following it, else the first)."""
        live_current = self.tree.showing_progress()
        self._current = None
        sessions = self.database.repairs.sessions() if self.database is not None else []
        self._signature = [(s.run_id, s.status, s.verdict, s.cycles) for s in sessions] if self.database else None
        self.cycles = self.tree.rebuild(self.database, sessions)
        progress_item = self.follower.sync_item()
        items = self.tree.cycle_items()
        kept = next((i for i in items if i.data(0, CYCLE_ROLE) != IN_PROGRESS
                     and self.cycles[i.data(0, CYCLE_ROLE)].patch_id == keep), None) if keep is not None else None
        if progress_item is not None and (live_current or (self.following and kept is None)):
            chosen = progress_item
        else:
            chosen = kept or (items[0] if items else None)
        self.update_buttons()
        if chosen is not None:
            self.tree.choose(chosen)

    def show_session(self, session_run: int, iteration: int = -1) -> bool:
        """Make the cycle of ``session_run`` whose iteration is ``iteration`` current (the first cycle when none
        is, the session itself when it has no cycle); False when the session is not in the list."""
        top = self.tree.session_item(session_run)
        if top is None:  # a session newer than the last read
            self.refresh_now()
            top = self.tree.session_item(session_run)
        if top is None:
            return False
        children = [c for c in (top.child(i) for i in range(top.childCount())) if c is not None]
        recorded = [c for c in children if c.data(0, CYCLE_ROLE) != IN_PROGRESS]
        chosen = next((c for c in recorded if self.cycles[c.data(0, CYCLE_ROLE)].iteration == iteration), None)
        self.tree.choose(chosen or (recorded[0] if recorded else top), user=True)
        return True

    def cycle_count(self) -> int:
        return len(self.cycles)

    def current_cycle(self) -> CycleRecord | None:
        return self._current

    def current_session(self) -> int | None:
        """The repair session of the selected item (its run id)."""
        return self.tree.current_session()

    def select_cycle(self, index: int) -> None:
        """Make the ``index``-th recorded cycle (over all sessions, in list order) current."""
        item = next((i for i in self.tree.cycle_items() if i.data(0, CYCLE_ROLE) == index), None)
        if 0 <= index and item is not None:
            self.tree.choose(item, user=True)

    def next_cycle(self) -> None:
        """Page Down: the next item in the list (a session's recorded cycles, then its cycle in progress)."""
        item = self.tree.neighbour(+1)
        if item is not None:
            self.tree.choose(item, user=True)

    def previous_cycle(self) -> None:
        item = self.tree.neighbour(-1)
        if item is not None:
            self.tree.choose(item, user=True)

    def play_or_pause(self) -> None:
        """Space: on the cycle in progress, pause or resume the repair; on a recorded cycle, play its steps."""
        if self.showing_progress() and self.follower.run is not None:
            self.follower.run.toggle_pause()
        else:
            self.frames.toggle_replay()

    def failure_step(self, rec: CycleRecord, trigger: list[dict[str, Any]] | None = None) -> int:
        """The step where the failure shows (see :func:`~app.engine.repair.records.failure_step`)."""
        return self.database.repairs.failure_step(rec, trigger)

    def frame_pair(self) -> tuple[Any, Any]:
        """The two images shown now (for tests and for exporting a demo still)."""
        return self.frames.frame_pair()

    def shown(self) -> Shown:
        """What the view shows now, for the presentation mode."""
        progress = self.follower.run.progress if self.follower.run is not None else None
        description = self._current.description if self._current is not None else \
            (progress.description if progress is not None and self.showing_progress() else "")
        diff, hint = self.details.diff
        return Shown(self._title, description, diff, hint, self.details.finding_lines(),
                     self.diagnosis.toPlainText(), self.showing_progress())

    # -- presentation and export ---------------------------------------------------------------------
    def present(self) -> None:
        """F11: the presentation mode (full screen, large type, keys only) on the current cycle."""
        from app.views.repair.presentation_view import PresentationView

        if self.presentation is None:
            self.presentation = PresentationView(self)
            self.presentation.sig_closed.connect(self._on_presentation_closed)
        self.presentation.start()

    def export_report(self, path: Path | None = None, say: Callable[[str], None] | None = None) -> Any:
        """Ctrl+E: write the selected session as one HTML file (off the GUI thread, with progress); asks where
        unless ``path`` is given.  Returns the running task (None: nothing to do)."""
        from app.views.repair.repair_export import export_session_report

        return export_session_report(self, self.database, self.current_session(), path, say=say)

    def _on_presentation_closed(self) -> None:
        self.presentation = None
        self.activateWindow()

    # -- the repair running now ---------------------------------------------------------------------------
    def attach_run(self, run: RepairRun | None) -> None:
        """Follow ``run`` (a repair started from the workbench) live; None detaches it."""
        self.follower.attach(run)

    @property
    def following(self) -> bool:
        return self.follower.following

    def showing_progress(self) -> bool:
        """True while the cycle in progress (not a recorded one) is shown."""
        return self.tree.showing_progress()

    def update_buttons(self) -> None:
        self.prev_button.setEnabled(self.tree.neighbour(-1) is not None and self.tree.currentItem() is not None)
        self.next_button.setEnabled(self.tree.neighbour(+1) is not None)

    # -- showing one cycle ---------------------------------------------------------------
    def _on_tree_current_changed(self, item: Any, _previous: Any) -> None:
        if item is None:
            return
        index = item.data(0, CYCLE_ROLE)
        if index is None:  # a session: show its first cycle
            if item.childCount():
                self.tree.setCurrentItem(item.child(0))
            return
        if index == IN_PROGRESS:
            if not self.tree.by_program:
                self.follow_check.setChecked(True)
            self._current = None
            self.follower.show(again=True)
            return
        if not self.tree.by_program and self.follower.run is not None:
            self.follow_check.blockSignals(True)
            self.follow_check.setChecked(False)  # the user went to a recorded cycle: stay there
            self.follow_check.blockSignals(False)
        self._show(self.cycles[int(index)])

    def _show(self, rec: CycleRecord) -> None:
        self._current = rec
        self.frames.set_live(None)
        verdict = f"re-test {rec.verdict}" if rec.verdict else "no re-test"
        self.set_header(f"<b>Iteration {rec.iteration}</b> · {OUTCOME_TEXT.get(rec.outcome, rec.outcome)} · "
                         f"{verdict} · {rec.seconds:.1f} s · {rec.tokens} tokens", rec.description)
        trigger = self.database.repairs.trigger_findings(rec)
        self.details.show_cycle(trigger, rec.diagnosis, rec.diff, rec.files[0] if rec.files else ".py",
                                rec.validation or rec.error or "(no validation output)")
        self.frames.show_runs(rec.before_run, rec.retest_run, self.failure_step(rec, trigger))
        self.update_buttons()
        if rec.patch_id is not None:
            self.sig_cycle_selected.emit(rec.patch_id)
        self.sig_shown_changed.emit()

    def set_header(self, title: str, description: str) -> None:
        """``title`` (rich text) over the patch's one-line ``description``."""
        self._title = title
        self.header.setText(title + (f"<br>{escape_text(description)}" if description else ""))
