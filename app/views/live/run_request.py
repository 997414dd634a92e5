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

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from app.engine.testers.registry import DEFAULT
from app.engine.play.display import ISOLATED
from app.engine.errors import UserError
from app.engine.llm.config import KEY_ENV, resolve_settings
from app.views.model.run_offers import abilities

KEYRING_SOURCE = "from the system keyring"
"""``LLMSettings.key_source`` for a key that came from the keyring."""


@dataclass(frozen=True)
class RunRequest:
    target: str
    """A target folder (absolute) or bundled app name, optionally ``@BUG_ID``."""
    tester: str = DEFAULT
    display: str = ISOLATED
    max_steps: int = 30
    seed: int = 0
    provider: str | None = None
    """llm tester only: openai, anthropic or compatible."""
    model: str | None = None
    base_url: str | None = None

    def llm_options(self) -> dict[str, str]:
        """The llm tester's options as :func:`resolve_settings` takes them (empty for other testers)."""
        if not abilities(self.tester).needs_model:
            return {}
        return {k: v for k, v in (("provider", self.provider), ("model", self.model), ("base_url", self.base_url))
                if v}

    def engine_arguments(self, db: Path | str) -> list[str]:
        """Arguments after the Python executable: ``-m app test TARGET --events - …`` (never a key)."""
        args = [
            "-m", "app", "test", self.target,
            "--events", "-",
            "--db", str(db),
            "--max-steps", str(self.max_steps),
            "--seed", str(self.seed),
            "--tester", self.tester,
            "--display", self.display,
        ]
        options = self.llm_options()
        for name, flag in (("provider", "--provider"), ("model", "--model"), ("base_url", "--base-url")):
            if name in options:
                args += [flag, options[name]]
        return args

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
