"""NewRunDialog: choose a target (bundled app or folder), a bug variant, tester and run options.

Testers: ``offline``; ``script`` only for a target whose playcoder.toml has a
``[[script]]`` section; ``llm`` with its provider, model and server (defaults
from Edit › Settings…).  For ``llm`` the dialog runs the engine's own check
(:func:`app.engine.llm.config.resolve_settings`) on every edit and, while it
fails, shows its one sentence (the one ``playcoder llm check`` prints) and
keeps Start disabled.

The choices of the last run started here (target, bug, tester, display,
steps, seed) come back the next time (QSettings group :data:`CHOICES_KEY`).
"""

from __future__ import annotations

from typing import Any

from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QButtonGroup, QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
    QPushButton, QRadioButton, QSpinBox, QVBoxLayout, QWidget,
)

from app.engine.play.display import DISPLAY_MODES, ISOLATED
from app.engine.errors import TargetError
from app.engine.llm.config import resolve_settings
from app.engine.play.targetspec import SPEC_FILE, BugInfo, list_apps, load_bugs, load_spec
from app.engine.run.settings import MAX_DURATION_S
from app.engine.testers import TESTERS
from app.views.settings.llm_options_view import LLMOptionsView
from app.views.settings.llm_preferences import LLMPreferences, SavedKeys
from app.views.live.run_request import RunRequest
from app.views.model.run_offers import abilities
from app.views.settings.settings_dialog import SettingsDialog, readiness

DEFAULT_MAX_STEPS = 30
MAX_STEPS_LIMIT = 100_000
DISPLAY_HELP = {
    "isolated": "a private Xvfb display: nothing on your screen is touched, the run is shown live here",
    "desktop": "the target opens on your desktop and is driven with your real mouse and keyboard",
}
CHOICES_KEY = "new_run"
"""QSettings group of the choices of the last run started from the dialog."""


class NewRunDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, *, initial_folder: Path | None = None,
                 settings: QSettings | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New run")
        self.setMinimumWidth(560)
        self._bugs: list[BugInfo] = []
        self._settings = settings if settings is not None else QSettings()
        self._target_error = ""
        self._has_script = False
        self._keys = SavedKeys()

        self.bundled_radio = QRadioButton("Bundled app", self)
        self.folder_radio = QRadioButton("Target folder", self)
        group = QButtonGroup(self)
        group.addButton(self.bundled_radio)
        group.addButton(self.folder_radio)
        self.app_combo = QComboBox(self)
        for folder in list_apps():
            self.app_combo.addItem(folder.name, str(folder))
        self.folder_edit = QLineEdit(self)
        self.folder_edit.setPlaceholderText(f"a folder that contains {SPEC_FILE}")
        self.browse_button = QPushButton("Browse…", self)
        self.bug_combo = QComboBox(self)
        self.bug_label = QLabel(self)
        self.bug_label.setWordWrap(True)
        self.bug_label.setObjectName("Muted")
        self.tester_combo = QComboBox(self)
        for name in TESTERS:
            self.tester_combo.addItem(name, name)
            self.tester_combo.setItemData(self.tester_combo.count() - 1, abilities(name).summary,
                                          Qt.ItemDataRole.ToolTipRole)
        self.llm_options = LLMOptionsView(self)
        self.llm_options.set_preferences(LLMPreferences.load(self._settings))
        self.llm_check = QLabel(self)
        self.llm_check.setWordWrap(True)
        self.llm_check.setObjectName("Ready")
        self.settings_button = QPushButton("Settings…", self)
        self.settings_button.setToolTip("Save an API key or change the default provider (Ctrl+,)")
        self.display_combo = QComboBox(self)
        for mode in DISPLAY_MODES:
            self.display_combo.addItem(mode, mode)
            self.display_combo.setItemData(self.display_combo.count() - 1, DISPLAY_HELP.get(mode, ""),
                                           Qt.ItemDataRole.ToolTipRole)
        self.display_combo.setCurrentIndex(max(0, self.display_combo.findData(ISOLATED)))
        self.steps_spin = QSpinBox(self)
        self.steps_spin.setRange(1, MAX_STEPS_LIMIT)
        self.steps_spin.setValue(DEFAULT_MAX_STEPS)
        self.duration_spin = QSpinBox(self)
        self.duration_spin.setRange(0, MAX_DURATION_S)
        self.duration_spin.setSuffix(" s")
        self.duration_spin.setSpecialValueText("no time bound")
        self.duration_spin.setToolTip("Play until this much time has passed (a soak), or Max steps, whichever comes first; 0: steps only")
        self.seed_spin = QSpinBox(self)
        self.seed_spin.setRange(0, 2**31 - 1)
        self.error_label = QLabel(self)
        self.error_label.setObjectName("Error")
        self.error_label.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Start run")

        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder_edit, 1)
        folder_row.addWidget(self.browse_button)
        form = QFormLayout()
        form.addRow(self.bundled_radio, self.app_combo)
        form.addRow(self.folder_radio, folder_row)
        form.addRow("Bug variant", self.bug_combo)
        form.addRow("", self.bug_label)
        form.addRow("Tester", self.tester_combo)
        self.llm_box = QWidget(self)
        llm_column = QVBoxLayout(self.llm_box)
        llm_column.setContentsMargins(0, 0, 0, 0)
        llm_column.addWidget(self.llm_options)
        check_row = QHBoxLayout()
        check_row.addWidget(self.llm_check, 1)
        check_row.addWidget(self.settings_button)
        llm_column.addLayout(check_row)
        form.addRow("", self.llm_box)
        form.addRow("Display", self.display_combo)
        form.addRow("Max steps", self.steps_spin)
        form.addRow("Duration", self.duration_spin)
        form.addRow("Seed", self.seed_spin)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)

        self.bundled_radio.toggled.connect(self._on_source_toggled)
        self.app_combo.currentIndexChanged.connect(self._on_target_changed)
        self.folder_edit.textChanged.connect(self._on_target_changed)
        self.browse_button.clicked.connect(self._on_browse_clicked)
        self.bug_combo.currentIndexChanged.connect(self._on_bug_changed)
        self.display_combo.currentIndexChanged.connect(self._on_display_changed)
        self.tester_combo.currentIndexChanged.connect(self._on_tester_changed)
        self.llm_options.sig_changed.connect(self._on_llm_options_changed)
        self.settings_button.clicked.connect(self._on_settings_clicked)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        if initial_folder is not None:
            self.folder_edit.setText(str(initial_folder))
            self.folder_radio.setChecked(True)
        elif self._restore_target():
            pass
        elif self.app_combo.count():
            self.bundled_radio.setChecked(True)
        else:
            self.folder_radio.setChecked(True)
        self._on_source_toggled(self.bundled_radio.isChecked())
        if initial_folder is None:
            self._restore_options()
        self._on_display_changed(self.display_combo.currentIndex())
        self._on_tester_changed(self.tester_combo.currentIndex())

    # -- remembered choices ------------------------------------------------------------------
    def _restore_target(self) -> bool:
        """Choose the target of the last run started here; False when nothing was saved."""
        s = self._settings
        source = s.value(f"{CHOICES_KEY}/source")
        if source not in ("bundled", "folder"):
            return False
        index = self.app_combo.findText(str(s.value(f"{CHOICES_KEY}/app", "")))
        if index >= 0:
            self.app_combo.setCurrentIndex(index)
        self.folder_edit.setText(str(s.value(f"{CHOICES_KEY}/folder", "")))
        (self.bundled_radio if source == "bundled" and self.app_combo.count() else self.folder_radio).setChecked(True)
        return True

    def _restore_options(self) -> None:
        """The bug, tester, display, steps and seed of the last run started here (once the bugs are listed)."""
        s = self._settings
        if s.value(f"{CHOICES_KEY}/source") is None:
            return
        for combo, key in ((self.bug_combo, "bug"), (self.tester_combo, "tester"), (self.display_combo, "display")):
            index = combo.findData(str(s.value(f"{CHOICES_KEY}/{key}", "")))
            if index >= 0:
                combo.setCurrentIndex(index)
        for spin, key in ((self.steps_spin, "max_steps"), (self.seed_spin, "seed")):
            value = s.value(f"{CHOICES_KEY}/{key}")
            if value is not None:
                spin.setValue(int(value))

    def _save_choices(self) -> None:
        s = self._settings
        s.setValue(f"{CHOICES_KEY}/source", "bundled" if self.bundled_radio.isChecked() else "folder")
        s.setValue(f"{CHOICES_KEY}/app", self.app_combo.currentText())
        s.setValue(f"{CHOICES_KEY}/folder", self.folder_edit.text())
        s.setValue(f"{CHOICES_KEY}/bug", self.bug_combo.currentData() or "")
        s.setValue(f"{CHOICES_KEY}/tester", self.tester())
        s.setValue(f"{CHOICES_KEY}/display", str(self.display_combo.currentData()))
        s.setValue(f"{CHOICES_KEY}/max_steps", self.steps_spin.value())
        s.setValue(f"{CHOICES_KEY}/seed", self.seed_spin.value())

    def accept(self) -> None:
        if self.request() is not None:
            self._save_choices()
        super().accept()

    # -- result ---------------------------------------------------------------------------
    def target_folder(self) -> Path | None:
        if self.bundled_radio.isChecked():
            data = self.app_combo.currentData()
            return Path(data) if data else None
        text = self.folder_edit.text().strip()
        return Path(text).expanduser() if text else None

    def tester(self) -> str:
        return str(self.tester_combo.currentData())

    def set_tester(self, name: str) -> None:
        self.tester_combo.setCurrentIndex(self.tester_combo.findData(name))

    def request(self) -> RunRequest | None:
        """The run to start, or None while the choice is not valid (the dialog says why)."""
        folder = self.target_folder()
        if folder is None or not (folder / SPEC_FILE).is_file() or self._problem():
            return None
        target = str(folder.resolve())
        bug = self.bug_combo.currentData()
        if bug:
            target += f"@{bug}"
        llm: dict[str, Any] = {}
        if abilities(self.tester()).needs_model:  # provider and model as resolved (a default model is named), no key
            prefs = self.llm_options.preferences()
            settings = resolve_settings(prefs.options(), keyring_lookup=self._keys.lookup)
            llm = {"provider": settings.provider, "model": settings.model, "base_url": prefs.base_url or None}
        return RunRequest(target=target, tester=self.tester(), display=str(self.display_combo.currentData()),
                          max_steps=self.steps_spin.value(), seed=self.seed_spin.value(),
                          duration_s=float(self.duration_spin.value()) or None, **llm)

    def _problem(self) -> str:
        """The one sentence that keeps Start disabled ("" when the run can start)."""
        if self._target_error:
            return self._target_error
        if abilities(self.tester()).needs_script and not self._has_script:
            return "This target has no [[script]] section in its playcoder.toml; choose the offline or llm tester."
        if abilities(self.tester()).needs_model:
            ready, sentence = readiness(self.llm_options.preferences(), self._keys)
            if not ready:
                return sentence
        return ""

    def _refresh_state(self) -> None:
        llm = abilities(self.tester()).needs_model
        self.llm_box.setVisible(llm)
        if llm:
            ready, sentence = readiness(self.llm_options.preferences(), self._keys)
            self.llm_check.setText(sentence if ready else "")
        error = self._problem()
        self.error_label.setText(error)
        self.error_label.setVisible(bool(error))
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not error)
        self._fit_height()

    def _fit_height(self) -> None:
        """Grow or shrink to the content (llm fields, error line) at the current width."""
        layout = self.layout()
        if layout is None:
            return
        layout.activate()
        width = max(self.width(), self.minimumWidth())
        height = layout.totalHeightForWidth(width) if layout.hasHeightForWidth() else layout.sizeHint().height()
        self.resize(width, max(height, layout.minimumSize().height(), layout.sizeHint().height()))

    def _update_script_item(self, folder: Path | None) -> None:
        """Offer the script tester only for targets with a [[script]] section."""
        self._has_script = False
        if folder is not None and not self._target_error:
            try:
                self._has_script = bool(load_spec(folder).script)
            except TargetError as exc:
                self._target_error = str(exc)
        model = self.tester_combo.model()
        if not isinstance(model, QStandardItemModel):
            return
        for row in range(self.tester_combo.count()):
            can = abilities(str(self.tester_combo.itemData(row)))
            if can.needs_script:
                item = model.item(row)
                item.setEnabled(self._has_script)
                item.setToolTip(can.summary if self._has_script
                                else "this target has no [[script]] section in its playcoder.toml")

    # -- handlers ------------------------------------------------------------------------------
    def _on_source_toggled(self, bundled: bool) -> None:
        self.app_combo.setEnabled(bundled)
        self.folder_edit.setEnabled(not bundled)
        self.browse_button.setEnabled(not bundled)
        self._on_target_changed()

    def _on_browse_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Choose a target folder", self.folder_edit.text())
        if folder:
            self.folder_edit.setText(folder)

    def _on_target_changed(self, *_args: object) -> None:
        folder = self.target_folder()
        self.bug_combo.blockSignals(True)
        self.bug_combo.clear()
        self.bug_combo.addItem("none (the program as it is)", "")
        self._bugs = []
        error = ""
        if folder is None:
            error = "Choose a bundled app or a target folder."
        elif not (folder / SPEC_FILE).is_file():
            error = f"{folder} has no {SPEC_FILE}; choose a folder that contains one."
        else:
            try:
                self._bugs = load_bugs(folder)
            except TargetError as exc:
                error = str(exc)
        for bug in self._bugs:
            self.bug_combo.addItem(f"{bug.id} — {bug.type}", bug.id)
        self.bug_combo.blockSignals(False)
        self.bug_combo.setEnabled(bool(self._bugs))
        self._on_bug_changed(0)
        self._target_error = error
        self._update_script_item(folder)
        self._refresh_state()

    def _on_bug_changed(self, _index: int) -> None:
        bug_id = self.bug_combo.currentData()
        bug = next((b for b in self._bugs if b.id == bug_id), None)
        if bug is None:
            self.bug_label.setText(f"{len(self._bugs)} bug variants available." if self._bugs else "")
        else:
            extra = f" ({bug.difficulty})" if bug.difficulty else ""
            self.bug_label.setText(f"{bug.type}{extra}: {bug.description}")

    def _on_display_changed(self, _index: int) -> None:
        self.display_combo.setToolTip(DISPLAY_HELP.get(str(self.display_combo.currentData()), ""))

    def _on_tester_changed(self, _index: int) -> None:
        self.tester_combo.setToolTip(abilities(self.tester()).summary)
        self._refresh_state()

    def _on_llm_options_changed(self) -> None:
        self._refresh_state()

    def _on_settings_clicked(self) -> None:
        dialog = SettingsDialog(self._settings, self)
        dialog.options.set_preferences(self.llm_options.preferences())
        if dialog.exec():
            self.llm_options.set_preferences(dialog.options.preferences())
        self._keys.forget()
        self._refresh_state()
