"""Which code a benchmark figure was measured on: the commit, and whether the tree had local changes.

Every table the benchmark commands write (``bench detect --md``,
``benchmark/repair_rate.py --md``) names it, so a figure in
benchmark/README.md can always be traced to the code that produced it.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
GIT_TIMEOUT_S = 20.0
UNKNOWN = "unknown"


def measured_on(root: Path = ROOT) -> dict[str, Any]:
    """``{"commit": sha or 'unknown', "dirty": bool | None, "date": ISO date}`` of the working tree at ``root``;
    dirty when any tracked file changed or any untracked (not ignored) file exists."""
    date = time.strftime("%Y-%m-%d", time.gmtime())
    git = shutil.which("git")
    if git is None:
        return {"commit": UNKNOWN, "dirty": None, "date": date}
    try:
        head = subprocess.run([git, "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                              timeout=GIT_TIMEOUT_S)
        # Untracked files count: a new module the code imports changes what was measured as much as an edit.
        status = subprocess.run([git, "status", "--porcelain", "--untracked-files=normal"], cwd=root,
                                capture_output=True, text=True, timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return {"commit": UNKNOWN, "dirty": None, "date": date}
    if head.returncode != 0:
        return {"commit": UNKNOWN, "dirty": None, "date": date}
    return {"commit": head.stdout.strip(), "dirty": bool(status.stdout.strip()) if status.returncode == 0 else None,
            "date": date}


def describe_commit(info: dict[str, Any] | None) -> str:
    """``commit 1a2b3c4d5e6f (tree clean), 2026-01-01`` for a :func:`measured_on` result: the tree state is
    always said (clean, with uncommitted changes, or unknown), so a results file never leaves it to be guessed."""
    if not info or info.get("commit") in (None, UNKNOWN):
        return "an unknown commit"
    state = info.get("dirty")
    dirty = " (with uncommitted changes)" if state is True else " (tree clean)" if state is False else " (tree state unknown)"
    return f"commit {str(info['commit'])[:12]}{dirty}, {info.get('date', '')}".rstrip(", ")
