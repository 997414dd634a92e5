"""`playcoder` with no display runs the headless demo: a trajectory and a report on a bundled target."""

from __future__ import annotations

import os
import subprocess
import sys

from app.engine.trace.store import TrajectoryStore

from suite import ROOT, needs_xvfb


@needs_xvfb
def test_no_display_runs_the_headless_demo(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    proc = subprocess.run([sys.executable, "-m", "app"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=240)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "playcoder-demo"
    reports = sorted(out.glob("run-*.html"))
    assert len(reports) == 2
    store = TrajectoryStore(out / "playcoder.db")
    verdicts = {r["target"]: r["verdict"] for r in store.runs()}
    assert verdicts == {"tiles2048": "pass", "tiles2048@crash-on-restart": "fail"}
    assert "crash" in proc.stdout


def test_gui_without_display_is_one_sentence(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    proc = subprocess.run([sys.executable, "-m", "app", "gui", "--db", str(tmp_path / "x.db")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "playcoder demo" in proc.stderr
