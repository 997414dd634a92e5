"""LLMOptionsView: provider, model and server fields of the LLM tester (Settings and New run dialogs)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLineEdit, QWidget

from app.engine.llm.config import DEFAULT_MODELS, PROVIDERS
from app.views.settings.llm_preferences import LLMPreferences

PROVIDER_HELP = {
    "openai": "OpenAI's API (key: OPENAI_API_KEY or saved in the keyring)",
    "anthropic": "Anthropic's API (key: ANTHROPIC_API_KEY or saved in the keyring)",
    "compatible": "any server speaking OpenAI's chat protocol, e.g. Ollama or vLLM (needs a server address)",
}
URL_HINTS = {"compatible": "required, e.g. http://127.0.0.1:11434/v1"}


class LLMOptionsView(QWidget):
    sig_changed = Signal()
    """Emitted whenever the provider, model or server address was edited."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.provider_combo = QComboBox(self)
        for provider in PROVIDERS:
            self.provider_combo.addItem(provider, provider)
            self.provider_combo.setItemData(self.provider_combo.count() - 1, PROVIDER_HELP[provider],
                                            Qt.ItemDataRole.ToolTipRole)
        self.model_edit = QLineEdit(self)
        self.model_edit.setClearButtonEnabled(True)
        self.url_edit = QLineEdit(self)
        self.url_edit.setClearButtonEnabled(True)
        self.form = QFormLayout(self)
        """The fields' form; a dialog may add its own rows so that the labels line up."""
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.addRow("Provider", self.provider_combo)
        self.form.addRow("Model", self.model_edit)
        self.form.addRow("Server (base URL)", self.url_edit)
        self.provider_combo.currentIndexChanged.connect(self._on_provider_changed)
        self.model_edit.textChanged.connect(self._on_text_changed)
        self.url_edit.textChanged.connect(self._on_text_changed)
        self._on_provider_changed(0)

    def set_preferences(self, prefs: LLMPreferences) -> None:
        self.blockSignals(True)
        self.provider_combo.setCurrentIndex(max(0, self.provider_combo.findData(prefs.provider)))
        self.model_edit.setText(prefs.model)
        self.url_edit.setText(prefs.base_url)
        self.blockSignals(False)
        self._on_provider_changed(self.provider_combo.currentIndex())

    def preferences(self) -> LLMPreferences:
        return LLMPreferences(provider=self.provider(), model=self.model_edit.text().strip(),
                              base_url=self.url_edit.text().strip())

    def provider(self) -> str:
        return str(self.provider_combo.currentData())

    def _on_provider_changed(self, _index: int) -> None:
        provider = self.provider()
        default = DEFAULT_MODELS.get(provider)
        self.model_edit.setPlaceholderText(f"default: {default}" if default else "required, e.g. llava")
        self.url_edit.setPlaceholderText(URL_HINTS.get(provider, "empty: the provider's own address"))
        self.provider_combo.setToolTip(PROVIDER_HELP[provider])
        self.sig_changed.emit()

    def _on_text_changed(self, _text: str) -> None:
        self.sig_changed.emit()
