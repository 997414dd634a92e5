# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks for the sample target apps in benchmark/apps/.

* each app's own logic unit tests pass,
* playcoder.toml and bugs/bugs.toml are well formed,
* every bug patch applies cleanly to a copy of the app (and still compiles).

Under Xvfb (tests/x/test_sample_apps_x.py): the reference apps start and stay alive, and the crash variants
really crash when their keys are pressed.
"""

import os
import py_compile
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
APPS_DIR = REPO / "benchmark" / "apps"
APPS = sorted(p.name for p in APPS_DIR.iterdir() if (p / "playcoder.toml").is_file())
LOGIC_TESTS = {app: next(p.name for p in (APPS_DIR / app).glob("test_*_logic.py")) for app in APPS}
LOGIC_MODULES = {
    app: next(p.name for p in (APPS_DIR / app).glob("*_logic.py") if not p.name.startswith("test_")) for app in APPS
}
REQUIRED_BUGS = {
    "tiles2048": {"keys-ignored", "merge-no-double", "white-digits", "crash-on-restart"},
    "flappy": {"pass-through-pipes", "freeze-after-flaps", "crash-on-fifth-flap"},
    "calculator": {"wrong-subtraction", "equals-hangs", "buttons-dead"},
}
BUG_TYPES = {
    "crash", "freeze", "no-response", "logic", "display-content", "display-layout",
    "display-style", "navigation", "unexpected-result", "glitch", "timing",
}
DIFFICULTIES = {"easy", "medium", "hard"}
FINDINGS = {"crash", "exception", "freeze", "no-response", "blank", "glitch", ""}
NAMED_KEYS = {
    "space", "enter", "escape", "up", "down", "left", "right", "backspace", "tab",
    "plus", "minus", "asterisk", "slash", "equal", "period", "delete", "home", "end", "pageup", "pagedown",
    *(f"F{i}" for i in range(1, 13)),
}


def app_env(display=None):
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["SDL_AUDIODRIVER"] = "dummy"
    env["PLAYCODER_SEED"] = "0"
    if display is not None:
        env["DISPLAY"] = display
    return env


def load_toml(path):
    with open(path, "rb") as fh:
        return tomllib.load(fh)


def bug_entries(app):
    return load_toml(APPS_DIR / app / "bugs" / "bugs.toml")["bug"]


def all_bugs():
    return [(app, entry["id"]) for app in APPS for entry in bug_entries(app)]


def copy_app(app, dest):
    target = Path(dest) / app
    shutil.copytree(APPS_DIR / app, target,
                    ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return target


def apply_patch(app_copy, patch_file, dry_run):
    if shutil.which("patch"):
        cmd = ["patch", "-p1", "--batch", "--forward", "--silent", "-i", str(patch_file)]
        if dry_run:
            cmd.insert(1, "--dry-run")
    else:
        cmd = ["git", "apply", "-p1", str(patch_file)]
        if dry_run:
            cmd.insert(2, "--check")
    return subprocess.run(cmd, cwd=app_copy, capture_output=True, text=True)


# --------------------------------------------------------------------------- static checks

@pytest.mark.parametrize("app", APPS)
def test_logic_unit_tests_pass(app):
    app_dir = APPS_DIR / app
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:benchmark",
         "-c", os.devnull, "--rootdir", str(app_dir), LOGIC_TESTS[app]],
        cwd=app_dir, env=app_env(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("app", APPS)
def test_sources_compile(app, tmp_path):
    for name in ("main.py", LOGIC_MODULES[app]):
        py_compile.compile(str(APPS_DIR / app / name), cfile=str(tmp_path / (name + "c")),
                           doraise=True)


@pytest.mark.parametrize("app", APPS)
def test_playcoder_toml(app):
    config = load_toml(APPS_DIR / app / "playcoder.toml")
    assert config["name"] == app
    assert config["kind"] in ("app", "game")
    assert config["command"] == ["python", "main.py"]
    size = config["size"]
    assert len(size) == 2 and all(isinstance(v, int) and v > 0 for v in size)
    assert isinstance(config["goal"], str) and config["goal"]
    keys = config["keys"]
    assert keys, "at least one hinted key"
    for key in keys:  # a key, or a hotkey such as ctrl+s (a modifier, then a key)
        *mods, last = key.split("+") if len(key) > 1 else [key]
        assert all(m in ("ctrl", "alt", "shift") for m in mods), key
        assert len(last) == 1 or last in NAMED_KEYS, key
    assert config["window"]["title"]
    criteria = config["criteria"]
    assert 3 <= len(criteria) <= 5
    ids = [c["id"] for c in criteria]
    assert len(set(ids)) == len(ids)
    assert all(c["text"] for c in criteria)
    assert (APPS_DIR / app / "main.py").is_file()


@pytest.mark.parametrize("app", APPS)
def test_bugs_toml(app):
    bugs_dir = APPS_DIR / app / "bugs"
    entries = bug_entries(app)
    ids = [entry["id"] for entry in entries]
    assert len(set(ids)) == len(ids), "duplicate bug ids"
    assert REQUIRED_BUGS.get(app, set()) <= set(ids)
    for entry in entries:
        assert set(entry) >= {"id", "type", "difficulty", "description", "repro",
                              "expected_finding"}, entry
        assert entry["type"] in BUG_TYPES, entry
        assert entry["difficulty"] in DIFFICULTIES, entry
        assert entry["expected_finding"] in FINDINGS, entry
        assert isinstance(entry["description"], str) and entry["description"]
        assert entry["repro"] and all(isinstance(s, str) and s for s in entry["repro"])
        assert (bugs_dir / (entry["id"] + ".patch")).is_file(), entry["id"]
    patches = {p.stem for p in bugs_dir.glob("*.patch")}
    assert patches == set(ids), "every patch needs a bugs.toml entry and vice versa"


@pytest.mark.parametrize("app, bug", all_bugs())
def test_patch_applies(app, bug, tmp_path):
    app_copy = copy_app(app, tmp_path)
    patch_file = APPS_DIR / app / "bugs" / (bug + ".patch")
    check = apply_patch(app_copy, patch_file, dry_run=True)
    assert check.returncode == 0, check.stdout + check.stderr
    before = {p.name: p.read_text() for p in app_copy.glob("*.py")}
    real = apply_patch(app_copy, patch_file, dry_run=False)
    assert real.returncode == 0, real.stdout + real.stderr
    changed = [p for p in app_copy.glob("*.py") if p.read_text() != before[p.name]]
    assert changed, "the patch must change at least one source file"
    for path in changed:
        py_compile.compile(str(path), cfile=str(tmp_path / (path.name + "c")), doraise=True)
