"""Saved state in a program's folder: high-score files, saved boards, settings the program rewrites.

A repo's own saved state (a won 2048 board, a high-score table) sends every run to the same
screen, one the explorer may not be able to leave.  The engine always plays a scratch copy, so a
run never changes the user's folder, but the copy starts from whatever the folder holds.  These
helpers say which files look like such state: by their suffix, or because the program's code
names them in a string, and which files a program wrote while it ran (``playcoder inspect``).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from app import pysyntax

STATE_SUFFIXES = (".json", ".pkl", ".pickle", ".sav", ".save", ".dat", ".db", ".sqlite", ".sqlite3", ".shelve",
                  ".score", ".scores", ".hs")
"""Suffixes of files that hold a program's state rather than its code or assets."""
NOT_STATE = frozenset({"playcoder.toml", "pyproject.toml", "requirements.txt", "package.json", "setup.cfg",
                       "tsconfig.json", "package-lock.json", "bugs.toml"})
SKIP_DIRS = frozenset({".git", "__pycache__", "venv", ".venv", "node_modules", "bugs", "refs", "tests", "test",
                       ".pytest_cache", "site-packages"})
MAX_FILES = 2000
"""A folder with more files than this is not walked further (a vendored tree is not saved state)."""
STATE_WORDS = ("score", "save", "state", "best", "record", "progress", "board", "settings", "config")
"""Words in a file name that the code names, marking it as state even without a state suffix (``highscore.txt``)."""


def _files(folder: Path) -> list[Path]:
    out: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in files:
            out.append(Path(root, name))
            if len(out) >= MAX_FILES:
                return out
    return out


def _named_in_code(files: list[Path]) -> set[str]:
    """Base names of files the program's code mentions in string constants."""
    names: set[str] = set()
    for path in files:
        if path.suffix != ".py":
            continue
        try:
            tree = pysyntax.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError, OSError, RecursionError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and 0 < len(node.value) < 200:
                names.add(os.path.basename(node.value))
    return names


WRITE_CALLS = frozenset({"write_text", "write_bytes", "dump", "savetxt", "save", "connect", "to_csv", "to_json"})
"""Calls through which a program writes a file (``json.dump``, ``Path.write_text``, ``sqlite3.connect`` ...)."""
WRITE_MODES = ("w", "a", "x", "+")


def _writes_files(files: list[Path]) -> bool:
    """Whether the program's code can write a file at all: an ``open`` in a writing mode, a shelf or one of
    :data:`WRITE_CALLS`.  A program that never writes keeps no saved state: what its folder holds (a
    settings file it needs in order to start, a level, a word list) is read, never rewritten."""
    for path in files:
        if path.suffix != ".py":
            continue
        try:
            tree = pysyntax.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError, OSError, RecursionError):
            return True  # unreadable code: assume the worst
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _writes(node):
                return True
    return False


def _writes(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name in WRITE_CALLS or (name == "open" and isinstance(func, ast.Attribute)
                               and isinstance(func.value, ast.Name) and func.value.id == "shelve"):
        return True
    if name != "open":
        return False
    modes = [k.value for k in call.keywords if k.arg == "mode"] + call.args[1:2]
    return any(isinstance(m, ast.Constant) and isinstance(m.value, str) and any(c in m.value for c in WRITE_MODES)
               or not isinstance(m, ast.Constant) for m in modes)


def state_files(folder: Path) -> list[str]:
    """Files in ``folder`` (relative paths) that look like saved state, sorted: none when the program's
    code never writes a file."""
    files = _files(folder)
    if not _writes_files(files):
        return []
    named = _named_in_code(files)
    out = []
    for path in files:
        name = path.name
        if name in NOT_STATE or path.suffix in (".py", ".pyc"):
            continue
        lower = name.lower()
        if lower.endswith(STATE_SUFFIXES) or (name in named and any(w in lower for w in STATE_WORDS)):
            out.append(str(path.relative_to(folder)))
    return sorted(out)


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime in ns) of every file, to tell later which ones a program wrote."""
    out: dict[str, tuple[int, int]] = {}
    for path in _files(folder):
        try:
            st = path.stat()
        except OSError:
            continue
        out[str(path.relative_to(folder))] = (st.st_size, st.st_mtime_ns)
    return out


def written(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    """Files new or changed between two snapshots, except compiled Python."""
    return sorted(name for name, stat in after.items()
                  if before.get(name) != stat and not name.endswith((".pyc", ".pyo")) and "__pycache__" not in name)
