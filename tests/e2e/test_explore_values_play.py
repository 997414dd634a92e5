"""The explorer asks a calculator a division by zero (and an uneven division) from a cleared display: a
calculator that crashes on x / 0 is caught by the offline tester in a short run, whatever the seed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from suite import ROOT, TARGETS, needs_xvfb

GUARDED = "a / value if value else 0.0"
UNGUARDED = "a / value"


@needs_xvfb
@pytest.mark.parametrize("seed", [1, 2])
def test_a_division_by_zero_is_asked_of_a_calculator(tmp_path: Path, seed: int) -> None:
    candidate = tmp_path / "calc"
    shutil.copytree(TARGETS / "calc_tk", candidate, ignore=shutil.ignore_patterns("bugs"))
    main = candidate / "main.py"
    assert GUARDED in main.read_text()
    main.write_text(main.read_text().replace(GUARDED, UNGUARDED))
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(candidate), "--max-steps", "40",
                           "--seed", str(seed), "--json", "--film-fps", "0", "--db", str(tmp_path / "runs.db")],
                          capture_output=True, text=True, timeout=400, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["verdict"] == "fail", summary
    assert "ZeroDivisionError" in summary["reason"], summary
