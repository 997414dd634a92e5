"""`--executor ray` on a real two-node Ray cluster on 127.0.0.1 (tests/ray_cluster.py), against `--executor local`.

The slow tests start the cluster for themselves (a helper process whose nodes are its children, so the leak
check sees whatever its shutdown leaves) and drive the real CLI: the same verdicts as local for the same seed,
every run in the head's database imported from a bundle, a worker killed mid-run losing nothing, and a task that
fails twice coming back as an error row.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import select
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import psutil
import pytest

from app.engine.bench import executors, ray_tasks
from app.engine.errors import UserError
from app.engine.trace.store import TrajectoryStore

from suite import APPS, ROOT, needs_xvfb
from ray_cluster import LOOPBACK_ENV

HERE = Path(__file__).resolve().parents[1]  # tests/, where ray_cluster.py is
needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                               reason='ray is not installed (pip install ".[ray]")')
CLUSTER_START_S = 180
DETECT = ("bench", "detect", "--tester", "offline", "--apps", "calculator", "--max-steps", "16", "--seed", "0",
          "--jobs", "2")
STABLE = {"calculator": "pass", "calculator@wrong-subtraction": "pass", "calculator@equals-hangs": "fail"}
"""Verdicts that every run shows at 16 steps (with seed 0 the hang is met at step 10): the reference passes,
a logic bug is beyond the generic oracles, the hang is a freeze.  The other two variants are compared with local too (see the test)."""


# -- fast: no cluster ---------------------------------------------------------------------------
def test_ray_missing_is_one_sentence(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    with pytest.raises(UserError, match=r'^Ray is not installed; install it with pip install .*\[ray\]'):
        executors.make_executor("ray", jobs=1)


def test_executor_arguments_are_checked():
    with pytest.raises(UserError, match="--ray-address applies only to --executor ray"):
        executors.make_executor("local", jobs=1, ray_address="127.0.0.1:6379")
    with pytest.raises(UserError, match="unknown executor"):
        executors.make_executor("dask", jobs=1)
    assert isinstance(executors.make_executor("local", jobs=2), executors.LocalExecutor)


@needs_ray
def test_an_address_nothing_answers_on_is_one_sentence():
    with socket.socket() as s:  # a free port on the loopback, closed again: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(UserError, match=rf"^nothing answers at --ray-address 127.0.0.1:{port} "):
        executors.make_executor("ray", jobs=1, ray_address=f"127.0.0.1:{port}")


def test_tasks_name_bundled_apps_and_carry_other_folders(tmp_path):
    """A node has the bundled apps (by name); a folder only the head has travels with the task as a zip."""
    cand = tmp_path / "cand"
    (cand / "__pycache__").mkdir(parents=True)
    (cand / "main.py").write_text("print('hi')\n")
    (cand / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"x")
    task = ray_tasks.portable(ray_tasks.PlayTask(str(cand), "offline", 5, 3, str(APPS / "calculator")))
    assert task.reference == "calculator" and task.target == "{scratch}/target/cand"
    (sub, data), = task.folders
    assert sub == "target/cand"
    assert zipfile.ZipFile(io.BytesIO(data)).namelist() == ["main.py"]
    same = ray_tasks.portable(ray_tasks.PlayTask("calculator@equals-hangs", "offline", 5, 3))
    assert same.target == "calculator@equals-hangs" and same.folders == ()
    assert ray_tasks.portable(ray_tasks.PlayTask(f"{APPS / 'calculator'}@equals-hangs", "x", 1, 0)).target \
        == "calculator@equals-hangs"


# -- slow: a real cluster --------------------------------------------------------------------------
@pytest.fixture
def ray_cluster(tmp_path):
    """The address of a fresh two-node cluster; shut down (and checked for survivors) after the test."""
    log = open(tmp_path / "cluster.log", "w")
    helper = subprocess.Popen([sys.executable, str(HERE / "ray_cluster.py")], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=log, text=True, cwd=tmp_path,
                              env={**os.environ, **LOOPBACK_ENV})
    try:
        ready, _, _ = select.select([helper.stdout], [], [], CLUSTER_START_S)
        address = helper.stdout.readline().strip() if ready else ""
        if not address:
            pytest.fail(f"the Ray cluster did not start: {(tmp_path / 'cluster.log').read_text()[-2000:]}")
        yield address
    finally:
        nodes = _descendants(helper.pid)
        helper.stdin.close()
        try:
            helper.wait(90)
        except subprocess.TimeoutExpired:
            helper.kill()
            helper.wait(10)
        _reap(nodes)
        log.close()


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def _reap(procs: list[psutil.Process], grace_s: float = 20.0) -> None:
    """Ray's shutdown stops its nodes; a node process still there after ``grace_s`` is killed by its pid."""
    _, alive = psutil.wait_procs(procs, timeout=grace_s)
    for p in alive:
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(alive, timeout=5)


def _cli(*args: str, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, env=env)


def _verdicts(report: Path) -> dict[str, str]:
    return {r["target"]: r["verdict"] for r in json.loads(report.read_text())["runs"]}


def _kill_a_worker_mid_run(proc: subprocess.Popen[str], timeout_s: float = 240) -> str:
    """SIGKILL the Ray worker of the first task seen playing (its `playcoder test` child 2 s in); the target."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        for p in psutil.process_iter(["cmdline", "create_time"]):
            cmd = p.info["cmdline"] or []
            if cmd[1:4] != ["-m", "app", "test"] or "playcoder-task-" not in " ".join(cmd):
                continue
            if time.time() - p.info["create_time"] < 2:
                continue
            try:
                worker = p.parent()
                if worker is None or not worker.cmdline()[0].startswith("ray::"):
                    continue
                worker.kill()
            except psutil.Error:
                continue
            psutil.wait_procs([p], timeout=10)
            assert not p.is_running() or p.status() == psutil.STATUS_ZOMBIE, "the child outlived its Ray worker"
            return cmd[4]
        time.sleep(0.2)
    pytest.fail("no Ray task was seen playing")


@pytest.mark.slow
@pytest.mark.timeout(900)
@needs_ray
@needs_xvfb
def test_ray_detect_gives_local_verdicts_and_loses_no_run(tmp_path, ray_cluster):
    t0 = time.monotonic()
    local = _cli(*DETECT, "--json", str(tmp_path / "local.json"), "--db", str(tmp_path / "local.db"))
    local_s = time.monotonic() - t0
    assert local.returncode == 0, local.stderr[-2000:]

    db, report = tmp_path / "head.db", tmp_path / "ray.json"
    t0 = time.monotonic()
    with open(tmp_path / "ray.out", "w") as out, open(tmp_path / "ray.err", "w") as errs:
        bench = subprocess.Popen([sys.executable, "-m", "app", *DETECT, "--executor", "ray", "--ray-address",
                                  ray_cluster, "--json", str(report), "--db", str(db)], cwd=ROOT, text=True,
                                 stdout=out, stderr=errs, env={**os.environ, **LOOPBACK_ENV})
        try:
            killed = _kill_a_worker_mid_run(bench)
            bench.wait(600)
        finally:
            if bench.poll() is None:
                bench.kill()
                bench.wait()
    ray_s = time.monotonic() - t0
    err = (tmp_path / "ray.err").read_text()
    assert bench.returncode == 0, err[-3000:]
    print(f"\nlocal {local_s:.1f} s, ray {ray_s:.1f} s (worker of {killed} killed mid-run); "
          + next(line for line in err.splitlines() if line.startswith("ray: ")))

    # The same verdicts as local, target by target (all five here; STABLE are the ones every run agrees on).
    mine, theirs = _verdicts(report), _verdicts(tmp_path / "local.json")
    assert {t: mine[t] for t in STABLE} == STABLE
    assert mine == theirs

    data = json.loads(report.read_text())
    played = data["summary"]["executor"]
    assert played["executor"] == "ray" and played["nodes"] == 2 and played["failed"] == 0
    assert played["cluster_cpus"] == 2.0
    # Every run is in the head's database, imported from its bundle; the killed task's run too, once.
    store = TrajectoryStore(db)
    try:
        runs = {r["id"]: r for r in store.runs()}
    finally:
        store.close()
    rows = data["runs"]
    assert len(runs) == len(rows) == 5 and {r["run_id"] for r in rows} == set(runs)
    assert all(not r["error"] for r in rows), [r["error"] for r in rows]
    for r in rows:
        assert runs[r["run_id"]]["status"] == "completed" and runs[r["run_id"]]["step_count"] == r["steps"]
    assert sorted(r["bug"] or "" for r in runs.values()) == sorted(r["bug"] or "" for r in rows)
    assert killed in {r["target"] for r in rows}


@pytest.mark.slow
@pytest.mark.timeout(900)
@needs_ray
def test_a_task_that_fails_twice_is_an_error_row(tmp_path, ray_cluster):
    code = f"""
import json, sys
from pathlib import Path
from app.engine.bench.executors import PlayTask, RayExecutor
seen = []
with RayExecutor({ray_cluster!r}) as ex:
    got = ex.play([PlayTask({str(tmp_path / 'no-such-target')!r}, "offline", 2, 0)], Path({str(tmp_path / 'h.db')!r}),
                  lambda i, run: seen.append(i))
    print(json.dumps({{"run": got[0].__dict__, "seen": seen, "played": ex.describe()}}))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={**os.environ, **LOOPBACK_ENV})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    run = out["run"]
    assert run["verdict"] == "error" and run["run_id"] is None and out["seen"] == [0]
    assert run["error"].startswith("the Ray task failed 2 times: ") and "left no trajectory" in run["error"]
    assert "is not a folder" in run["error"]
    assert out["played"]["failed"] == 1 and out["played"]["tasks"] == 1
