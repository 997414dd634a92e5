"""The engine as a child process: events on stdout, control on stdin, and kill -9 mid-run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import psutil

from app.engine.play.events import event_from_json
from app.engine.trace.store import TrajectoryStore

from suite import ROOT, TARGETS, needs_xvfb

pytestmark = needs_xvfb


def start_engine(db, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "app", "test", str(TARGETS / "probe_tk"), "--events", "-", "--db", str(db), *extra],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, bufsize=1)


def read_until(proc: subprocess.Popen, name: str, timeout: float = 30.0, events: list | None = None,
               where=lambda event: True):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        event = event_from_json(line)
        if events is not None:
            events.append(event)
        if type(event).__name__ == name and where(event):
            return event
    raise AssertionError(f"no {name} event (stderr: {proc.stderr.read() if proc.poll() is not None else ''})")


def descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def test_pause_step_take_over_and_stop(db_path):
    proc = start_engine(db_path, "--max-steps", "500")
    try:
        read_until(proc, "StepRecorded")
        proc.stdin.write("pause\n")
        proc.stdin.flush()
        read_until(proc, "ControlChanged")
        time.sleep(1.0)  # the step in flight (if any) lands, then nothing moves
        store = TrajectoryStore(db_path, readonly=True)
        run_id = store.runs()[0]["id"]
        paused_at = store.step_count(run_id)
        time.sleep(1.0)
        assert store.step_count(run_id) == paused_at
        proc.stdin.write("step\n")
        proc.stdin.flush()
        events: list = []
        step = read_until(proc, "StepRecorded", where=lambda e: e.idx == paused_at)
        paused_again = read_until(proc, "ControlChanged", events=events)
        assert paused_again.state == "paused"  # a single step ends paused, and says so
        assert step.action["action"] != "click" or step.action != {"action": "click", "x": 33, "y": 44}
        proc.stdin.write('act {"action": "click", "x": 33, "y": 44}\n')
        proc.stdin.flush()
        human = read_until(proc, "StepRecorded", where=lambda e: e.idx == paused_at + 1)
        assert human.action == {"action": "click", "x": 33, "y": 44}
        proc.stdin.write("stop\n")
        proc.stdin.flush()
        finished = read_until(proc, "RunFinished")
        assert finished.status == "stopped"
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    store = TrajectoryStore(db_path, readonly=True)
    steps = store.steps(run_id)
    assert steps[-1]["actor"] == "human" and steps[-1]["outcome"] == "ok"
    assert any(text == "click 1 33 44" for _, _, text in
               [(r["stream"], r["t"], r["text"]) for r in store.logs(run_id)])
    assert store.run(run_id)["status"] == "stopped"


def test_kill_9_leaves_a_readable_db_and_no_orphans(db_path):
    proc = start_engine(db_path, "--max-steps", "500")
    events: list = []
    try:
        read_until(proc, "WindowFound", events=events)
        for _ in range(4):
            read_until(proc, "StepRecorded", events=events)
        children = descendants(proc.pid)
        assert any("Xvfb" in " ".join(c.cmdline()) for c in children)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(c.is_running() and c.status() != psutil.STATUS_ZOMBIE for c in children):
        time.sleep(0.1)
    assert not [c.pid for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    store = TrajectoryStore(db_path, readonly=True)
    run = store.runs()[0]
    assert run["status"] == "interrupted"  # the engine is gone: not 'running' forever
    recorded = [e.idx for e in events if type(e).__name__ == "StepRecorded"]
    steps = store.steps(run["id"])
    assert [s["idx"] for s in steps[: len(recorded)]] == recorded  # every announced step is committed
    for s in steps:
        assert store.frame(s["frame_after"]) is not None


def test_sigterm_shuts_down_cleanly(db_path):
    proc = start_engine(db_path, "--max-steps", "500")
    try:
        read_until(proc, "StepRecorded")
        children = descendants(proc.pid)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) in (0, 130)
    finally:
        if proc.poll() is None:
            proc.kill()
    time.sleep(0.5)
    assert not [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    store = TrajectoryStore(db_path, readonly=True)
    assert store.runs()[0]["status"] == "stopped"


def test_closing_stdin_stops_the_run(db_path):
    proc = start_engine(db_path, "--max-steps", "500")
    try:
        read_until(proc, "StepRecorded")
        proc.stdin.close()
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    lines = [json.loads(line) for line in proc.stdout.read().splitlines() if line.strip()]
    assert lines and lines[-1]["event"] == "RunFinished" and lines[-1]["status"] == "stopped"
