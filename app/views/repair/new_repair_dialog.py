"""NewRepairDialog (Repair › New repair…): what to repair and how — and the command line it becomes.

A repair runs as ``playcoder repair TARGET[@BUG] …`` in a child process, as a
live run does, so the workbench never runs a target or a patch itself; the
repair view follows the database it writes (new sessions and cycles appear as
they are recorded).  The LLM refiner uses the provider, model and server saved
in Edit › Settings… (its key never goes on the command line).

The dialog keeps its width whatever the bugs' descriptions (a long one is
elided in the list, whole in its tooltip and under the list), and the
choices of the last repair started here come back (QSettings group
:data:`CHOICES_KEY`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton,
    QRadioButton, QSpinBox, QVBoxLayout, QWidget,
)

from app.engine.errors import TargetError
from app.engine.play.targetspec import SPEC_FILE, list_apps, load_bugs, load_spec
from app.engine.testers.registry import DEFAULT, REPAIR_TESTERS
from app.views.model.run_offers import abilities

REFINERS = ("offline", "llm")
TESTERS = REPAIR_TESTERS
DEFAULT_ITERATIONS = 6
"""T, as ``playcoder repair --max-iterations`` defaults it."""
DEFAULT_STEPS = 40
MAX_ITERATIONS = 1000
NO_BUG = "the program as it is"
CHOICES_KEY = "new_repair"
"""QSettings group of the choices of the last repair started from the dialog."""
BUG_TEXT_CHARS = 60
"""A bug's "id — description" is cut to this many characters in the list (whole in its tooltip)."""
BUG_COMBO_CHARS = 40
"""The bug list is as wide as this many characters, whatever the descriptions."""


@dataclass(frozen=True)
class RepairRequest:
    target: str
    """A bundled app name or an absolute folder, optionally ``@BUG_ID``."""
    refiner: str = "offline"
    max_iterations: int = DEFAULT_ITERATIONS
    tester: str = DEFAULT
    max_steps: int = DEFAULT_STEPS
    seed: int = 0
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None

    def arguments(self, db: Path | str) -> list[str]:
        """Arguments after the Python executable: ``-m app repair TARGET … --db DB --events -`` (never a key)."""
        args = ["-m", "app", "repair", self.target, "--refiner", self.refiner,
                "--max-iterations", str(self.max_iterations), "--tester", self.tester,
                "--max-steps", str(self.max_steps), "--seed", str(self.seed), "--db", str(db), "--events", "-"]
        if self.refiner == "llm":
            for flag, value in (("--provider", self.provider), ("--model", self.model), ("--base-url", self.base_url)):
                if value:
                    args += [flag, value]
        return args

    def program(self) -> str:
        return sys.executable


class NewRepairDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, *, llm: dict[str, str] | None = None) -> None:
        """``llm``: provider, model and base_url saved in the settings (for the LLM refiner)."""
        super().__init__(parent)
        self.setWindowTitle("New repair")
        self.setMinimumWidth(520)
        self._llm = dict(llm or {})
        self.bundled_radio = QRadioButton("Bundled app", self)
        self.folder_radio = QRadioButton("Folder", self)
        self.bundled_radio.setChecked(True)
        self.app_combo = QComboBox(self)
        for folder in list_apps():
            self.app_combo.addItem(folder.name, str(folder))
        self.folder_edit = QLineEdit(self)
        self.folder_edit.setPlaceholderText(f"a folder with {SPEC_FILE}")
        self.browse_button = QPushButton("Browse…", self)
        self.bug_combo = QComboBox(self)
        self.bug_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.bug_combo.setMinimumContentsLength(BUG_COMBO_CHARS)
        self.bug_label = QLabel(self)
        self.bug_label.setObjectName("Muted")
        self.bug_label.setWordWrap(True)
        self.refiner_combo = QComboBox(self)
        self.refiner_combo.addItems(REFINERS)
        self.iterations_spin = QSpinBox(self)
        self.iterations_spin.setRange(1, MAX_ITERATIONS)
        self.iterations_spin.setValue(DEFAULT_ITERATIONS)
        self.iterations_spin.setToolTip("T: at most this many diagnose → patch → re-test cycles")
        self.tester_combo = QComboBox(self)
        for name in TESTERS:
            self.tester_combo.addItem(name)
            self.tester_combo.setItemData(self.tester_combo.count() - 1, abilities(name).summary,
                                          Qt.ItemDataRole.ToolTipRole)
        self.steps_spin = QSpinBox(self)
        self.steps_spin.setRange(1, 100_000)
        self.steps_spin.setValue(DEFAULT_STEPS)
        self.error_label = QLabel(self)
        self.error_label.setObjectName("Error")
        self.error_label.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Start repair")
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder_edit, 1)
        folder_row.addWidget(self.browse_button)
        form = QFormLayout()
        form.addRow(self.bundled_radio, self.app_combo)
        form.addRow(self.folder_radio, folder_row)
        form.addRow("Bug variant", self.bug_combo)
        form.addRow("", self.bug_label)
        form.addRow("Refiner", self.refiner_combo)
        form.addRow("Cycles (T)", self.iterations_spin)
        form.addRow("Tester", self.tester_combo)
        form.addRow("Steps per play", self.steps_spin)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)
        self.bundled_radio.toggled.connect(self._on_target_changed)
        self.app_combo.currentIndexChanged.connect(self._on_target_changed)
        self.folder_edit.textChanged.connect(self._on_target_changed)
        self.browse_button.clicked.connect(self._on_browse_clicked)
        self.bug_combo.currentIndexChanged.connect(self._on_bug_changed)
        self.tester_combo.currentIndexChanged.connect(self._on_tester_changed)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self._on_target_changed()
        self._restore_choices()

    def target_folder(self) -> Path | None:
        if self.bundled_radio.isChecked():
            data = self.app_combo.currentData()
            return Path(str(data)) if data else None
        text = self.folder_edit.text().strip()
        return Path(text).expanduser() if text else None

    def request(self) -> RepairRequest | None:
        """The repair asked for; None (with the reason shown) when the target is not usable."""
        folder = self.target_folder()
        if folder is None or not (folder / SPEC_FILE).is_file():
            self._say(f"Choose a bundled app or a folder with {SPEC_FILE}.")
            return None
        problem = self._tester_problem(folder)
        if problem:
            self._say(problem)
            return None
        base = folder.name if self.bundled_radio.isChecked() else str(folder.resolve())
        bug = self.bug_combo.currentData()
        refiner = self.refiner_combo.currentText()
        llm = self._llm if refiner == "llm" else {}
        return RepairRequest(f"{base}@{bug}" if bug else base, refiner, self.iterations_spin.value(),
                             self.tester_combo.currentText(), self.steps_spin.value(),
                             provider=llm.get("provider"), model=llm.get("model"), base_url=llm.get("base_url"))

    def accept(self) -> None:
        if self.request() is not None:
            self._save_choices()
            super().accept()

    # -- remembered choices ------------------------------------------------------------------
    def _restore_choices(self) -> None:
        s = QSettings()
        source = s.value(f"{CHOICES_KEY}/source")
        if source not in ("bundled", "folder"):
            return
        index = self.app_combo.findText(str(s.value(f"{CHOICES_KEY}/app", "")))
        if index >= 0:
            self.app_combo.setCurrentIndex(index)
        self.folder_edit.setText(str(s.value(f"{CHOICES_KEY}/folder", "")))
        (self.bundled_radio if source == "bundled" else self.folder_radio).setChecked(True)
        self._on_target_changed()
        for combo, key in ((self.bug_combo, "bug"), (self.refiner_combo, "refiner"), (self.tester_combo, "tester")):
            wanted = str(s.value(f"{CHOICES_KEY}/{key}", ""))
            index = combo.findData(wanted) if combo is self.bug_combo else combo.findText(wanted)
            if index >= 0:
                combo.setCurrentIndex(index)
        for spin, key in ((self.iterations_spin, "max_iterations"), (self.steps_spin, "max_steps")):
            value = s.value(f"{CHOICES_KEY}/{key}")
            if value is not None:
                spin.setValue(int(value))

    def _save_choices(self) -> None:
        s = QSettings()
        s.setValue(f"{CHOICES_KEY}/source", "bundled" if self.bundled_radio.isChecked() else "folder")
        s.setValue(f"{CHOICES_KEY}/app", self.app_combo.currentText())
        s.setValue(f"{CHOICES_KEY}/folder", self.folder_edit.text())
        s.setValue(f"{CHOICES_KEY}/bug", self.bug_combo.currentData() or "")
        s.setValue(f"{CHOICES_KEY}/refiner", self.refiner_combo.currentText())
        s.setValue(f"{CHOICES_KEY}/tester", self.tester_combo.currentText())
        s.setValue(f"{CHOICES_KEY}/max_iterations", self.iterations_spin.value())
        s.setValue(f"{CHOICES_KEY}/max_steps", self.steps_spin.value())

    def _say(self, text: str) -> None:
        self.error_label.setText(text)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not text)

    def _on_target_changed(self, *_args: object) -> None:
        bundled = self.bundled_radio.isChecked()
        self.app_combo.setEnabled(bundled)
        self.folder_edit.setEnabled(not bundled)
        self.browse_button.setEnabled(not bundled)
        self.bug_combo.clear()
        self.bug_combo.addItem(NO_BUG, None)
        folder = self.target_folder()
        if folder is None or not (folder / SPEC_FILE).is_file():
            self._say(f"Choose a bundled app or a folder with {SPEC_FILE}.")
            return
        try:
            bugs = load_bugs(folder)
        except Exception as exc:  # noqa: BLE001 - a broken bugs.toml: the program itself can still be repaired
            bugs = []
            self.bug_combo.setToolTip(f"bugs/bugs.toml could not be read: {exc}")
        for bug in bugs:
            text = f"{bug.id} — {bug.description}"
            short = text if len(text) <= BUG_TEXT_CHARS else text[:BUG_TEXT_CHARS - 1].rstrip() + "…"
            self.bug_combo.addItem(short, bug.id)
            self.bug_combo.setItemData(self.bug_combo.count() - 1, text, Qt.ItemDataRole.ToolTipRole)
        self._on_bug_changed()
        self._say(self._tester_problem(folder))

    def _tester_problem(self, folder: Path) -> str:
        """Why the chosen tester cannot play this target ("" when it can): the script tester needs [[script]]."""
        if not abilities(self.tester_combo.currentText()).needs_script:
            return ""
        try:
            has_script = bool(load_spec(folder).script)
        except TargetError as exc:
            return str(exc)
        return "" if has_script else (f"This target has no [[script]] section in its {SPEC_FILE}; choose the "
                                      "offline or llm tester.")

    def _on_tester_changed(self, *_args: object) -> None:
        self.tester_combo.setToolTip(abilities(self.tester_combo.currentText()).summary)
        folder = self.target_folder()
        if folder is not None and (folder / SPEC_FILE).is_file():
            self._say(self._tester_problem(folder))

    def _on_bug_changed(self, *_args: object) -> None:
        """The chosen bug's whole description under the list (and as the list's tooltip)."""
        text = self.bug_combo.currentData(Qt.ItemDataRole.ToolTipRole) or ""
        self.bug_combo.setToolTip(str(text))
        self.bug_label.setText(str(text))
        self.bug_label.setVisible(bool(text))

    def _on_browse_clicked(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Program to repair", self.folder_edit.text())
        if path:
            self.folder_edit.setText(path)
