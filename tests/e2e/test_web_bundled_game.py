"""A bundled web game (benchmark/web/websnake) plays end to end through `playcoder test`: the page as it is
passes the offline tester with its scripts' lines covered, and a bug variant whose `r` key throws is a crash
that names the script and the line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from suite import ROOT, needs_xvfb

GAME = ROOT / "benchmark" / "web" / "websnake"
needs_chromium = pytest.mark.skipif(shutil.which("chromium") is None, reason="Chromium is not installed")


def play(target: str, db: Path, *extra: str) -> dict[str, object]:
    proc = subprocess.run([sys.executable, "-m", "app", "test", target, "--db", str(db), "--json", "--seed", "0",
                           *extra], cwd=ROOT, capture_output=True, text=True, timeout=280)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    assert lines, proc.stderr[-2000:]
    data: dict[str, object] = json.loads(lines[-1])
    return data


@needs_xvfb
@needs_chromium
def test_websnake_plays_and_its_crash_names_script_and_line(tmp_path: Path) -> None:
    ok = play(str(GAME), tmp_path / "runs.db", "--max-steps", "12")
    assert ok["verdict"] == "pass", ok["reason"]
    assert ok["window"] == [400, 440] or ok["window"] == [399, 439], ok["window"]
    cov = ok["coverage"]
    assert isinstance(cov, dict) and cov["lines"] > 0 and cov["total"] >= cov["lines"]

    bug = play(f"{GAME}@crash-on-restart", tmp_path / "runs.db", "--max-steps", "20")
    assert bug["verdict"] == "fail", bug["reason"]
    crashes = [f for f in bug["findings"] if f["kind"] == "crash"]  # type: ignore[union-attr, index]
    assert crashes, bug["findings"]
    assert "main.js:82" in crashes[0]["message"] and "TypeError" in crashes[0]["message"], crashes[0]
