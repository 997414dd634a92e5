"""AnnotationView: blinded, keyboard-first labelling of a validation set.

The view shows only what :func:`app.engine.study.validation.blinded_run` returns —
action captions, before/after frames and the target's log lines — never the
tester's verdict, reason, findings or judgments, nor other annotators' labels.
Keys: 1 pass, 2 fail, 3 unsure, Enter next, Backspace back; in the note field
Enter saves the note and moves on, Escape returns to the keys.  Each label is
written to the database at once, so closing the view loses nothing and the
next session resumes at the first unlabelled item of this annotator's order.

The compact replay here (step list + frames + log) can be swapped for a shared
run replay widget once one exists; it must keep to the blinded data.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QSettings, Qt, Signal
from PySide6.QtGui import QKeyEvent, QPixmap
from PySide6.QtWidgets import (
    QComboBox, QHBoxLayout, QInputDialog, QLabel, QLineEdit, QListView, QPlainTextEdit, QProgressBar,
    QPushButton, QSizePolicy, QSplitter, QVBoxLayout, QWidget,
)

from app.engine.study import validation
from app.engine.errors import UserError
from app.engine.trace.store import TrajectoryStore
from app.views.labelling.annotation_model import StepListModel

SETTINGS_KEY = "validation/annotator"
"""Where the annotator name asked once is remembered."""
MAX_LOG_LINES = 2000
"""The log pane shows at most this many lines of a run (the first ones)."""
LABEL_KEYS = {Qt.Key.Key_1: "pass", Qt.Key.Key_2: "fail", Qt.Key.Key_3: "unsure"}
NEXT_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
BACK_KEYS = (Qt.Key.Key_Backspace,)


def default_settings() -> QSettings:
    return QSettings("PlayCoder", "Workbench")


def ask_annotator_name(parent: QWidget | None) -> str | None:
    """Ask once for the annotator's name; None when the user cancels."""
    text, ok = QInputDialog.getText(parent, "Annotator", "Your name as an annotator (used for your labels):")
    return text.strip() if ok and text.strip() else None


class _FrameLabel(QLabel):
    """A label that keeps its picture scaled to its size."""

    def __init__(self, title: str) -> None:
        super().__init__(title)
        self._title = title
        self._pixmap = QPixmap()
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setMinimumSize(160, 120)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)

    def show_png(self, data: bytes | None) -> None:
        self._pixmap = QPixmap()
        if data is None or not self._pixmap.loadFromData(data, "PNG"):
            self._pixmap = QPixmap()
            self.setPixmap(QPixmap())
            self.setText(f"{self._title}: no frame")
            return
        self.setText("")
        self._rescale()

    def has_picture(self) -> bool:
        return not self._pixmap.isNull()

    def _rescale(self) -> None:
        if not self._pixmap.isNull():
            self.setPixmap(self._pixmap.scaled(self.size(), Qt.AspectRatioMode.KeepAspectRatio,
                                               Qt.TransformationMode.SmoothTransformation))

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._rescale()


class AnnotationView(QWidget):
    """Label the runs of one validation set, blinded, in this annotator's own order."""

    sig_label_saved = Signal(int, str)
    """A label (run id, label) was written to the database."""
    sig_promoted = Signal(int, int)
    """A label of run (run id) was promoted to judgment (judgment id)."""

    def __init__(self, store: TrajectoryStore, annotator: str | None = None, *, set_name: str | None = None,
                 settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self._settings = settings if settings is not None else default_settings()
        self.annotator: str | None = None
        self.vset: validation.ValidationSet | None = None
        self.order: list[validation.BlindItem] = []
        self.labels: dict[int, validation.Label] = {}
        self.position = 0
        self.setWindowTitle("Blinded labelling")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._build()
        self._resolve_annotator(annotator)
        self._fill_sets(set_name)
        self._install_keys()

    # -- construction ---------------------------------------------------------------
    def _build(self) -> None:
        self.set_combo = QComboBox()
        self.set_combo.setToolTip("validation set")
        self.annotator_label = QLabel()
        self.annotator_button = QPushButton("Change annotator…")
        self.progress_bar = QProgressBar()
        self.progress_bar.setFormat("%v / %m labelled")
        top = QHBoxLayout()
        for w in (QLabel("Set:"), self.set_combo, self.annotator_label, self.annotator_button):
            top.addWidget(w)
        top.addWidget(self.progress_bar, 1)

        self.item_label = QLabel()
        self.steps_model = StepListModel(self)
        self.steps_view = QListView()
        self.steps_view.setModel(self.steps_model)
        self.before = _FrameLabel("before")
        self.after = _FrameLabel("after")
        self.log_text = QPlainTextEdit()
        self.log_text.setReadOnly(True)
        self.log_text.setPlaceholderText("no log lines from the target")
        frames = QSplitter(Qt.Orientation.Horizontal)
        for caption, frame in (("Before the action", self.before), ("After the action", self.after)):
            pane = QWidget()
            column = QVBoxLayout(pane)
            column.setContentsMargins(0, 0, 0, 0)
            column.addWidget(QLabel(caption))
            column.addWidget(frame, 1)
            frames.addWidget(pane)
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
        self.note_edit.editingFinished.connect(self._on_note_editing_finished)

    def _install_keys(self) -> None:
        """Label keys work wherever the focus is, except while typing a note."""
        self.installEventFilter(self)
        for child in self.findChildren(QWidget):
            if not isinstance(child, QLineEdit):
                child.installEventFilter(self)
        self.note_edit.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return super().eventFilter(watched, event)
        key = event.key()
        if watched is self.note_edit:
            if key == Qt.Key.Key_Escape:
                self.setFocus()
                return True
            if key in NEXT_KEYS:
                self._on_note_return_pressed()
                return True
            return False
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        if key in LABEL_KEYS:
            self.apply_label(LABEL_KEYS[Qt.Key(key)])
            return True
        if key in NEXT_KEYS:
            self.go_next()
            return True
        if key in BACK_KEYS:
            self.go_back()
            return True
        return False

    # -- annotator and set ------------------------------------------------------------
    def _resolve_annotator(self, given: str | None) -> None:
        name = given
        if name is None:
            stored = self._settings.value(SETTINGS_KEY, "")
            name = str(stored) if stored else None
        if name is None:
            name = ask_annotator_name(self)
            if name is not None:
                self._settings.setValue(SETTINGS_KEY, name)
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
        self._settings.setValue(SETTINGS_KEY, name)
        self._set_annotator(name)
        self.load_set(self.set_combo.currentText())

    def _fill_sets(self, wanted: str | None) -> None:
        names = [s.name for s in validation.list_sets(self.store)]
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

    def load_set(self, name: str) -> None:
        """Open a set at this annotator's first unlabelled item."""
        try:
            self.vset = validation.get_set(self.store, name)
        except UserError as exc:
            self._say(str(exc))
            return
        self.setWindowTitle(f"Blinded labelling — {name}")
        if self.annotator is None:
            self.order, self.labels = [], {}
            self._say("Choose your annotator name first (Change annotator…).")
            self._show_nothing()
            return
        self.order = validation.annotator_order(self.store, self.vset, self.annotator)
        self.labels = validation.labels_of(self.store, self.vset, self.annotator)
        self.show_item(validation.resume_index(self.order, self.labels))
        if self.order and len(self.labels) == len(self.order):
            self._say(f"You have labelled all {len(self.order)} runs of this set; you can still change labels.")

    # -- items ---------------------------------------------------------------------------
    def current_run(self) -> int | None:
        return self.order[self.position].run_id if 0 <= self.position < len(self.order) else None

    def show_item(self, position: int) -> None:
        if not self.order:
            self._show_nothing()
            return
        self.position = max(0, min(position, len(self.order) - 1))
        run_id = self.order[self.position].run_id
        run = validation.blinded_run(self.store, run_id)
        self.item_label.setText(f"Item {self.position + 1} of {len(self.order)} — run {run.run_id} — {run.target}")
        self.steps_model.set_steps(run.steps)
        lines = [f"{t:8.2f}s {stream:<6} {text}" for stream, t, text in run.logs[:MAX_LOG_LINES]]
        if len(run.logs) > MAX_LOG_LINES:
            lines.append(f"… {len(run.logs) - MAX_LOG_LINES} more lines")
        self.log_text.setPlainText("\n".join(lines))
        if run.steps:
            self.steps_view.setCurrentIndex(self.steps_model.index(0, 0))
        else:
            self.before.show_png(None)
            self.after.show_png(None)
        self._refresh_label()
        self._set_enabled(True)

    def _show_nothing(self) -> None:
        self.order = []
        self.steps_model.set_steps([])
        self.item_label.setText("")
        self.log_text.setPlainText("")
        self.before.show_png(None)
        self.after.show_png(None)
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
        step = self.steps_model.step(current.row())
        for frame, sha in ((self.before, step.frame_before if step else None),
                           (self.after, step.frame_after if step else None)):
            stored = self.store.frame(sha) if sha else None
            frame.show_png(stored.data if stored else None)

    def _refresh_label(self) -> None:
        run_id = self.current_run()
        label = self.labels.get(run_id) if run_id is not None else None
        if label is None:
            self.current_label.setText("Your label: not labelled yet")
            self.note_edit.setText("")
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
        try:
            saved = validation.set_label(self.store, self.vset, self.annotator, run_id, label, text)
        except UserError as exc:
            self._say(str(exc))
            return
        self.labels[run_id] = saved
        self._refresh_label()
        self._say(f"Saved: {label}. Enter for the next run.")
        self.sig_label_saved.emit(run_id, label)

    def go_next(self) -> None:
        if self.order and self.position < len(self.order) - 1:
            self.show_item(self.position + 1)
            self._say("")
        elif self.order:
            self._say("This is the last run of your order; Backspace goes back.")

    def go_back(self) -> None:
        if self.order and self.position > 0:
            self.show_item(self.position - 1)
            self._say("")

    def promote_current(self) -> None:
        run_id = self.current_run()
        if run_id is None or self.vset is None or self.annotator is None:
            return
        try:
            judgment = validation.promote(self.store, self.vset, self.annotator, run_id)
        except UserError as exc:
            self._say(str(exc))
            return
        self.labels = validation.labels_of(self.store, self.vset, self.annotator)
        self._refresh_label()
        self._say(f"Your label for run {run_id} is now a human judgment (judgment {judgment}).")
        self.sig_promoted.emit(run_id, judgment)

    def _save_note(self) -> None:
        run_id = self.current_run()
        label = self.labels.get(run_id) if run_id is not None else None
        if label is not None and self.note_edit.text().strip() != label.note:
            self.apply_label(label.label)

    def _on_note_editing_finished(self) -> None:
        self._save_note()

    def _on_note_return_pressed(self) -> None:
        run_id = self.current_run()
        if run_id is not None and run_id not in self.labels:
            self._say("Label this run first (1 pass, 2 fail, 3 unsure); the note is saved with the label.")
            return
        self._save_note()
        self.go_next()
        self.setFocus()

    def _say(self, text: str) -> None:
        self.status.setText(text)
