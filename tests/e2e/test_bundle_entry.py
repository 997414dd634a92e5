"""The self-contained bundle's executable is also the Python of the programs it plays (installer/bundle/bundle_entry.py).

A frozen interpreter has no ``python`` command, reads no PYTHON* variables and imports no ``site``; the engine still
starts targets as ``sys.executable main.py``, engine children as ``sys.executable -m app …`` and checks as
``sys.executable -c …``.  These tests run the entry script on this Python with ``-E -S`` (the same blindness to the
environment and to site-packages), so what the bundle does by hand is what makes them pass.  The built bundle
itself is checked end to end by installer/check_bundle.sh (CI runs it beside the suite).
"""

from __future__ import annotations

import ast
import importlib.util
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from suite import ROOT

ENTRY = ROOT / "installer" / "bundle" / "bundle_entry.py"
SEEDING = ROOT / "app" / "engine" / "play" / "seeding"


def _entry_module():
    spec = importlib.util.spec_from_file_location("bundle_entry", ENTRY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _frozen_like(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The entry script on a Python that, like the frozen one, ignores PYTHON* variables and site-packages."""
    return subprocess.run([sys.executable, "-E", "-S", str(ENTRY), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60, env={**os.environ, **(env or {})})


@pytest.mark.parametrize("argv, expected", [
    (["main.py", "a"], ("script", "main.py", ["a"])),
    (["-u", "-B", "main.py"], ("script", "main.py", [])),
    (["-X", "faulthandler", "-m", "app", "test", "x"], ("module", "app", ["test", "x"])),
    (["-Wignore", "-c", "print(1)", "z"], ("code", "print(1)", ["z"])),
    (["-m", "pytest", "-q"], ("module", "pytest", ["-q"])),
    (["demo"], None),
    (["-h"], None),
    ([], None),
    (["gui", "--db", "main.py"], None),
    (["missing.py"], None),
    (["-c"], None),
])
def test_a_python_command_line_is_told_from_playcoders_own(tmp_path, monkeypatch, argv, expected):
    (tmp_path / "main.py").write_text("")
    monkeypatch.chdir(tmp_path)
    assert _entry_module().interpreter_request(argv) == expected


def test_a_script_runs_as_main_with_its_folder_first_and_the_seeding_sitecustomize(tmp_path):
    game = tmp_path / "game"
    game.mkdir()
    (game / "helper.py").write_text("VALUE = 'from the script folder'\n")
    (game / "main.py").write_text(
        "import random, sys, helper\n"
        "print(__name__, sys.argv, helper.VALUE, repr(random.random()))\n"
    )
    proc = _frozen_like(["main.py", "--level", "2"], cwd=game,
                        env={"PYTHONPATH": str(SEEDING), "PLAYCODER_SEED": "7"})
    assert proc.returncode == 0, proc.stderr
    expected = random.Random(7).random()
    assert proc.stdout.strip() == f"__main__ ['main.py', '--level', '2'] from the script folder {expected!r}"


def test_a_crash_prints_the_programs_traceback_only_and_exits_1(tmp_path):
    (tmp_path / "main.py").write_text("def restart(moves):\n    return 10 // moves\n\nrestart(0)\n")
    proc = _frozen_like(["main.py"], cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1].startswith('  File "main.py", line 4')  # the program's frame comes first, as with python
    assert "bundle_entry" not in proc.stderr and "runpy" not in proc.stderr
    assert lines[-1] == "ZeroDivisionError: integer division or modulo by zero"


def test_a_syntax_error_and_a_failing_code_string_read_as_with_python(tmp_path):
    (tmp_path / "main.py").write_text("def broken(:\n    pass\n")
    proc = _frozen_like(["main.py"], cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith('  File "main.py", line 1') and "SyntaxError" in proc.stderr
    proc = _frozen_like(["-c", "import json\njson.loads('{')"], cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[1].startswith('  File "<string>", line 2')
    assert "bundle_entry" not in proc.stderr and "runpy" not in proc.stderr


def test_pythonunbuffered_lets_the_engine_read_a_line_while_the_program_runs(tmp_path):
    (tmp_path / "main.py").write_text("import time\nprint('started')\ntime.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-E", "-S", str(ENTRY), "main.py"], cwd=tmp_path, text=True,
                            stdout=subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stdout is not None
        reader = ThreadPoolExecutor(1)
        assert reader.submit(proc.stdout.readline).result(timeout=20) == "started\n"
        reader.shutdown()
    finally:
        proc.kill()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


def test_sys_exit_keeps_its_code(tmp_path):
    (tmp_path / "main.py").write_text("import sys\nsys.exit(4)\n")
    assert _frozen_like(["main.py"], cwd=tmp_path).returncode == 4


def test_code_and_modules_run_like_python_c_and_m(tmp_path):
    proc = _frozen_like(["-c", "import sys; print(sys.argv, __name__)", "a", "b"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['-c', 'a', 'b'] __main__"
    (tmp_path / "tool.py").write_text("import sys\nprint(__name__, sys.argv[1:])\n")
    proc = _frozen_like(["-u", "-m", "tool", "x"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "__main__ ['x']"
    missing = _frozen_like(["-m", "no_such_module_here"], cwd=tmp_path)
    assert missing.returncode == 1 and "No module named" in missing.stderr


@pytest.mark.parametrize("prefix", [[], ["-m", "app"]])
def test_anything_else_and_dash_m_app_are_the_playcoder_command_line(tmp_path, prefix):
    proc = subprocess.run([sys.executable, str(ENTRY), *prefix, "runs", "--db", str(tmp_path / "x.db"), "--json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def _literal(path: Path, name: str):
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"{name} is not set in {path}")


def test_the_bundle_ships_what_an_installed_package_ships():
    """setup.py's app/_data folders and the seeding sitecustomize are all in the spec's data, at the same paths."""
    bundled = _literal(ROOT / "installer" / "bundle" / "playcoder.spec", "BUNDLED_DATA")
    for rel in _literal(ROOT / "setup.py", "BUNDLED"):
        assert bundled.get(rel) == f"app/_data/{rel}", rel
    assert bundled.get("app/engine/play/seeding") == "app/engine/play/seeding"


def test_the_build_scripts_parse():
    for script in ("build.sh", "check_bundle.sh", "bundle/install-desktop-entry.sh"):
        proc = subprocess.run(["bash", "-n", str(ROOT / "installer" / script)], capture_output=True, text=True)
        assert proc.returncode == 0, f"{script}: {proc.stderr}"
