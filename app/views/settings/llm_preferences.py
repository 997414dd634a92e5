"""LLMPreferences: the LLM tester's provider, model and server as the workbench remembers them.

Only these three, which are not secret, live in QSettings (group ``llm``).
API keys never do: they are saved through :func:`app.engine.llm.config.save_key`
(the system keyring) or come from the environment, and :func:`key_status`
says which, without reading the key out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping
from urllib.parse import urlsplit

from PySide6.QtCore import QSettings

from app.engine.llm.config import KEY_ENV, KEYRING_SERVICE, PROVIDERS, Secret, saved_key

SETTINGS_KEYS = {"provider": "llm/provider", "model": "llm/model", "base_url": "llm/base_url"}
DEFAULT_PROVIDER = "openai"
ENVIRONMENT, KEYRING, MISSING, NOT_NEEDED = "environment", "keyring", "missing", "not needed"


@dataclass(frozen=True)
class LLMPreferences:
    provider: str = DEFAULT_PROVIDER
    model: str = ""
    """Empty: the provider's default (or $PLAYCODER_MODEL)."""
    base_url: str = ""
    """Empty: the provider's own address (or $PLAYCODER_BASE_URL)."""

    @classmethod
    def load(cls, settings: QSettings, env: Mapping[str, str] | None = None) -> LLMPreferences:
        """The saved choice; a first start follows $PLAYCODER_PROVIDER like the CLI."""
        env = os.environ if env is None else env
        fallback = (env.get("PLAYCODER_PROVIDER") or "").strip().lower()
        provider = str(settings.value(SETTINGS_KEYS["provider"], "") or fallback or DEFAULT_PROVIDER)
        return cls(provider=provider if provider in PROVIDERS else DEFAULT_PROVIDER,
                   model=str(settings.value(SETTINGS_KEYS["model"], "") or ""),
                   base_url=str(settings.value(SETTINGS_KEYS["base_url"], "") or ""))

    def save(self, settings: QSettings) -> None:
        settings.setValue(SETTINGS_KEYS["provider"], self.provider)
        settings.setValue(SETTINGS_KEYS["model"], self.model)
        settings.setValue(SETTINGS_KEYS["base_url"], self.base_url)
        settings.sync()

    def options(self) -> dict[str, str]:
        """Tester options for :func:`app.engine.llm.config.resolve_settings` (empty fields left out)."""
        return {k: v for k, v in (("provider", self.provider), ("model", self.model.strip()),
                                  ("base_url", self.base_url.strip())) if v}


def url_problem(url: str) -> str | None:
    """One sentence when ``url`` cannot be a server address to remember; None when it is fine or empty."""
    text = url.strip()
    if not text:
        return None
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{text} is not a server address; enter one like http://127.0.0.1:11434/v1."
    if parts.username or parts.password:
        return "Leave the user name and password out of the server address; put the key in the API key field."
    return None


@dataclass(frozen=True)
class KeyStatus:
    where: str
    """environment, keyring, missing or not needed."""
    text: str
    saved: bool
    """A key is saved in the keyring (so "Forget key" has something to remove)."""


class SavedKeys:
    """One dialog's keyring look-ups, one per provider: a locked keyring asks to be unlocked once, not per keystroke."""

    def __init__(self) -> None:
        self._found: dict[str, Secret | None] = {}

    def lookup(self, provider: str) -> Secret | None:
        if provider not in self._found:
            self._found[provider] = saved_key(provider)
        return self._found[provider]

    def forget(self) -> None:
        """Look again next time (after a key was saved or removed)."""
        self._found.clear()


def key_status(provider: str, keys: SavedKeys, env: Mapping[str, str] | None = None) -> KeyStatus:
    """Where the llm tester would take ``provider``'s key from, in the order the engine looks."""
    env = os.environ if env is None else env
    variable = KEY_ENV[provider]
    saved = keys.lookup(provider) is not None
    if env.get(variable):
        also = " (a key saved in the keyring is ignored while it is set)" if saved else ""
        return KeyStatus(ENVIRONMENT, f"from the environment: {variable}{also}", saved)
    if saved:
        return KeyStatus(KEYRING, f"saved in the system keyring (service '{KEYRING_SERVICE}', user '{provider}')",
                         True)
    if provider == "compatible":
        return KeyStatus(NOT_NEEDED, f"none — fine for a local server without authentication; save one or set "
                                     f"{variable} if yours needs it", False)
    return KeyStatus(MISSING, f"missing — enter one above or set {variable}", False)
