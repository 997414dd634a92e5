"""Where PlayCoder keeps its files by default."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

ROOT = Path(__file__).resolve().parents[1]
RESOURCES = ROOT / "resources"


def default_db() -> Path:
    """$PLAYCODER_DB, else playcoder.db in the user data directory."""
    env = os.environ.get("PLAYCODER_DB")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("playcoder", appauthor=False)) / "playcoder.db"
