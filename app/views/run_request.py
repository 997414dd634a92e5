"""RunRequest: what the New-run dialog asks for, and the engine command line it becomes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.engine.display import ISOLATED


@dataclass(frozen=True)
class RunRequest:
    target: str
    """A target folder (absolute) or bundled app name, optionally ``@BUG_ID``."""
    tester: str = "offline"
    display: str = ISOLATED
    max_steps: int = 30
    seed: int = 0

    def engine_arguments(self, db: Path | str) -> list[str]:
        """Arguments after the Python executable: ``-m app test TARGET --events - …``."""
        return [
            "-m", "app", "test", self.target,
            "--events", "-",
            "--db", str(db),
            "--max-steps", str(self.max_steps),
            "--seed", str(self.seed),
            "--tester", self.tester,
            "--display", self.display,
        ]
