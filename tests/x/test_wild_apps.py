# SPDX-License-Identifier: GPL-3.0-or-later
"""Fast checks of the ordinary-world sample suite in benchmark/wild/, without playing it.

* each playcoder.toml parses with the engine's own parser and names its window, keys and criteria,
* bugs/bugs.toml lists at least three variants that match the patch files one to one,
* every patch applies to a temporary copy with ``git apply`` and the result still compiles,
* the reference sources compile and the app's own unit tests pass,
* the suite is found by name next to benchmark/apps (and no name is used twice).
"""

from __future__ import annotations

import os
import py_compile
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from app.engine.play.targetspec import APPS_DIR, WILD_DIR, list_apps, load_bugs, load_spec, resolve_target

WILD = sorted(p.name for p in WILD_DIR.iterdir() if (p / "playcoder.toml").is_file())
BUG_TYPES = {"crash", "freeze", "no-response", "blank", "exception", "logic", "display-style"}
FINDINGS = {"crash", "exception", "freeze", "no-response", "blank", ""}
DIFFICULTIES = {"easy", "medium", "hard"}


def app_env() -> dict[str, str]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", SDL_AUDIODRIVER="dummy", PLAYCODER_SEED="0",
               PYTHONHASHSEED="0", PYGAME_HIDE_SUPPORT_PROMPT="1")
    env.pop("DISPLAY", None)  # unit tests are pure logic: they must not need a screen
    return env


def bug_entries(app: str) -> list[dict]:
    with open(WILD_DIR / app / "bugs" / "bugs.toml", "rb") as fh:
        return tomllib.load(fh)["bug"]


def all_bugs() -> list[tuple[str, str]]:
    return [(app, entry["id"]) for app in WILD for entry in bug_entries(app)]


def compile_all(folder: Path, tmp: Path) -> None:
    for source in sorted(folder.glob("*.py")):
        py_compile.compile(str(source), cfile=str(tmp / (source.name + "c")), doraise=True)


def test_the_suite_has_six_programs_and_every_kind_of_bug():
    assert len(WILD) == 6, WILD
    kinds = {entry["type"] for app in WILD for entry in bug_entries(app)}
    assert {"crash", "freeze", "no-response", "blank", "exception", "logic"} <= kinds, kinds


def test_names_are_unique_next_to_benchmark_apps():
    bundled = {p.name for p in APPS_DIR.iterdir() if (p / "playcoder.toml").is_file()}
    assert not bundled & set(WILD), "a bare name must resolve to one folder"
    names = [p.name for p in list_apps()]
    assert len(names) == len(set(names)) and set(WILD) <= set(names)


@pytest.mark.parametrize("app", WILD)
def test_a_bare_name_resolves_to_the_wild_folder(app):
    resolved = resolve_target(app)
    try:
        assert resolved.spec.source == (WILD_DIR / app).resolve()
    finally:
        resolved.cleanup()


@pytest.mark.parametrize("app", WILD)
def test_spec_parses(app):
    spec = load_spec(WILD_DIR / app)  # the engine's parser validates every key and [[script]] case
    assert spec.name == app
    assert spec.command == ("python", "main.py")
    assert spec.kind in ("app", "game") and spec.goal and spec.keys and spec.window_title
    assert 3 <= len(spec.criteria) <= 6
    assert (WILD_DIR / app / "main.py").is_file()
    for case in spec.script:  # written for the ordinary world: no committed reference pictures
        assert all(exp.kind != "similar" for exp in case.expect), (app, case.label)


@pytest.mark.parametrize("app", WILD)
def test_bugs_toml_matches_the_patches(app):
    entries = bug_entries(app)
    ids = [e["id"] for e in entries]
    assert len(ids) >= 3 and len(set(ids)) == len(ids)
    for entry in entries:
        assert entry["type"] in BUG_TYPES, entry
        assert entry["difficulty"] in DIFFICULTIES, entry
        assert entry["expected_finding"] in FINDINGS, entry
        assert entry["description"] and entry["repro"], entry
    assert sorted(p.stem for p in (WILD_DIR / app / "bugs").glob("*.patch")) == sorted(ids)
    assert [b.id for b in load_bugs(WILD_DIR / app)] == ids


@pytest.mark.parametrize("app, bug", all_bugs(), ids=[f"{a}@{b}" for a, b in all_bugs()])
def test_patch_applies_and_compiles(app, bug, tmp_path):
    copy = tmp_path / app
    shutil.copytree(WILD_DIR / app, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache",
                                                                         "highscores.json", "todo.txt"))
    patch = WILD_DIR / app / "bugs" / f"{bug}.patch"
    result = subprocess.run(["git", "apply", "-p1", "--check", str(patch)], cwd=copy, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    subprocess.run(["git", "apply", "-p1", str(patch)], cwd=copy, check=True, capture_output=True)
    before = {p.name: (WILD_DIR / app / p.name).read_text() for p in copy.glob("*.py")}
    assert any(p.read_text() != before[p.name] for p in copy.glob("*.py")), "the patch changed nothing"
    compile_all(copy, tmp_path)


@pytest.mark.parametrize("app", WILD)
def test_reference_compiles(app, tmp_path):
    compile_all(WILD_DIR / app, tmp_path)


@pytest.mark.parametrize("app", [a for a in WILD if list((WILD_DIR / a).glob("test_*.py"))])
def test_own_unit_tests_pass(app):
    folder = WILD_DIR / app
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", os.devnull, "--rootdir", str(folder),
         *sorted(p.name for p in folder.glob("test_*.py"))],
        cwd=folder, env=app_env(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
