"""NewSetDialog (Validation › New validation set…): draw and freeze a blinded validation set.

The draw is :func:`app.engine.study.validation.sample_set`, the code behind
``playcoder validate sample``: the same database, filters, counts and seed give
the same set.  Only completed play runs with steps are drawn (never a repair
session's row); the filters (tester, kind of target, target) narrow them, and
the dialog previews how many runs each group has before anything is drawn.  A draw the engine refuses (too few runs, a name in use) ends in the
engine's one sentence in a message box, and the dialog stays open to fix it.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtWidgets import (
    QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QMessageBox, QSpinBox, QVBoxLayout, QWidget,
)

from app.engine.study import validation
from app.engine.errors import UserError
from app.views.model.changes import NOTHING
from app.views.model.database import Database
from app.engine.testers import TESTERS

PAPER_GROUP_SIZE = 100
"""The paper's validation sets hold 100 successes and 100 failures; the defaults aim there."""
MAX_GROUP = 1_000_000
MAX_SEED_SPIN = 2**31 - 1
ANY_TESTER = "any tester"
ANY_KIND = "any kind"
ANY_TARGET = "any target"


class NewSetDialog(QDialog):
    def __init__(self, database: Database, parent: QWidget | None = None, *,
                 report: Callable[[str], None] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New validation set")
        self.setMinimumWidth(480)
        self.database = database
        self.created: validation.ValidationSet | None = None
        self.changes = NOTHING
        """What drawing the set changed (nothing until it is drawn)."""
        """The set drawn when the dialog was accepted."""
        self._report = report or self._message_box

        self.name_edit = QLineEdit(self)
        self.name_edit.setPlaceholderText("e.g. offline-2026-05")
        choices = database.validation.candidate_choices()
        self.tester_combo = QComboBox(self)
        self.tester_combo.addItem(ANY_TESTER, None)
        for name in dict.fromkeys([*TESTERS, *choices["tester"]]):
            self.tester_combo.addItem(name, name)
        self.kind_combo = QComboBox(self)
        self.kind_combo.addItem(ANY_KIND, None)
        for kind in choices["kind"]:
            self.kind_combo.addItem(kind, kind)
        self.target_combo = QComboBox(self)
        self.target_combo.addItem(ANY_TARGET, None)
        for target in choices["target"]:
            self.target_combo.addItem(target, target)
        self.successes_spin = QSpinBox(self)
        self.failures_spin = QSpinBox(self)
        for spin in (self.successes_spin, self.failures_spin):
            spin.setRange(0, MAX_GROUP)
        self.seed_spin = QSpinBox(self)
        self.seed_spin.setRange(0, MAX_SEED_SPIN)
        self.available_label = QLabel(self)
        self.available_label.setObjectName("Muted")
        self.available_label.setWordWrap(True)
        intro = QLabel("Draws completed play runs with steps at random by the tester's own verdict and freezes "
                       "them; annotators then label them blind (Validation › Annotate…).", self)
        intro.setWordWrap(True)
        intro.setObjectName("Muted")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Draw set")

        form = QFormLayout()
        form.addRow("Name", self.name_edit)
        form.addRow("Runs of", self.tester_combo)
        form.addRow("Kind of target", self.kind_combo)
        form.addRow("Target", self.target_combo)
        form.addRow("Successes (tester said pass)", self.successes_spin)
        form.addRow("Failures (tester said fail)", self.failures_spin)
        form.addRow("Seed", self.seed_spin)
        form.addRow("", self.available_label)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.buttons)

        for combo in (self.tester_combo, self.kind_combo, self.target_combo):
            combo.currentIndexChanged.connect(self._on_tester_changed)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self._on_tester_changed(0, initial=True)

    def tester(self) -> str | None:
        data = self.tester_combo.currentData()
        return str(data) if data else None

    def filters(self) -> dict[str, str | None]:
        """The chosen filters as :func:`~app.engine.study.validation.sample_set` takes them."""
        kind, target = self.kind_combo.currentData(), self.target_combo.currentData()
        return {"tester": self.tester(), "kind": str(kind) if kind else None,
                "target": str(target) if target else None}

    def accept(self) -> None:
        """Draw the set; on the engine's refusal show its sentence and stay open."""
        try:
            self.created, self.changes = self.database.validation.sample(
                self.name_edit.text(), successes=self.successes_spin.value(),
                failures=self.failures_spin.value(), seed=self.seed_spin.value(), **self.filters())
        except UserError as exc:
            self._report(str(exc))
            return
        super().accept()

    def _on_tester_changed(self, _index: int, initial: bool = False) -> None:
        counts = self.database.validation.candidate_counts(**self.filters())
        good, bad = counts[validation.SUCCESS], counts[validation.FAILURE]
        unsure = counts.get(validation.NO_ANSWER, 0)
        self.available = (good, bad)
        self.available_label.setText(f"Available: {good} completed runs the tester passed, {bad} it failed"
                                     + (f" ({unsure} uncertain runs are never sampled)." if unsure else "."))
        for spin, count in ((self.successes_spin, good), (self.failures_spin, bad)):
            spin.setToolTip(f"{count} available with these filters")
        if initial:
            self.successes_spin.setValue(min(PAPER_GROUP_SIZE, good))
            self.failures_spin.setValue(min(PAPER_GROUP_SIZE, bad))

    def _message_box(self, text: str) -> None:
        QMessageBox.warning(self, self.windowTitle(), text)
