"""The program's oracles are read-only to refiners.

A repair is judged by the program's unit tests, its ``playcoder.toml`` (the
criteria and the scripted rubric) and the rubric's reference pictures.  A
patch that changed one of them would change the judge, so
:class:`OracleGuard` names them and

* :meth:`OracleGuard.refused` lists the files of a proposed patch that are
  oracles (the loop then refuses the whole patch and records it as refused);
* :meth:`OracleGuard.changes` compares a copy with the oracles as they were
  when the repair started (the gate rejects a copy whose oracles differ, so
  "fixes N failing tests" only ever counts tests that still exist unchanged).

Oracles are: ``test_*.py`` anywhere, whatever the target's ``unit_tests``
patterns match, ``playcoder.toml``, everything under ``refs/`` and everything
under a folder named ``tests`` or ``test``.

Build files are refused the same way, anywhere in the tree: the program's
requirements (``requirements*.txt``, ``constraints*.txt``, ``pyproject.toml``,
``setup.py``, ``setup.cfg``), ``package.json`` and lock files.  A patch that
edited them would change what the engine builds and runs for the program (a
new package, a build backend), which is no repair of its code.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath
from typing import Iterable

from app.engine.play.targetspec import SPEC_FILE
from app.engine.repair.sandbox import SKIPPED_DIRS, Workspace

TEST_FILE_PATTERN = "test_*.py"
DEFAULT_UNIT_TESTS = (TEST_FILE_PATTERN,)
REFS_DIR = "refs"
TEST_DIRS = ("tests", "test")
BUILD_FILES = ("requirements*.txt", "constraints*.txt", "pyproject.toml", "setup.py", "setup.cfg", "package.json",
               "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "Pipfile",
               "Pipfile.lock", "pdm.lock", "uv.lock", "*.lock")
"""File names (any folder) that say what is installed or built for the program: never a patch's to change."""
REFUSAL = ("refiners may not change the program's oracles (its unit tests, playcoder.toml, reference pictures "
           "or tests folders) or its build files (requirements, pyproject.toml, setup files, package.json, "
           "lock files)")
"""The sentence every refusal ends with."""


@dataclass(frozen=True)
class OracleGuard:
    unit_tests: tuple[str, ...] = DEFAULT_UNIT_TESTS
    fingerprint: dict[str, str] = field(default_factory=dict)
    """relative path -> sha256 of every oracle file when the guard was made"""

    @classmethod
    def of(cls, workspace: Workspace) -> OracleGuard:
        """The guard of ``workspace`` with its oracle files as they are now."""
        guard = cls(_unit_test_patterns(workspace.root))
        return cls(guard.unit_tests, guard.scan(workspace))

    def protects(self, rel: str | Path) -> bool:
        """True when ``rel`` (relative to the program root) is, or would be, an oracle file."""
        path = PurePosixPath(Path(rel).as_posix())
        text = path.as_posix()
        if text in self.fingerprint or text == SPEC_FILE:
            return True
        if path.parts and path.parts[0] == REFS_DIR:
            return True
        if any(part in TEST_DIRS for part in path.parts[:-1]):
            return True
        if fnmatch(path.name, TEST_FILE_PATTERN) or any(fnmatch(path.name, name) for name in BUILD_FILES):
            return True
        return any(fnmatch(text, pattern) or path.match(pattern) for pattern in self.unit_tests)

    def refused(self, paths: Iterable[str]) -> list[str]:
        """The oracle files among ``paths`` (a patch's files), sorted."""
        return sorted(p for p in paths if self.protects(p))

    def scan(self, workspace: Workspace) -> dict[str, str]:
        """The oracle files in ``workspace`` now, with their hashes."""
        found: dict[str, str] = {}
        for path in sorted(workspace.root.rglob("*")):
            rel = path.relative_to(workspace.root)
            if not path.is_file() or set(rel.parts[:-1]) & SKIPPED_DIRS or rel.name.startswith(".write-"):
                continue
            if self.protects(rel.as_posix()):
                found[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
        return found

    def changes(self, workspace: Workspace) -> list[str]:
        """Oracle files that differ in ``workspace`` from when the guard was made: edited, removed or added."""
        now = self.scan(workspace)
        return sorted(rel for rel in set(now) | set(self.fingerprint) if now.get(rel) != self.fingerprint.get(rel))


def refusal_text(paths: list[str]) -> str:
    return f"the patch touches {', '.join(paths)}: {REFUSAL}; it was not applied"


def _unit_test_patterns(root: Path) -> tuple[str, ...]:
    try:
        data = tomllib.loads((root / SPEC_FILE).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError):
        return DEFAULT_UNIT_TESTS
    patterns = data.get("unit_tests", list(DEFAULT_UNIT_TESTS))
    if not isinstance(patterns, list) or not all(isinstance(p, str) and p for p in patterns):
        return DEFAULT_UNIT_TESTS
    return tuple(patterns)
