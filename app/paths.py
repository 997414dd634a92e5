"""Where PlayCoder keeps its files by default."""

from __future__ import annotations

import importlib.resources
import os
from pathlib import Path

import platformdirs

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT if (ROOT / "pyproject.toml").is_file() else Path(str(importlib.resources.files("app"))) / "_data"
"""Where resources/ and benchmark/ are: the source tree (a checkout, an editable install), else the copy an
installed package ships (setup.py's build step puts it in app/_data)."""
RESOURCES = DATA / "resources"


def default_db() -> Path:
    """$PLAYCODER_DB, else playcoder.db in the user data directory."""
    env = os.environ.get("PLAYCODER_DB")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("playcoder", appauthor=False)) / "playcoder.db"
