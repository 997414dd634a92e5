"""RunRequest: what the New-run dialog asks for, and the engine command line it becomes.

An LLM run names its provider, model and server on the command line; its API
key never goes there.  The engine child resolves the key like the CLI does
(:func:`app.engine.llm.config.resolve_settings`: environment first, then the
system keyring).  A child inherits the workbench's environment, so a key set
there just works; a key saved in the keyring is read here and handed to the
child in its environment variable (:meth:`RunRequest.engine_environment`),
because the child may not reach the same keyring backend (a test's in-memory
one, a locked collection that would prompt again, a backend chosen in code).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from app.engine.run.settings import RunSettings
from app.engine.errors import UserError
from app.engine.llm.config import KEY_ENV, resolve_settings
from app.views.model.run_offers import abilities

KEYRING_SOURCE = "from the system keyring"
"""``LLMSettings.key_source`` for a key that came from the keyring."""


@dataclass(frozen=True, init=False)
class RunRequest:
    """A target and the :class:`RunSettings` to play it with (checked when made: a bad value is one sentence)."""

    target: str
    """A target folder (absolute) or bundled app name, optionally ``@BUG_ID``."""
    settings: RunSettings

    def __init__(self, target: str, settings: RunSettings | None = None, *, provider: str | None = None,
                 model: str | None = None, base_url: str | None = None, **fields: Any) -> None:
        """``fields`` are :class:`RunSettings` fields (``tester``, ``max_steps``, ``duration_s``, …); the
        provider, model and server are the llm tester's options, dropped for a tester that needs no model."""
        settings = settings or RunSettings(**fields)
        llm = {k: v for k, v in (("provider", provider), ("model", model), ("base_url", base_url)) if v}
        if llm and abilities(settings.tester).needs_model:
            settings = replace(settings, tester_options={**settings.tester_options, **llm})
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "settings", settings)

    @property
    def tester(self) -> str:
        return self.settings.tester

    @property
    def display(self) -> str:
        return self.settings.display

    def llm_options(self) -> dict[str, str]:
        """The llm tester's options as :func:`resolve_settings` takes them (empty for other testers)."""
        if not abilities(self.tester).needs_model:
            return {}
        return {k: str(v) for k, v in self.settings.tester_options.items()
                if k in ("provider", "model", "base_url") and v}

    def engine_arguments(self, db: Path | str) -> list[str]:
        """Arguments after the Python executable: ``-m app test TARGET --events - …`` (never a key)."""
        return ["-m", "app", "test", self.target, "--events", "-", "--db", str(db), *self.settings.command_line()]

    def engine_environment(self, env: Mapping[str, str] | None = None) -> dict[str, str]:
        """Variables to add to the child's environment: the llm key when it comes from the keyring.

        Empty for other testers, for a key already in ``env`` (the child inherits
        it), and when the settings are incomplete (the child then ends with the
        same one sentence the dialog showed).
        """
        if not abilities(self.tester).needs_model:
            return {}
        try:
            settings = resolve_settings(self.llm_options(), env=env)
        except UserError:
            return {}
        if settings.key_source != KEYRING_SOURCE:
            return {}
        return {KEY_ENV[settings.provider]: settings.api_key.reveal()}
