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
            lines = file_lines(path)
            if lines:
                out[path.relative_to(root).as_posix()] = lines
    return out


MAIN_MAX_BYTES = 4 * 1024 * 1024
"""An installed module run with ``python -m`` larger than this is not counted (it names a file to read)."""


def module_roots(folder: Path | None) -> list[str]:
    """Where a module ``python -m`` runs may lie: the program folder, the engine's own interpreter and its
    site-packages, and the environments the engine builds for programs (never anywhere else on the host)."""
    import site
    import sys

    from app.engine.play.program_env import cache_root

    roots = [sys.prefix, sys.base_prefix, *site.getsitepackages(), str(cache_root())]
    if folder is not None:
        roots.append(str(folder))
    return [os.path.realpath(r) for r in roots]


def main_lines(path: str, name: str, folder: Path | None = None) -> dict[str, frozenset[int]]:
    """The executable lines of the installed module ``python -m`` runs, under its module path ``name``
    (``freegames/paint.py``), as the program said in its hello; empty for anything else than a readable .py
    file of a sane size with a plain relative name, lying under :func:`module_roots` (a program cannot make the
    engine read other files)."""
    parts = name.split("/")
    if not path.endswith(".py") or not name.endswith(".py") or not os.path.isabs(path) \
            or any(p in ("", ".", "..") for p in parts):
        return {}
    real = os.path.realpath(path)
    if not any(real == r or real.startswith(r.rstrip("/") + "/") for r in module_roots(folder)):
        return {}
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > MAIN_MAX_BYTES:
            return {}
    except OSError:
        return {}
    lines = file_lines(Path(path))
    return {name: lines} if lines else {}


def file_lines(path: Path) -> frozenset[int]:
    """The executable lines of one .py file (empty when it does not compile or cannot be read)."""
    try:
        code = pysyntax.compile_tree(pysyntax.parse(path.read_bytes().decode("utf-8"), str(path)), str(path))
    except (SyntaxError, ValueError, OSError, UnicodeDecodeError):
        return frozenset()
    return frozenset(code_lines(code))


def code_lines(code: CodeType) -> Iterable[int]:
    """Every line the code object and the code objects inside it name (the tracer's own count)."""
    stack = [code]
    while stack:
        co = stack.pop()
        for _start, _end, line in co.co_lines():
            if line is not None and line > 0:
                yield line
        stack.extend(c for c in co.co_consts if isinstance(c, CodeType))
