"""Shared fixtures of every layer: a private Xvfb, fresh databases, and a leak check for child processes.

Each layer folder (tests/unit, tests/x, tests/gui, tests/e2e) has its own conftest.py with what only that
layer needs; paths and the Xvfb skip mark are in tests/suite.py.
"""

from __future__ import annotations

import os
import shutil
import sys
import time

import psutil
import pytest
from layers import mark_layers
from suite import APPS, ROOT, TARGETS, needs_xvfb  # noqa: F401  (older tests import them from conftest)


MAX_WORKERS = 8  # each worker starts its own Xvfb and target programs


def pytest_xdist_auto_num_workers(config):
    """How many workers `-n auto` (pyproject's addopts) starts: one per core, at most MAX_WORKERS.

    0 (one process) for --collect-only, on one core, and when every argument names a file or a test:
    a focused run starts at once and stops at a breakpoint.  PYTEST_XDIST_AUTO_NUM_WORKERS sets the number.
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "").isdigit():
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    named = [a for a in config.args if not a.startswith("-")]
    if config.option.collectonly or (named and all(a.endswith(".py") or "::" in a for a in named)):
        return 0
    cores = len(os.sched_getaffinity(0))
    return min(cores, MAX_WORKERS) if cores > 1 else 0


def pytest_collection_modifyitems(config, items):
    """Mark every test with its layer (unit, x, gui, e2e), read from its folder: tests/layers.py."""
    mark_layers(items)


@pytest.fixture(scope="session")
def xvfb():
    from app.engine.play.display import start_xvfb

    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed")
    display = start_xvfb((1280, 800))
    yield display
    display.close()


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "runs.db"


@pytest.fixture(autouse=True)
def no_leaked_children(request):
    """Fail a test that leaves child processes behind (Xvfb of the session fixture excepted)."""
    me = psutil.Process()
    before = {p.pid for p in me.children(recursive=True)}
    yield
    deadline = time.monotonic() + 5
    leaked: list[psutil.Process] = []
    while time.monotonic() < deadline:
        leaked = [p for p in me.children(recursive=True) if p.pid not in before and _alive(p)]
        if not leaked:
            return
        time.sleep(0.1)
    names = [f"{p.pid}:{' '.join(p.cmdline()[:3])}" for p in leaked if _alive(p)]
    for p in leaked:
        try:
            p.kill()
        except psutil.Error:
            pass
    if names:
        pytest.fail(f"test left child processes running: {names}")


@pytest.fixture(autouse=True)
def no_leftover_work():
    """Background work a test left running (a view's read, a film being written) is cancelled and waited for,
    so it cannot hold the workbench's work pool (two threads on a 2-core machine) in the tests that follow."""
    yield
    long_task = sys.modules.get("app.views.widgets.long_task")
    if long_task is None:
        return
    left = long_task.running_tasks()
    for task in left:
        task.cancel()
    stuck = [task.what for task in left if not task.wait(10_000)]
    if stuck:
        pytest.fail(f"test left background work that did not stop when cancelled: {stuck}")


def _alive(p: psutil.Process) -> bool:
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    monkeypatch.setenv("PLAYCODER_DB", str(tmp_path / "default.db"))
    monkeypatch.setenv("PLAYCODER_REFS", str(tmp_path / "refs-store"))  # never the user's reference store
    monkeypatch.setenv("PLAYCODER_CONFIG", str(tmp_path / "config.toml"))  # never the user's run settings
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    yield
