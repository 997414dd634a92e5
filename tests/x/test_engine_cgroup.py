"""The engine process runs in a memory-bounded cgroup of its own, beside (not above) its runs' groups."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from suite import ROOT

ENGINE = r'''
import json, os, sys
from app.engine.play import cgroup
group = cgroup.RunGroup.create(16, 64)  # the first run's group: the engine moves into its own first
mine = [line for line in open("/proc/self/cgroup").read().splitlines() if "memory" in line.split(":")[1]
        or line.startswith("0::")]
print(json.dumps({"engine": cgroup.engine_group, "run": group.paths, "mine": mine}), flush=True)
group.close()
if sys.argv[1:] == ["hog"]:
    hog = []
    for _ in range(100):
        hog.append(bytearray(16 << 20))  # 16 MB at a time, touched
    print("not bounded", flush=True)
'''


def _engine(*args: str, memory_mb: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", ENGINE, *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env={**os.environ, "PLAYCODER_ENGINE_MEMORY_MB": memory_mb})


def test_the_engine_moves_into_a_bounded_group_of_its_own():
    proc = _engine(memory_mb="512")
    assert proc.returncode == 0, proc.stderr[-400:]
    said = json.loads(proc.stdout.splitlines()[0])
    if not said["engine"]:
        pytest.skip("no cgroup can be made here (not root, no delegated subtree): the engine runs unbounded")
    engine = said["engine"][0]
    assert engine.endswith("-engine") and os.path.basename(os.path.dirname(engine))
    for run in said["run"]:
        assert os.path.dirname(run) == os.path.dirname(engine) or "pids" in run, "runs are siblings, not children"
    assert any(os.path.basename(engine) in line for line in said["mine"])


def test_an_engine_past_its_memory_bound_is_stopped_by_the_kernel():
    proc = _engine("hog", memory_mb="200")
    said = json.loads(proc.stdout.splitlines()[0])
    if not said["engine"]:
        pytest.skip("no cgroup can be made here: the engine runs unbounded")
    assert "not bounded" not in proc.stdout and proc.returncode == -9
