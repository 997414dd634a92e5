"""`rubric check` given the recorder's file says in one sentence how to check its cases."""

from __future__ import annotations

import subprocess
import sys

from suite import ROOT


def test_rubric_check_on_the_recorded_file_says_how(tmp_path):
    recorded = tmp_path / "playcoder.recorded.toml"
    recorded.write_text("")
    done = subprocess.run([sys.executable, "-m", "app", "rubric", "check", str(recorded)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"playcoder rubric check {tmp_path}" in done.stderr and "copy the cases" in done.stderr
