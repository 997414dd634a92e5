"""AnnotationView: blinded, keyboard-first labelling of a validation set.

The view shows only what :func:`app.engine.study.validation.blinded_run` returns —
action captions, before/after frames (with the action drawn on "before" and the
changed region on "after", as in the run view) and the target's log lines —
never the tester's verdict, reason, findings or judgments, other annotators'
labels, nor the run's id.

The target's task (its goal and criteria, the same for every variant) is
shown above the run, and the end of the set is summed up when the last run is
labelled.  Everything works from the keyboard, without a click first: ← / →
steps, Home / End the run's first and last step, Page Down / Page Up items, 1 pass, 2 fail, 3 unsure, Enter next, Backspace
back.  They are window shortcuts (and the same keys are caught on the view
itself when it is not in an active window); in the note field digits, ← / →
and Backspace edit the note, Enter saves it and moves on, Escape returns to
the keys.  Each label is written to the database at once, with the time spent
on the item, so closing the view loses nothing and the next session resumes at
the first unlabelled item of this annotator's order.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox, QHBoxLayout, QInputDialog, QLabel, QLineEdit, QListView, QPlainTextEdit, QProgressBar,
    QPushButton, QSplitter, QVBoxLayout, QWidget,
)

from app.engine.study import validation
from app.engine.errors import UserError
from app.views.model.changes import Changes
from app.views.model.database import Database
from app.views.model.workbench_model import WorkbenchModel
from app.views.labelling.annotation_model import StepListModel
from app.views.labelling.labelling_keys import (  # noqa: F401 - the keys are named here too
    BACK_KEYS, EDGE_KEYS, ITEM_KEYS, LABEL_KEYS, NEXT_KEYS, STEP_KEYS, LabellingKeys,
)
from app.views.labelling.set_summary import summary_text
from app.views.labelling.task_instructions_view import TaskInstructionsView
from app.views.widgets.after_caption import after_caption, window_gone
from app.views.widgets.frame_cache import FrameCache
from app.views.widgets.identity import ASK_TEXT, IDENTITY_KEY, identity, set_identity
from app.views.widgets.frame_view import FrameView

SETTINGS_KEY = IDENTITY_KEY
"""Where the annotator name is remembered: the user's one identity, shared with verdict overrides."""
MAX_LOG_LINES = 2000
"""The log pane shows at most this many lines of a run (the first ones)."""


def default_settings() -> QSettings:
    return QSettings("PlayCoder", "Workbench")


def ask_annotator_name(parent: QWidget | None) -> str | None:
    """Ask once for the annotator's name; None when the user cancels."""
    text, ok = QInputDialog.getText(parent, "Your name", ASK_TEXT)
    return text.strip() if ok and text.strip() else None


class AnnotationView(QWidget):
    """Label the runs of one validation set, blinded, in this annotator's own order."""

    sig_label_saved = Signal(int, str)
    """A label (run id, label) was written to the database."""
    sig_promoted = Signal(int, int)
    """A label of run (run id) was promoted to judgment (judgment id)."""
    sig_changed = Signal(object)
    """Emitted with the :class:`~app.views.model.changes.Changes` of a label made a human judgment."""

    def __init__(self, database: Database, annotator: str | None = None, *, set_name: str | None = None,
                 settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.database = database
        self._settings = settings if settings is not None else default_settings()
        self.annotator: str | None = None
        self.vset: validation.ValidationSet | None = None
        self.order: list[validation.BlindItem] = []
        self.labels: dict[int, validation.Label] = {}
        self.position = 0
        self.frames = FrameCache(database)
        self._item_since = time.monotonic()
        """When the current item was shown (or its time last written)."""
        self._timed: tuple[validation.ValidationSet, str, int] | None = None
        """(set, annotator, run) whose time is running."""
        self._unsaved_seconds: dict[int, float] = {}
        """Time spent on items not labelled yet, written with their label."""
        self._draft_notes: dict[int, str] = {}
        """Notes typed on items not labelled yet, shown again there and saved with their label."""
        self.setWindowTitle("Blinded labelling")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._build()
        self._resolve_annotator(annotator)
        self._fill_sets(set_name)
        self.keys = LabellingKeys(self, self)

    # -- construction ---------------------------------------------------------------
    def _build(self) -> None:
        self.set_combo = QComboBox()
        self.set_combo.setToolTip("validation set")
        self.annotator_label = QLabel()
        self.annotator_button = QPushButton("Change name…")
        self.annotator_button.setToolTip("Your one name, recorded with your labels and overrides")
        self.progress_bar = QProgressBar()
        self.progress_bar.setFormat("%v / %m labelled")
        top = QHBoxLayout()
        for w in (QLabel("Set:"), self.set_combo, self.annotator_label, self.annotator_button):
            top.addWidget(w)
        top.addWidget(self.progress_bar, 1)

        self.item_label = QLabel()
        self.instructions = TaskInstructionsView()
        self.steps_model = StepListModel(self)
        self.steps_view = QListView()
        self.steps_view.setModel(self.steps_model)
        self.before = FrameView("Before the action")
        self.after = FrameView("After the action")
        self.log_text = QPlainTextEdit()
        self.log_text.setReadOnly(True)
        self.log_text.setPlaceholderText("no log lines from the target")
        frames = QSplitter(Qt.Orientation.Horizontal)
        frames.addWidget(self.before)
        frames.addWidget(self.after)
        self.steps_view.setToolTip("← / → steps, Page Down / Page Up runs")
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(frames)
        right.addWidget(self.log_text)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 1)
        replay = QSplitter(Qt.Orientation.Horizontal)
        replay.addWidget(self.steps_view)
        replay.addWidget(right)
        replay.setStretchFactor(1, 3)

        self.current_label = QLabel()
        self.note_edit = QLineEdit()
        self.note_edit.setPlaceholderText("optional note (Enter saves and moves on, Esc back to the keys)")
        self.pass_button = QPushButton("Pass (1)")
        self.fail_button = QPushButton("Fail (2)")
        self.unsure_button = QPushButton("Unsure (3)")
        self.back_button = QPushButton("◀ Back (Backspace)")
        self.next_button = QPushButton("Next (Enter) ▶")
        self.promote_button = QPushButton("Promote my label to a judgment")
        self.promote_button.setToolTip(
            "Record your label as a human judgment on this run; it then counts as the run's result.")
        self.status = QLabel()
        self.status.setWordWrap(True)
        buttons = QHBoxLayout()
        for b in (self.pass_button, self.fail_button, self.unsure_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        for b in (self.back_button, self.next_button, self.promote_button):
            buttons.addWidget(b)
        note_row = QHBoxLayout()
        note_row.addWidget(self.current_label)
        note_row.addWidget(self.note_edit, 1)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.item_label)
        layout.addWidget(self.instructions)
        layout.addWidget(replay, 1)
        layout.addLayout(note_row)
        layout.addLayout(buttons)
        layout.addWidget(self.status)

        self.set_combo.currentTextChanged.connect(self._on_set_combo_changed)
        self.annotator_button.clicked.connect(self._on_annotator_button_clicked)
        self.steps_view.selectionModel().currentRowChanged.connect(self._on_steps_current_changed)
        self.pass_button.clicked.connect(lambda: self.apply_label("pass"))
        self.fail_button.clicked.connect(lambda: self.apply_label("fail"))
        self.unsure_button.clicked.connect(lambda: self.apply_label("unsure"))
        self.back_button.clicked.connect(self.go_back)
        self.next_button.clicked.connect(self.go_next)
        self.promote_button.clicked.connect(self.promote_current)
        self.note_edit.editingFinished.connect(self._save_note)
        # Tab from where the keys work goes to the note, then the label buttons; the set and name come last.
        chain = (self.steps_view, self.note_edit, self.pass_button, self.fail_button, self.unsure_button,
                 self.back_button, self.next_button, self.promote_button, self.log_text, self.set_combo,
                 self.annotator_button)
        for first, second in zip(chain, chain[1:]):
            QWidget.setTabOrder(first, second)

    def showEvent(self, event: Any) -> None:
        """The keys work at once: the view takes the focus when it is shown (not the first text field)."""
        super().showEvent(event)
        if not self.note_edit.hasFocus():
            self.steps_view.setFocus()

    # -- annotator and set ------------------------------------------------------------
    def _resolve_annotator(self, given: str | None) -> None:
        name = given
        if name is None:
            name = identity(self._settings) or None
        if name is None:
            name = ask_annotator_name(self)
            if name is not None:
                set_identity(self._settings, name)
        self._set_annotator(name)

    def _set_annotator(self, name: str | None) -> None:
        try:
            self.annotator = validation.check_annotator(name) if name is not None else None
        except UserError as exc:
            self.annotator = None
            self._say(str(exc))
        self.annotator_label.setText(f"Annotator: {self.annotator}" if self.annotator else "Annotator: (none)")

    def _on_annotator_button_clicked(self) -> None:
        name = ask_annotator_name(self)
        if name is None:
            return
        set_identity(self._settings, name)
        self._set_annotator(name)
        self.load_set(self.set_combo.currentText())

    def _fill_sets(self, wanted: str | None) -> None:
        names = [s.name for s in self.database.validation.sets()]
        self.set_combo.blockSignals(True)
        self.set_combo.clear()
        self.set_combo.addItems(names)
        self.set_combo.blockSignals(False)
        if not names:
            self._say("There are no validation sets yet; draw one with `playcoder validate sample --name NAME`.")
            self._show_nothing()
            return
        choice = wanted if wanted in names else names[-1]
        self.set_combo.setCurrentText(choice)
        self.load_set(choice)

    def _on_set_combo_changed(self, name: str) -> None:
        if name:
            self.load_set(name)

    def follow(self, model: WorkbenchModel) -> Callable[[], None]:
        """Follow the sets as other work changes them (a set drawn in the main window joins the list; the set
        being labelled stays as it is); returns what ends the subscription (call it when the window closes)."""
        def on_changed(changes: Changes) -> None:
            if changes.labels and changes.initiator is not self:
                shown = self.set_combo.currentText()
                names = [s.name for s in self.database.validation.sets()]
                self.set_combo.blockSignals(True)
                self.set_combo.clear()
                self.set_combo.addItems(names)
                self.set_combo.setCurrentText(shown)
                self.set_combo.blockSignals(False)

        model.events.changed.connect(on_changed)
        return lambda: model.events.changed.disconnect(on_changed)

    def load_set(self, name: str) -> None:
        """Open a set at this annotator's first unlabelled item (what the status said of another set or
        another name goes)."""
        self._say("")
        try:
            self.vset = self.database.validation.get(name)
        except UserError as exc:
            self._say(str(exc))
            return
        self.setWindowTitle(f"Blinded labelling — {name}")
        self._draft_notes.clear()
        if self.annotator is None:
            self.order, self.labels = [], {}
            self._say("Give your name first (Change name…).")
            self._show_nothing()
            return
        self.order = self.database.validation.annotator_order(self.vset, self.annotator)
        self.labels = self.database.validation.labels_of(self.vset, self.annotator)
        self.show_item(validation.resume_index(self.order, self.labels))
        if self.order and len(self.labels) == len(self.order):
            self._say(summary_text(self.labels, len(self.order)))

    # -- items ---------------------------------------------------------------------------
    def current_run(self) -> int | None:
        return self.order[self.position].run_id if 0 <= self.position < len(self.order) else None

    def show_item(self, position: int) -> None:
        if not self.order:
            self._show_nothing()
            return
        self._record_time()
        self.position = max(0, min(position, len(self.order) - 1))
        run_id = self.order[self.position].run_id
        run = self.database.validation.blinded_run(run_id)
        self._timed = (self.vset, self.annotator, run_id) if self.vset and self.annotator else None
        self.item_label.setText(f"Item {self.position + 1} of {len(self.order)} — {run.target}")
        self.instructions.show_target(self.database.target_path(run_id))
        self.steps_model.set_steps(run.steps)
        lines = [f"{t:8.2f}s {stream:<6} {text}" for stream, t, text in run.logs[:MAX_LOG_LINES]]
        if len(run.logs) > MAX_LOG_LINES:
            lines.append(f"… {len(run.logs) - MAX_LOG_LINES} more lines")
        self.log_text.setPlainText("\n".join(lines))
        if run.steps:
            self.steps_view.setCurrentIndex(self.steps_model.index(0, 0))
        else:
            self._show_step(None)
        self._refresh_label()
        self._set_enabled(True)

    def _show_nothing(self) -> None:
        self._record_time()
        self._timed = None
        self.order = []
        self.steps_model.set_steps([])
        self.item_label.setText("")
        self.instructions.clear()
        self.log_text.setPlainText("")
        self._show_step(None)
        self.current_label.setText("")
        self.progress_bar.setRange(0, 1)
        self.progress_bar.setValue(0)
        self._set_enabled(False)

    def _set_enabled(self, on: bool) -> None:
        for w in (self.pass_button, self.fail_button, self.unsure_button, self.back_button,
                  self.next_button, self.note_edit):
            w.setEnabled(on)
        self.promote_button.setEnabled(on and self._promotable())

    def _on_steps_current_changed(self, current: Any, previous: Any) -> None:
        self._show_step(self.steps_model.step(current.row()))

    def _show_step(self, step: validation.BlindedStep | None) -> None:
        """Both frames of ``step``, the action drawn on "before" and the changed region on "after"."""
        if step is None:
            self.before.set_frame(None, placeholder="No step")
            self.after.set_frame(None, placeholder="No step")
            return
        where = f"step {step.idx + 1} of {self.steps_model.rowCount()} · {step.caption}"
        self.before.set_frame(self.frames.image(step.frame_before), action=step.action, subtitle=where,
                              placeholder="No frame for this step")
        before, after = self.frames.image(step.frame_before), self.frames.image(step.frame_after)
        gone = window_gone(before, after)
        self.after.set_frame(after, bbox=None if gone else step.changed_bbox,
                             subtitle=after_caption(before, after, step.changed_bbox),
                             placeholder="No frame for this step")

    def step_by(self, delta: int) -> None:
        """Show the previous (-1) or next (+1) step of the current run."""
        rows = self.steps_model.rowCount()
        if rows:
            current = self.steps_view.currentIndex().row()
            row = max(0, min(rows - 1, (current if current >= 0 else 0) + delta))
            self.steps_view.setCurrentIndex(self.steps_model.index(row, 0))

    def step_to(self, edge: int) -> None:
        """Show the run's first (0) or last (-1) step."""
        rows = self.steps_model.rowCount()
        if rows:
            self.steps_view.setCurrentIndex(self.steps_model.index(0 if edge == 0 else rows - 1, 0))

    def item_by(self, delta: int) -> None:
        """Go to the previous (-1) or next (+1) run of this annotator's order."""
        (self.go_next if delta > 0 else self.go_back)()

    def _refresh_label(self) -> None:
        run_id = self.current_run()
        label = self.labels.get(run_id) if run_id is not None else None
        if label is None:
            self.current_label.setText("Your label: not labelled yet")
            self.note_edit.setText(self._draft_notes.get(run_id, "") if run_id is not None else "")
        else:
            promoted = f" (promoted to judgment {label.promoted_judgment})" if label.promoted_judgment else ""
            self.current_label.setText(f"Your label: {label.label}{promoted}")
            self.note_edit.setText(label.note)
        self.progress_bar.setRange(0, max(1, len(self.order)))
        self.progress_bar.setValue(len(self.labels))
        self.promote_button.setEnabled(self._promotable())

    def _promotable(self) -> bool:
        run_id = self.current_run()
        label = self.labels.get(run_id) if run_id is not None else None
        return label is not None and label.label in validation.PROMOTABLE and label.promoted_judgment is None

    # -- actions ---------------------------------------------------------------------------
    def apply_label(self, label: str, note: str | None = None) -> None:
        """Save this annotator's label for the current run now (a relabel replaces it)."""
        run_id = self.current_run()
        if run_id is None or self.vset is None or self.annotator is None:
            return
        text = self.note_edit.text() if note is None else note
        seconds = self._take_time(run_id) if self._timed and self._timed[2] == run_id else None
        try:
            saved = self.database.validation.set_label(self.vset, self.annotator, run_id, label, text, seconds)
        except UserError as exc:
            self._say(str(exc))
            return
        complete_before = len(self.labels) == len(self.order)
        self._draft_notes.pop(run_id, None)
        self.labels[run_id] = saved
        self._refresh_label()
        if len(self.labels) == len(self.order) and not complete_before:
            self._say(summary_text(self.labels, len(self.order)))
        else:
            self._say(f"Saved: {label}. Enter for the next run.")
        self.sig_label_saved.emit(run_id, label)

    def _keep_note(self) -> str:
        """Leaving the current item: a changed note of a labelled run is saved, a note of an unlabelled run is
        kept for its label; what to say about it ("" when there was nothing to keep)."""
        run_id = self.current_run()
        if run_id is None:
            return ""
        text, label = self.note_edit.text().strip(), self.labels.get(run_id)
        if label is not None:
            if text != label.note:
                self.apply_label(label.label)
                return "Your note was saved with your label."
            return ""
        if not text:
            self._draft_notes.pop(run_id, None)
            return ""
        self._draft_notes[run_id] = text
        return "Your note on the run you left is kept there; it is saved when you label that run."

    def go_next(self) -> None:
        if self.order and self.position < len(self.order) - 1:
            kept = self._keep_note()
            self.show_item(self.position + 1)
            self._say(kept)
        elif self.order and len(self.labels) == len(self.order):
            self._say(summary_text(self.labels, len(self.order)))
        elif self.order:
            self._say(f"This is the last run of your order; {len(self.order) - len(self.labels)} still have no "
                      "label (Backspace goes back).")

    def go_back(self) -> None:
        if self.order and self.position > 0:
            kept = self._keep_note()
            self.show_item(self.position - 1)
            self._say(kept)

    def promote_current(self) -> None:
        run_id = self.current_run()
        if run_id is None or self.vset is None or self.annotator is None:
            return
        try:
            judgment, changes = self.database.validation.promote(self.vset, self.annotator, run_id)
        except UserError as exc:
            self._say(str(exc))
            return
        self.labels = self.database.validation.labels_of(self.vset, self.annotator)
        self._refresh_label()
        self._say(f"Your label for run {run_id} is now a human judgment (judgment {judgment}).")
        self.sig_promoted.emit(run_id, judgment)
        self.sig_changed.emit(changes)

    def _save_note(self) -> None:
        run_id = self.current_run()
        label = self.labels.get(run_id) if run_id is not None else None
        if label is not None and self.note_edit.text().strip() != label.note:
            self.apply_label(label.label)

    def finish_note(self) -> None:
        run_id = self.current_run()
        if run_id is not None and run_id not in self.labels:
            self._say("Label this run first (1 pass, 2 fail, 3 unsure); the note is saved with the label.")
            return
        self._save_note()
        self.go_next()
        self.setFocus()

    def _say(self, text: str) -> None:
        self.status.setText(text)

    # -- time per item ---------------------------------------------------------------------
    def _take_time(self, run_id: int) -> float:
        """Seconds spent on ``run_id`` since last measured (this visit, and visits before its first label)."""
        now = time.monotonic()
        seconds = now - self._item_since + self._unsaved_seconds.pop(run_id, 0.0)
        self._item_since = now
        return seconds

    def _record_time(self) -> None:
        """Leaving an item: add the time of this visit to its label, or keep it for the label to come."""
        timed, self._timed = self._timed, None
        if timed is None or not self.isEnabled():
            self._item_since = time.monotonic()
            return
        vset, annotator, run_id = timed
        seconds = self._take_time(run_id)
        if vset == self.vset and annotator == self.annotator and run_id in self.labels:
            try:
                self.database.validation.add_time(vset, annotator, run_id, seconds)
            except UserError as exc:
                self._say(str(exc))
        else:
            self._unsaved_seconds[run_id] = seconds
