"""The offline refiner end to end through the real CLI: a real bug variant, real plays under Xvfb, real SQLite."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from app.engine.repair.records import cycles, repair_sessions
from app.engine.trace.store import TrajectoryStore

from suite import ROOT, TARGETS, needs_xvfb

pytestmark = needs_xvfb
REPAIR_DIR = ROOT / "app" / "engine" / "repair"
TALLY = TARGETS / "tally_tk"
"""The tests' own tally and its variants: the benchmark's bugs are not pinned here."""


def repair(*args: str, db: Path, timeout: float = 400) -> tuple[int, dict, str]:
    proc = subprocess.run([sys.executable, "-m", "app", "repair", *args, "--json", "--db", str(db)],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    lines = proc.stdout.strip().splitlines()
    return proc.returncode, (json.loads(lines[-1]) if lines else {}), proc.stderr


def test_offline_refiner_fixes_a_flipped_subtraction_and_records_every_cycle(db_path, tmp_path):
    out = tmp_path / "repaired"
    code, summary, err = repair(f"{TALLY}@minus-flipped", "--out", str(out), db=db_path)
    assert code == 0, err
    assert summary["fixed"] is True and summary["final_verdict"] == "pass", summary
    assert summary["target"] == "tally_tk@minus-flipped" and summary["db"] == str(db_path)
    its = summary["iterations"]
    assert len(its) >= 1 and its[-1]["verdict"] == "pass" and its[-1]["outcome"] == "fixed"
    fix = its[-1]
    assert "-        return b - a\n+        return a - b\n" in fix["diff"]
    assert "[tests] 6 passed, 0 failed" in fix["validation"]
    assert "test_tally_logic" in its[0]["diagnosis"] and "failed" in its[0]["diagnosis"]
    assert set(summary["runs"]) >= {fix["retest_run"]}
    for key in ("iteration", "diagnosis", "diff", "validation", "retest_run", "verdict", "seconds", "tokens"):
        assert key in fix
    # the repaired copy: fixed, and without the benchmark's bug folder
    assert "return a - b" in (out / "tally_logic.py").read_text()
    assert not (out / "bugs").exists()

    store = TrajectoryStore(db_path)
    sessions = repair_sessions(store)
    assert [s.run_id for s in sessions] == [summary["session_run"]]
    assert sessions[0].verdict == "pass" and sessions[0].refiner == "offline"
    rows = list(store.db.query("SELECT * FROM patches WHERE run_id = ? ORDER BY iteration", [summary["session_run"]]))
    assert len(rows) == len(its)
    last = rows[-1]
    assert last["diff"] == fix["diff"] and last["retest_run"] == fix["retest_run"] and last["seconds"] > 0
    assert json.loads(last["files"])["session"] == summary["session_run"]
    assert json.loads(last["files"])["files"] == ["tally_logic.py"]
    assert json.loads(last["validation"])["gate"]["ok"] is True
    retest = store.run(fix["retest_run"])
    assert retest["verdict"] == "pass" and store.step_count(fix["retest_run"]) > 0
    # Every play is linked to its session and labelled as the variant it played.
    assert retest["kind"] == "repair-play" and retest["target"] == "tally_tk@minus-flipped"
    plays = dict(store.repair_plays(summary["session_run"]))
    assert set(plays) == set(summary["runs"]) and plays[summary["runs"][0]].iteration == 0
    assert plays[fix["retest_run"]].iteration == fix["iteration"]
    recs = cycles(store, summary["session_run"])
    assert recs[-1].outcome == "fixed" and recs[-1].before_run == summary["runs"][0]
    store.close()


def test_offline_refiner_fixes_a_crash_from_its_traceback(db_path):
    code, summary, err = repair(f"{TALLY}@average-crashes", "--max-iterations", "3", db=db_path)
    assert code == 0, err
    assert summary["fixed"], summary
    first = summary["iterations"][0]
    assert "ZeroDivisionError" in first["diagnosis"] and "tally_logic.py:" in first["diagnosis"]
    assert "tally_logic.py" in summary["iterations"][-1]["diff"]


def test_the_refiner_never_reads_bug_metadata():
    """The repair package has no path to a benchmark's bugs/ folder, bugs.toml or .patch files."""
    for path in REPAIR_DIR.glob("*.py"):
        text = path.read_text()
        assert "bugs.toml" not in text and "load_bugs" not in text, path.name
        assert not re.search(r"['\"]bugs/|\.patch['\"]", text), path.name
