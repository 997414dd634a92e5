"""SettingsDialog (Edit › Settings…): your name, and the LLM tester's provider, model, server and API key.

*Your name* is the one identity recorded with verdict overrides and labels
(:mod:`app.views.widgets.identity`); set here once, nothing asks for it again.

Provider, model and server are remembered in QSettings (:class:`LLMPreferences`).
The key is typed into a password field and handed straight to the engine's
:func:`~app.engine.llm.config.save_key` (the system keyring); it is never
written to QSettings, a database or a log, and the field is cleared once it
is saved.  The dialog says where the key of the chosen provider comes from
(environment, keyring or nowhere) and, with the engine's own check
(:func:`~app.engine.llm.config.resolve_settings`, the same as ``playcoder llm
check``), whether the llm tester could start — or the one sentence that says
what is missing.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QDialog, QDialogButtonBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout,
    QWidget,
)

from app.engine.errors import UserError
from app.engine.llm.config import forget_key, public_url, resolve_settings, save_key
from app.views.settings.llm_options_view import LLMOptionsView
from app.views.settings.llm_preferences import ENVIRONMENT, MISSING, LLMPreferences, SavedKeys, key_status, url_problem
from app.views.widgets.identity import identity, set_identity

PRIVACY_NOTE = ("Keys are kept in the system keyring or taken from the environment — never in the workbench's "
                "settings, databases, logs or command lines.")


def readiness(prefs: LLMPreferences, keys: SavedKeys | None = None) -> tuple[bool, str]:
    """(ready, sentence): the engine's check of these settings, as ``playcoder llm check`` reports it."""
    problem = url_problem(prefs.base_url)
    if problem:
        return False, problem
    try:
        settings = resolve_settings(prefs.options(), keyring_lookup=keys.lookup if keys is not None else None)
    except UserError as exc:
        return False, str(exc)
    key = "no key needed" if settings.key_source == "none" else f"key {settings.key_source}"
    return True, f"Ready: {settings.provider} · {settings.model} · {public_url(settings.base_url)} · {key}."


class SettingsDialog(QDialog):
    def __init__(self, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setMinimumWidth(620)
        self._settings = settings
        self.keys = SavedKeys()
        self.name_edit = QLineEdit(identity(settings), self)
        self.name_edit.setPlaceholderText("recorded with your verdict overrides and your labels")
        self.options = LLMOptionsView(self)
        self.options.set_preferences(LLMPreferences.load(settings))
        self.key_edit = QLineEdit(self)
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText("paste a key to save it in the system keyring")
        self.key_status = QLabel(self)
        self.key_status.setWordWrap(True)
        self.forget_button = QPushButton("Forget key", self)
        self.forget_button.setToolTip("Remove this provider's key from the system keyring")
        self.check_label = QLabel(self)
        self.check_label.setWordWrap(True)
        self.error_label = QLabel(self)
        self.error_label.setObjectName("Error")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        note = QLabel(PRIVACY_NOTE, self)
        note.setObjectName("Muted")
        note.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel,
                                        self)

        status_row = QHBoxLayout()
        status_row.addWidget(self.key_status, 1)
        status_row.addWidget(self.forget_button)
        form = self.options.form
        form.addRow("API key", self.key_edit)
        form.addRow("Key", status_row)
        form.addRow("Check", self.check_label)
        you = QGroupBox("You", self)
        you_form = QFormLayout(you)
        you_form.addRow("Your name", self.name_edit)
        group = QGroupBox("LLM tester", self)
        column = QVBoxLayout(group)
        column.addWidget(self.options)
        column.addWidget(note)
        layout = QVBoxLayout(self)
        layout.addWidget(you)
        layout.addWidget(group)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)

        self.options.sig_changed.connect(self._on_options_changed)
        self.key_edit.textChanged.connect(self._on_key_text_changed)
        self.forget_button.clicked.connect(self._on_forget_clicked)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.refresh()

    def refresh(self) -> None:
        """Re-read where the key comes from and re-run the engine's check."""
        provider = self.options.provider()
        status = key_status(provider, self.keys)
        self.key_status.setText(status.text)
        self.key_status.setObjectName("Error" if status.where == MISSING else "Muted")
        self.key_status.style().polish(self.key_status)
        self.forget_button.setEnabled(status.saved)
        typed = bool(self.key_edit.text().strip())
        if typed:
            where = " (the environment's key stays in use while it is set)" if status.where == ENVIRONMENT else ""
            self.check_label.setText(f"Save to keep the typed key in the system keyring{where}.")
            self.check_label.setObjectName("Muted")
            self.check_label.style().polish(self.check_label)
            return
        ready, sentence = readiness(self.options.preferences(), self.keys)
        self.check_label.setText(sentence)
        self.check_label.setObjectName("Ready" if ready else "Error")
        self.check_label.style().polish(self.check_label)

    def accept(self) -> None:
        """Save the key (if one was typed) and the provider settings; stay open with one sentence on failure."""
        prefs = self.options.preferences()
        problem = url_problem(prefs.base_url)
        if problem:
            self._show_error(problem)
            return
        key = self.key_edit.text().strip()
        if key:
            try:
                save_key(prefs.provider, key)
            except UserError as exc:
                self._show_error(str(exc))
                return
            finally:
                self.keys.forget()
            self.key_edit.clear()
        prefs.save(self._settings)
        if self.name_edit.text().strip():
            set_identity(self._settings, self.name_edit.text())
        super().accept()

    def _show_error(self, text: str, *, error: bool = True) -> None:
        self.error_label.setText(text)
        self.error_label.setObjectName("Error" if error else "Muted")
        self.error_label.style().polish(self.error_label)
        self.error_label.setVisible(bool(text))

    def _on_options_changed(self) -> None:
        self._show_error("")
        self.refresh()

    def _on_key_text_changed(self, _text: str) -> None:
        self._show_error("")
        self.refresh()

    def _on_forget_clicked(self) -> None:
        provider = self.options.provider()
        removed = forget_key(provider)
        self.keys.forget()
        self.refresh()
        if removed:
            self._show_error(f"Removed the saved {provider} key from the system keyring.", error=False)
        else:
            self._show_error(f"The system keyring did not remove a {provider} key; it may be locked or hold none.")
