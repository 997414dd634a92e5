"""A program run by its own environment: a venv's python anywhere (here under /tmp), and an environment the
engine builds from ``requirements`` — each with a package the engine's own Python does not have, installed
offline from a local wheel, and played in the real sandbox."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from app.engine.errors import TargetError
from app.engine.play import program_env, sandbox
from app.engine.play.target import TargetProcess
from app.engine.play.targetspec import load_spec

from suite import needs_xvfb

PACKAGE = "playcoder_tinypkg"
VALUE = "tiny-42"


def make_wheel(where: Path) -> Path:
    """A one-module wheel written by hand: installing it needs no build backend and no network."""
    dist = f"{PACKAGE}-0.1"
    files = {f"{PACKAGE}/__init__.py": f"VALUE = {VALUE!r}\n".encode(),
             f"{dist}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {PACKAGE}\nVersion: 0.1\n".encode(),
             f"{dist}.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = "".join(
        f"{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},{len(data)}\n"
        for name, data in files.items()) + f"{dist}.dist-info/RECORD,,\n"
    files[f"{dist}.dist-info/RECORD"] = record.encode()
    path = where / f"{PACKAGE}-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


def program(folder: Path, command: str, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "playcoder.toml").write_text(f'name = "own-env"\ncommand = {command}\n{extra}')
    (folder / "main.py").write_text(f"import sys, {PACKAGE}\nprint({PACKAGE}.VALUE, sys.prefix != sys.base_prefix, "
                                    "flush=True)\n")
    return folder


def played_lines(folder: Path, xvfb: object) -> list[str]:
    target = TargetProcess(load_spec(folder), xvfb)  # type: ignore[arg-type]
    try:
        with pytest.raises(TargetError, match="exited with code 0 before showing a window"):
            target.wait_for_window(timeout=20)
    finally:
        target.shutdown()
    assert target.confined == bool(sandbox.bwrap_status()[0])
    return [t for _, _, t in target.lines()]


@needs_xvfb
def test_a_venv_python_under_tmp_runs_the_program_with_its_own_package(xvfb, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    wheel = make_wheel(tmp_path)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-index",
                    "--quiet", str(wheel)], check=True, timeout=120)
    folder = program(tmp_path / "game", f'["{venv}/bin/python", "main.py"]')
    assert str(venv) in sandbox.interpreter_paths([f"{venv}/bin/python"], folder)
    assert played_lines(folder, xvfb) == [f"{VALUE} True"]


@needs_xvfb
def test_requirements_build_an_environment_once(xvfb, tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYCODER_ENV_CACHE", str(tmp_path / "cache"))
    folder = program(tmp_path / "game", '["python", "main.py"]', 'requirements = "requirements.txt"\n')
    make_wheel(folder)
    (folder / "requirements.txt").write_text(f"./{PACKAGE}-0.1-py3-none-any.whl\n")
    assert played_lines(folder, xvfb) == [f"{VALUE} True"]
    built = [p for p in (tmp_path / "cache").iterdir() if p.is_dir()]
    assert len(built) == 1 and (built[0] / program_env.COMPLETE_MARK).is_file()
    program_env._built.clear()
    assert played_lines(folder, xvfb) == [f"{VALUE} True"]  # from the cache: still one environment
    assert [p for p in (tmp_path / "cache").iterdir() if p.is_dir()] == built


def test_a_failed_build_says_so_with_the_installer_tail(tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYCODER_ENV_CACHE", str(tmp_path / "cache"))
    folder = program(tmp_path / "game", '["python", "main.py"]', 'requirements = "requirements.txt"\n')
    (folder / "requirements.txt").write_text("--no-index\nplaycoder-no-such-package\n")
    with pytest.raises(TargetError, match=r"could not build the program's environment from requirements.txt .*"
                                          r"the installer said: .*playcoder-no-such-package"):
        program_env.program_env(folder, "requirements.txt")
    (folder / "requirements.txt").write_text("./no-such-package-0.1-py3-none-any.whl\n")
    with pytest.raises(TargetError, match=r"requirements.txt line 1 names './no-such-package-0.1-py3-none-any.whl', "
                                          r"which is not in the program folder; fix the line\."):
        program_env.program_env(folder, "requirements.txt")
    assert not any(p.is_dir() for p in (tmp_path / "cache").iterdir())  # nothing half-built is kept


def test_pyproject_dependencies_are_the_requirements(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["pygame-menu>=4", "six"]\n')
    assert program_env.requirement_lines(tmp_path, "pyproject.toml") == ["pygame-menu>=4", "six"]


def test_requirements_must_name_a_file_in_the_folder(tmp_path):
    folder = program(tmp_path / "game", '["python", "main.py"]', 'requirements = "reqs.txt"\n')
    with pytest.raises(TargetError, match='"requirements" names reqs.txt, which is not a file'):
        load_spec(folder)


def test_an_interpreter_nobody_can_find_is_named(tmp_path):
    folder = program(tmp_path / "game", '["no-such-python-here", "main.py"]')
    assert "neither a file in" in (sandbox.unseen_interpreter(["no-such-python-here"], folder, []) or "")
    hidden = tmp_path / "elsewhere" / "python"
    hidden.parent.mkdir()
    hidden.write_text("#!/bin/sh\n")
    hidden.chmod(0o755)
    said = sandbox.unseen_interpreter([str(hidden)], folder, [])
    assert said is not None and "folder the sandbox does not show" in said
    assert sandbox.unseen_interpreter([str(hidden)], folder, [str(hidden.parent)]) is None


def test_without_uv_the_environment_is_built_with_venv_and_pip(tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYCODER_ENV_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(program_env, "find_uv", lambda: None)
    folder = tmp_path / "game"
    folder.mkdir()
    make_wheel(folder)
    (folder / "requirements.txt").write_text(f"./{PACKAGE}-0.1-py3-none-any.whl\n")
    env = program_env.program_env(folder, "requirements.txt")
    out = subprocess.run([env.python, "-c", f"import {PACKAGE}; print({PACKAGE}.VALUE)"], capture_output=True,
                         text=True, timeout=60)
    assert out.stdout.strip() == VALUE


@needs_xvfb
def test_a_venv_inside_the_folder_is_used_where_it_is(xvfb, tmp_path):
    folder = program(tmp_path / "game", '[".venv/bin/python", "main.py"]')
    venv = folder / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-index",
                    "--quiet", str(make_wheel(tmp_path))], check=True, timeout=120)
    from app.engine.play.targetspec import resolve_target

    resolved = resolve_target(str(folder))  # the scratch copy leaves .venv out: it is used in the folder itself
    try:
        assert not (resolved.spec.folder / ".venv").exists()
        assert played_lines_of(resolved.spec, xvfb) == [f"{VALUE} True"]
    finally:
        resolved.cleanup()


def played_lines_of(spec: object, xvfb: object) -> list[str]:
    target = TargetProcess(spec, xvfb)  # type: ignore[arg-type]
    try:
        with pytest.raises(TargetError, match="exited with code 0 before showing a window"):
            target.wait_for_window(timeout=20)
    finally:
        target.shutdown()
    return [t for _, _, t in target.lines()]


def test_the_bundle_installs_into_a_packages_folder_with_a_host_python(tmp_path, monkeypatch):
    """A frozen bundle cannot make a venv: the packages go into a folder for its PYTHONPATH, installed for a host
    Python of its own version (here the test's interpreter plays that host)."""
    monkeypatch.setenv("PLAYCODER_ENV_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(program_env, "_frozen", lambda: True)
    monkeypatch.setattr(program_env, "_host_python", lambda: sys.executable)
    folder = tmp_path / "game"
    folder.mkdir()
    make_wheel(folder)
    (folder / "requirements.txt").write_text(f"./{PACKAGE}-0.1-py3-none-any.whl\n")
    env = program_env.program_env(folder, "requirements.txt")
    assert env.python == sys.executable and env.pythonpath is not None
    out = subprocess.run([sys.executable, "-c", f"import {PACKAGE}; print({PACKAGE}.VALUE)"], capture_output=True,
                         text=True, timeout=60, env={"PYTHONPATH": env.pythonpath, "PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == VALUE
