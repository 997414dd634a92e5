"""The package works outside the source tree: a wheel installed into a fresh venv plays its bundled demo elsewhere.

The wheel is built from a copy of the tree (so the build leaves nothing in the checkout), installed without an
index into a venv that sees this Python's packages (``--system-site-packages``: the heavy dependencies need no
download), and ``playcoder demo`` runs from an empty folder with no PYTHONPATH: the bundled apps, prompts and
style sheet must come from the installed package (app/_data, setup.py's build step), not from the checkout.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from suite import ROOT, needs_xvfb

_NOT_SHIPPED = shutil.ignore_patterns(".git", ".mypy_cache", ".hypothesis", ".pytest_cache", ".benchmarks", "build",
                                      "dist", "*.egg-info", "__pycache__", "*.db", "*.db-*", "tests", "docs",
                                      "playcoder-demo")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=_NOT_SHIPPED)
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "-w", str(tmp / "dist"),
                           "--disable-pip-version-check", "-q"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = list((tmp / "dist").glob("playcoder_workbench-*.whl"))
    assert len(found) == 1, found
    return found[0]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_wheel_ships_the_bundled_apps_and_resources(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("app/_data/benchmark/apps/tiles2048/playcoder.toml", "app/_data/benchmark/wild/README.md",
                   "app/_data/resources/workbench.qss", "app/_data/resources/prompts/system.md",
                   "app/engine/play/seeding/sitecustomize.py", "app/engine/bench/executors.py"):
        assert needed in names, needed
    bugs = {n for n in names if n.startswith("app/_data/benchmark/apps/tiles2048/bugs/")}
    assert bugs, "the bug variants (patches) ship with their app"
    assert not any("__pycache__" in n or n.endswith(".db") for n in names)


@pytest.mark.slow
@pytest.mark.timeout(900)
@needs_xvfb
def test_playcoder_demo_runs_from_a_fresh_venv_elsewhere(tmp_path, wheel):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300)
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--no-index", "-q",
                          "--disable-pip-version-check", str(wheel)], capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr[-3000:]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PLAYCODER_DB")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import app, app.paths as p, app.engine.play.targetspec as t; "
                            "print(app.__file__); print(p.RESOURCES); print(t.APPS_DIR)"],
                           capture_output=True, text=True, cwd=elsewhere, env=env, timeout=120)
    assert where.returncode == 0, where.stderr
    site = str(venv)
    assert all(line.startswith(site) for line in where.stdout.split()), where.stdout  # not the checkout's

    out = elsewhere / "demo-out"
    demo = subprocess.run([str(venv / "bin" / "playcoder"), "demo", "--out", "demo-out"], capture_output=True,
                          text=True, cwd=elsewhere, env=env, timeout=600)
    assert demo.returncode == 0, demo.stdout[-2000:] + demo.stderr[-2000:]
    assert "is not a folder" not in demo.stdout + demo.stderr
    reports = sorted(out.glob("run-*.html"))
    assert len(reports) == 2, demo.stdout
    conn = sqlite3.connect(out / "playcoder.db")
    try:
        runs = conn.execute("SELECT target, status, verdict FROM runs ORDER BY id").fetchall()
    finally:
        conn.close()
    assert [status for _, status, _ in runs] == ["completed", "completed"], runs
    assert runs[1][2] == "fail", demo.stdout  # tiles2048's crash-on-restart variant crashes
