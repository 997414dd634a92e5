"""The program's own code: its .py files and their executable lines, as the inside tracer counts them.

The denominator of a run's line coverage (:mod:`app.engine.play.inside`):
every .py file of the program folder but tests, virtual environments,
installed packages and the engine's seeding folder, each with every line a
code object of the file names in ``co_lines`` (what the program-side tracer
marks as it runs, so 100% is reachable).
"""

from __future__ import annotations

import os
from pathlib import Path
from types import CodeType
from typing import Iterable

from app import pysyntax

SKIPPED_DIRS = frozenset({"tests", "test", "__pycache__", "site-packages", "dist-packages", "node_modules",
                          "venv", ".venv", "env", ".git", "build", "dist"})
"""Folders of a program folder whose .py files are not the program's own code (the program side skips the same)."""
SEEDING_DIR = Path(__file__).resolve().parent / "seeding"


def own_lines(folder: Path) -> dict[str, frozenset[int]]:
    """The executable lines of each of the program's own .py files, as the program-side tracer counts them
    (every line a code object of the file names in ``co_lines``); files that do not compile are left out."""
    out: dict[str, frozenset[int]] = {}
    root = folder.resolve()
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        if Path(dirpath).resolve() == SEEDING_DIR:
            dirs[:] = []
            continue
        for name in sorted(files):
            if not name.endswith(".py") or name.startswith("test_") or name in ("conftest.py", "sitecustomize.py"):
                continue
            path = Path(dirpath) / name
            try:
                code = pysyntax.compile_tree(pysyntax.parse(path.read_bytes().decode("utf-8"), str(path)), str(path))
            except (SyntaxError, ValueError, OSError, UnicodeDecodeError):
                continue
            lines = frozenset(code_lines(code))
            if lines:
                out[path.relative_to(root).as_posix()] = lines
    return out


def code_lines(code: CodeType) -> Iterable[int]:
    """Every line the code object and the code objects inside it name (the tracer's own count)."""
    stack = [code]
    while stack:
        co = stack.pop()
        for _start, _end, line in co.co_lines():
            if line is not None and line > 0:
                yield line
        stack.extend(c for c in co.co_consts if isinstance(c, CodeType))
