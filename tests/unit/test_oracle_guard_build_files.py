"""A repair patch may not change what is built for the program: its build files are refused like its tests."""

from __future__ import annotations

from pathlib import Path

from app.engine.repair.oracle_guard import OracleGuard, refusal_text
from app.engine.repair.sandbox import Workspace

BUILD = ["requirements.txt", "requirements-dev.txt", "pyproject.toml", "setup.py", "setup.cfg", "package.json",
         "package-lock.json", "yarn.lock", "poetry.lock", "uv.lock", "Pipfile.lock", "vendor/evilpkg/setup.py",
         "vendor/evilpkg/pyproject.toml", "constraints.txt"]


def test_build_files_anywhere_are_refused_like_tests():
    guard = OracleGuard()
    assert guard.refused([*BUILD, "logic.py", "game/main.py", "README.md"]) == sorted(BUILD)
    said = refusal_text(guard.refused(["logic.py", "requirements.txt"]))
    assert said.startswith("the patch touches requirements.txt:") and "build files" in said


def test_an_edited_requirements_file_is_a_changed_oracle(tmp_path: Path):
    (tmp_path / "logic.py").write_text("x = 1\n")
    (tmp_path / "requirements.txt").write_text("six\n")
    (tmp_path / "package.json").write_text("{}\n")
    workspace = Workspace(tmp_path)
    guard = OracleGuard.of(workspace)
    assert set(guard.fingerprint) == {"requirements.txt", "package.json"}
    (tmp_path / "logic.py").write_text("x = 2\n")
    assert guard.changes(workspace) == []
    (tmp_path / "requirements.txt").write_text("six\n./evilpkg\n")
    assert guard.changes(workspace) == ["requirements.txt"]
