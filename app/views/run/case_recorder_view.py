"""CaseRecorderView: record a ``[[script]]`` case from a run a person played (Record case…, Ctrl+Shift+R).

Take over a live run (Ctrl+T), play, then open this window: it lists the steps you played, shows the frame
after the one selected, and you mark what must hold on it — with the mouse (drag a box for a region that
changes, a text or a picture; click a point for a colour) or the keyboard (Alt+R / Alt+C / Alt+T / Alt+P
picks what to mark, type the box ``x0, y0, x1, y1`` or the point ``x, y``, Ctrl+Return adds it).  Ctrl+S
saves the case (into a new file beside the target's playcoder.toml unless you choose another; appending to
the target's own file asks first), Ctrl+R replays it alone on a fresh program and says what each mark found.
New steps of a live run appear as they are recorded (:meth:`reload`).

All the logic is the engine's :class:`~app.engine.rubric.record.CaseDraft`; this view shows it and calls it.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QImage, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QButtonGroup, QCheckBox, QComboBox, QDialog, QFileDialog, QFormLayout, QGridLayout, QHBoxLayout, QLabel,
    QLineEdit, QListWidget, QMessageBox, QPlainTextEdit, QPushButton, QRadioButton, QSplitter, QVBoxLayout,
    QWidget,
)

from app.engine.errors import UserError
from app.engine.play.targetspec import SPEC_FILE
from app.engine.rubric.record import CaseDraft, Replayed, load_run
from app.views.widgets.mark_canvas import MarkCanvas
from app.views.widgets.long_task import TaskControl, run_long_task

TOOLS = (("region_changed", "Region changes", "Alt+R"), ("pixel", "Colour", "Alt+C"), ("text", "Text", "Alt+T"),
         ("similar", "Picture to match", "Alt+P"))
"""What can be marked: the expectation kind, its button and the keys that pick it."""
NUMBERS = re.compile(r"-?\d+")


class CaseRecorderView(QDialog):
    def __init__(self, db: Path, run_id: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("CaseRecorderView")
        self.setWindowTitle(f"Record a rubric case — run {run_id}")
        self.db, self.run_id = Path(db), run_id
        self.draft = CaseDraft(load_run(self.db, run_id))
        self.last_replay: Replayed | None = None
        self.replaying = False

        self.steps = QListWidget(self)
        self.steps.setObjectName("RecordedSteps")
        self.from_start = QCheckBox("Take the run's steps from its start (the tester's too)", self)
        self.canvas = MarkCanvas(parent=self)
        self.tools = QButtonGroup(self)
        tool_row = QHBoxLayout()
        for i, (kind, label, keys) in enumerate(TOOLS):
            button = QRadioButton(f"{label} ({keys})", self)
            button.setProperty("kind", kind)
            self.tools.addButton(button, i)
            tool_row.addWidget(button)
        self.tools.button(0).setChecked(True)
        self.box = QLineEdit(self)
        self.box.setPlaceholderText("box x0, y0, x1, y1 (drag on the frame) or point x, y (click it)")
        self.text = QLineEdit(self)
        self.text.setPlaceholderText("text the box must contain (Text marks)")
        self.add = QPushButton("Add mark (Ctrl+Return)", self)
        self.marks = QListWidget(self)
        self.marks.setObjectName("RecordedMarks")
        self.remove = QPushButton("Remove mark (Delete)", self)
        self.criterion = QComboBox(self)
        self.criterion.setEditable(True)
        self.criterion.addItems(self.draft.criteria())
        self.criterion_text = QLineEdit(self)
        self.criterion_text.setPlaceholderText("what the criterion says (only for a new id)")
        self.name = QLineEdit(self)
        self.dest = QLineEdit(str(self.draft.default_destination()), self)
        self.dest.setCursorPosition(0)
        self.dest.setToolTip("Where the case is saved: a new file beside the target's playcoder.toml unless you "
                             "choose another (the target's own file only after you confirm)")
        self.browse = QPushButton("Browse…", self)
        self.preview = QPlainTextEdit(self)
        self.preview.setReadOnly(True)
        self.preview.setObjectName("CasePreview")
        self.save = QPushButton("Save case (Ctrl+S)", self)
        self.replay = QPushButton("Replay to confirm (Ctrl+R)", self)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.setObjectName("RecorderStatus")
        self._lay_out(tool_row)
        self._connect()
        self.reload()

    # -- layout -----------------------------------------------------------------------------------
    def _lay_out(self, tool_row: QHBoxLayout) -> None:
        left = QWidget(self)
        lv = QVBoxLayout(left)
        lv.addWidget(QLabel("Steps (↑/↓; Delete leaves one out):", self))
        lv.addWidget(self.steps, 1)
        lv.addWidget(self.from_start)
        lv.addWidget(QLabel("Marks:", self))
        lv.addWidget(self.marks, 1)
        lv.addWidget(self.remove)
        middle = QWidget(self)
        mv = QVBoxLayout(middle)
        mv.addWidget(self.canvas, 1)
        mv.addLayout(tool_row)
        grid = QGridLayout()
        grid.addWidget(self.box, 0, 0)
        grid.addWidget(self.text, 0, 1)
        grid.addWidget(self.add, 0, 2)
        mv.addLayout(grid)
        right = QWidget(self)
        form = QFormLayout(right)
        form.addRow("Criteri&on id:", self.criterion)
        form.addRow("Criterion text:", self.criterion_text)
        form.addRow("Case &name:", self.name)
        dest_row = QHBoxLayout()
        dest_row.addWidget(self.dest, 1)
        dest_row.addWidget(self.browse)
        form.addRow("Save to:", dest_row)
        form.addRow(self.preview)
        buttons = QHBoxLayout()
        buttons.addWidget(self.save)
        buttons.addWidget(self.replay)
        form.addRow(buttons)
        form.addRow(self.status)
        splitter = QSplitter(self)
        for w, stretch in ((left, 0), (middle, 1), (right, 0)):
            splitter.addWidget(w)
            splitter.setStretchFactor(splitter.indexOf(w), stretch)
        QVBoxLayout(self).addWidget(splitter)
        self.resize(1280, 640)

    def _connect(self) -> None:
        self.steps.currentRowChanged.connect(self._on_steps_row_changed)
        self.from_start.toggled.connect(self._on_from_start_toggled)
        self.canvas.sig_box_drawn.connect(self._on_canvas_box_drawn)
        self.canvas.sig_point_clicked.connect(self._on_canvas_point_clicked)
        self.add.clicked.connect(self.add_mark)
        self.remove.clicked.connect(self.remove_mark)
        self.browse.clicked.connect(self._on_browse_clicked)
        self.save.clicked.connect(self.save_case)
        self.replay.clicked.connect(self.replay_case)
        self.criterion.currentTextChanged.connect(lambda _: self._refresh())
        self.criterion_text.textChanged.connect(lambda _: self._refresh())
        self.name.textChanged.connect(lambda _: self._refresh())
        for keys, slot in (("Ctrl+Return", self.add_mark), ("Ctrl+Enter", self.add_mark), ("Ctrl+S", self.save_case),
                           ("Ctrl+R", self.replay_case)):
            QShortcut(QKeySequence(keys), self, slot)
        self.marks.installEventFilter(self)  # Delete there removes a mark, in the steps list leaves a step out
        self.steps.installEventFilter(self)
        for i, (_, _, keys) in enumerate(TOOLS):
            QShortcut(QKeySequence(keys), self, self.tools.button(i).click)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) \
                and event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            if watched is self.marks:
                self.remove_mark()
                return True
            if watched is self.steps:
                self.leave_out_step()
                return True
        return super().eventFilter(watched, event)

    # -- content ------------------------------------------------------------------------------------
    def reload(self) -> None:
        """Read the run's steps again (a live run recorded more); the marks stay."""
        try:
            self.draft.run = load_run(self.db, self.run_id)
        except UserError as exc:
            self.status.setText(str(exc))
        row = self.steps.currentRow()
        self.steps.clear()
        for i, step in enumerate(self.draft.steps()):
            self.steps.addItem(f"{i + 1}. {step.label()}")
        if self.steps.count():
            self.steps.setCurrentRow(row if 0 <= row < self.steps.count() else self.steps.count() - 1)
        else:
            self.status.setText("No steps of yours yet: take over the paused run (Ctrl+T) and play; they appear "
                                "here.")
        self._refresh()

    def _refresh(self) -> None:
        self.draft.criterion = self.criterion.currentText().strip()
        self.draft.criterion_text = self.criterion_text.text()
        self.draft.name = self.name.text()
        self.marks.clear()
        for mark in self.draft.marks:
            self.marks.addItem(mark.describe())
        row = self.steps.currentRow()
        self.canvas.set_marks([(m.params.get("region") or [*m.params["at"], m.params["at"][0] + 1,
                                                           m.params["at"][1] + 1], m.kind)
                               for m in self.draft.marks if m.after == row])
        try:
            self.preview.setPlainText(self.draft.block().strip())
        except UserError as exc:
            self.preview.setPlainText(f"# {exc}")

    def _on_steps_row_changed(self, row: int) -> None:
        steps = self.draft.steps()
        if 0 <= row < len(steps):
            self.canvas.set_frame(QImage.fromData(steps[row].after), subtitle=f"after step {row + 1}: "
                                                                             f"{steps[row].label()}")
        self._refresh()

    def _on_from_start_toggled(self, on: bool) -> None:
        self.draft.from_start = on
        self.draft.marks.clear()  # the steps' numbers change
        self.reload()

    # -- marking --------------------------------------------------------------------------------------
    def tool(self) -> str:
        button = self.tools.checkedButton()
        return str(button.property("kind")) if button is not None else TOOLS[0][0]

    def _on_canvas_box_drawn(self, box: list[int]) -> None:
        self.box.setText(", ".join(map(str, box)))
        if self.tool() == "text" and not self.text.text().strip():
            read = self.draft.read_text(self.steps.currentRow(), box)
            self.text.setText(read)
            self.text.selectAll()
            self.text.setFocus()
            self.status.setText((f"OCR reads '{read}': correct it if need be" if read else
                                 "Type the text the box must contain") + ", then Ctrl+Return.")
            return
        self.add_mark()

    def _on_canvas_point_clicked(self, point: list[int]) -> None:
        self.box.setText(", ".join(map(str, point)))
        if self.tool() == "pixel":
            self.add_mark()

    def add_mark(self) -> None:
        numbers = [int(n) for n in NUMBERS.findall(self.box.text())]
        kind = self.tool()
        try:
            if kind == "pixel":
                if len(numbers) < 2:
                    raise UserError("a colour is checked at a point: click the frame, or type x, y.")
                self.draft.mark(kind, self.steps.currentRow(), at=numbers[:2])
            else:
                region = numbers[:4] if len(numbers) >= 4 else None
                self.draft.mark(kind, self.steps.currentRow(), region=region, text=self.text.text())
        except UserError as exc:
            self.status.setText(str(exc))
            return
        self.status.setText(f"marked: {self.draft.marks[-1].describe()}")
        self.text.clear()
        self._refresh()

    def leave_out_step(self) -> None:
        """Leave the selected step out of the case (Delete in the steps list), e.g. the click that took over."""
        row = self.steps.currentRow()
        if row >= 0:
            self.draft.leave_out(row)
            self.status.setText(f"left out step {row + 1}; its marks went with it")
            self.reload()

    def remove_mark(self) -> None:
        row = self.marks.currentRow()
        if 0 <= row < len(self.draft.marks):
            self.draft.remove(row)
            self._refresh()

    # -- saving and replaying ------------------------------------------------------------------------------
    def _on_browse_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save the case into", self.dest.text(), "TOML (*.toml)")
        if path:
            self.dest.setText(path)

    def save_case(self) -> None:
        self._refresh()
        dest = Path(self.dest.text().strip() or self.draft.default_destination())
        own = dest.expanduser().resolve() == (self.draft.folder / SPEC_FILE).resolve()
        if own and QMessageBox.question(self, "Append to playcoder.toml?",
                                        f"Append the case to the target's own {dest}?") \
                != QMessageBox.StandardButton.Yes:
            self.status.setText("Not saved: the target's playcoder.toml is unchanged.")
            return
        try:
            saved = self.draft.save(dest, append_confirmed=own)
        except UserError as exc:
            self.status.setText(str(exc))
            return
        self.status.setText(saved.sentence)

    def replay_case(self) -> None:
        self._refresh()
        if self.replaying:
            return
        try:
            self.draft.case()
        except UserError as exc:
            self.status.setText(str(exc))
            return
        self.replaying = True
        self.status.setText("Replaying the case on a fresh program…")
        draft, db = self.draft, self.db

        def work(control: TaskControl) -> Replayed:
            return draft.replay(db, check=control.check)

        run_long_task(work, what="replay the case", label="Replaying the recorded case…", parent=self,
                      on_finished=self._on_replay_finished, on_failed=self._on_replay_failed,
                      on_cancelled=lambda: self._on_replay_failed("the replay was cancelled"))

    def _on_replay_finished(self, result: Replayed) -> None:
        self.replaying = False
        self.last_replay = result
        where = f" (run {result.run_id})" if result.run_id is not None else ""
        self.status.setText(f"Replayed{where}: {result.verdict.upper()}\n" + "\n".join(result.lines))

    def _on_replay_failed(self, sentence: str) -> None:
        self.replaying = False
        self.status.setText(f"The replay failed: {sentence}")

    def _on_bridge_step_recorded(self, _event: object) -> None:
        self.reload()


def open_recorder(parent: QWidget, db: Path | None, run_id: int | None, bridge: QObject | None) -> str:
    """Open the recorder on run ``run_id`` (following a live run's ``bridge``); returns a sentence when it cannot."""
    if db is None or run_id is None:
        return ("Open a run, or start one, pause it and take over (Ctrl+T) and play, to record a case from your "
                "steps.")
    try:
        recorder = CaseRecorderView(db, run_id, parent)
    except UserError as exc:
        return str(exc)
    recorder.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    signal = getattr(bridge, "sig_step_recorded", None)
    if signal is not None:
        signal.connect(recorder._on_bridge_step_recorded)  # new steps of the live run appear as they come
    recorder.show()
    return ""
