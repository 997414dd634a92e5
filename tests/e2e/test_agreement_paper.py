"""The paper's validation study rebuilt through the real commands.

200 runs recorded with the TrajectoryStore API (100 tester passes, 100 tester
fails); `playcoder validate sample` draws the 100/100 set; three annotators who
agree with each other are imported with `validate import-labels`; the tester is
wrong on 16 of its 100 successes and 5 of its 100 failures.  `validate stats
--json` must give FN 16%, FP 5% and the alpha and tau-b these data give.

With this plain construction (no 'unsure', no disagreement between humans)
tester-vs-majority alpha = 0.78989 and tau-b = 0.79482, which round to the
paper's reported 0.790 and 0.795: no special construction is needed.
"""

from __future__ import annotations

import csv
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from app.engine.trace.store import TrajectoryStore

ROOT = Path(__file__).resolve().parents[2]
ANNOTATORS = ("ann", "bo", "cy")
WRONG_SUCCESSES = 16
WRONG_FAILURES = 5


def playcoder(*args: object, db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app", "validate", *map(str, args), "--db", str(db)],
                          cwd=ROOT, capture_output=True, text=True, timeout=180)


def test_paper_study_through_the_cli(db_path, tmp_path):
    store = TrajectoryStore(db_path)
    for i in range(200):
        verdict = "pass" if i % 2 == 0 else "fail"
        run = store.create_run(target=f"game{i % 7}", tester="offline", seed=i)
        store.add_step(run, 0, {"action": {"action": "wait", "seconds": 0.1}, "outcome": "ok", "started_at": 1.0,
                                "ended_at": 1.1})  # only runs with steps are drawn
        store.finish_run(run, status="completed", verdict=verdict, reason=f"offline tester: {verdict}")
    store.close()

    out = playcoder("sample", "--successes", 100, "--failures", 100, "--seed", 2025, "--name", "paper", db=db_path)
    assert out.returncode == 0, out.stderr

    conn = sqlite3.connect(db_path)
    items = conn.execute("SELECT run_id, tester_verdict FROM validation_items ORDER BY run_id").fetchall()
    conn.close()
    successes = [r for r, v in items if v == "pass"]
    failures = [r for r, v in items if v == "fail"]
    assert len(successes) == len(failures) == 100
    truth = {r: "pass" for r in successes} | {r: "fail" for r in failures}
    for r in successes[:WRONG_SUCCESSES]:
        truth[r] = "fail"
    for r in failures[:WRONG_FAILURES]:
        truth[r] = "pass"
    labels = tmp_path / "labels.csv"
    with open(labels, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["annotator", "run_id", "label", "note"])
        for name in ANNOTATORS:
            w.writerows([name, run, label, ""] for run, label in truth.items())
    out = playcoder("import-labels", labels, "--name", "paper", db=db_path)
    assert out.returncode == 0, out.stderr
    assert "imported 600 labels from 3 annotators" in out.stdout

    csv_out = tmp_path / "stats.csv"
    out = playcoder("stats", "--name", "paper", "--json", "--csv", csv_out, db=db_path)
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.strip().splitlines()) == 1  # one JSON line, as every --json
    report = json.loads(out.stdout)
    assert report["fn_rate"]["value"] == 0.16 and report["fn_rate"]["n"] == 100
    assert report["fp_rate"]["value"] == 0.05 and report["fp_rate"]["n"] == 100
    assert report["confusion"] == {"pass": {"pass": 84, "fail": 16}, "fail": {"pass": 5, "fail": 95}}
    assert round(report["alpha_tester_human"]["value"], 3) == 0.790  # the paper: 0.790
    assert round(report["tau_b"]["value"], 3) == 0.795  # the paper: 0.795
    assert report["alpha_humans"]["value"] == 1.0
    assert report["excluded"] == {"tied": 0, "unsure_only": 0, "unlabelled": 0}
    assert [a["labelled"] for a in report["annotators"]] == [200, 200, 200]
    assert report["resamples"] == 2000 and report["seed"] == 2025
    for key in ("alpha_tester_human", "tau_b", "fn_rate", "fp_rate"):
        est = report[key]
        assert est["low"] < est["value"] < est["high"], key
    assert 0.08 < report["fn_rate"]["low"] < 0.16 < report["fn_rate"]["high"] < 0.25
    assert csv_out.read_text(encoding="utf-8").startswith("section,name,value,ci_low,ci_high,n")

    text = playcoder("stats", "--name", "paper", "--resamples", 200, db=db_path)
    assert text.returncode == 0, text.stderr
    assert "16.0%" in text.stdout and "5.0%" in text.stdout and "0.790" in text.stdout and "0.795" in text.stdout
