"""`playcoder validate …` through the real CLI (`python -m app`) on a real SQLite file."""

from __future__ import annotations

import csv
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine.trace.store import TrajectoryStore

ROOT = Path(__file__).resolve().parents[2]


def playcoder(*args: object, db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app", "validate", *map(str, args), "--db", str(db)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def make_runs(db: Path, passes: int, fails: int) -> dict[int, str]:
    store = TrajectoryStore(db)
    made = {}
    for i in range(passes + fails):
        verdict = "pass" if i < passes else "fail"
        run = store.create_run(target="tiles", tester="offline")
        store.add_step(run, 0, {"action": {"action": "wait", "seconds": 0.1}, "outcome": "ok", "started_at": 1.0,
                                "ended_at": 1.1})  # only runs with steps are drawn
        store.finish_run(run, status="completed", verdict=verdict, reason=f"reason {i}")
        made[run] = verdict
    store.close()
    return made


def set_runs(db: Path, name: str) -> dict[int, str]:
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT i.run_id, i.tester_verdict FROM validation_items i JOIN validation_sets s "
                        "ON s.id = i.set_id WHERE s.name = ? ORDER BY i.run_id", [name]).fetchall()
    conn.close()
    return dict(rows)


def write_csv(path: Path, rows: list[list[object]], header: tuple[str, ...] = ("annotator", "run_id", "label", "note")) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


def annotation_count(db: Path) -> int:
    conn = sqlite3.connect(db)
    n = conn.execute("SELECT count(*) FROM annotations").fetchone()[0]
    conn.close()
    return int(n)


def test_sample_and_list(db_path):
    make_runs(db_path, 37, 120)
    out = playcoder("sample", "--successes", 100, "--failures", 100, "--seed", 4, "--name", "paper", db=db_path)
    assert out.returncode == 2
    assert out.stderr.strip() == ("playcoder: Only 37 runs have the tester verdict pass; at least 100 are needed — "
                                  "record more runs or lower --successes.")
    assert "Traceback" not in out.stderr
    out = playcoder("sample", "--successes", 30, "--failures", 100, "--seed", 4, "--name", "paper", db=db_path)
    assert out.returncode == 0, out.stderr
    assert "30 successes + 100 failures" in out.stdout
    runs = set_runs(db_path, "paper")
    assert list(runs.values()).count("pass") == 30 and len(runs) == 130
    again = playcoder("sample", "--successes", 1, "--failures", 1, "--name", "paper", db=db_path)
    assert again.returncode == 2 and "already exists; choose another --name." in again.stderr
    listed = playcoder("list", "--json", db=db_path)
    assert json.loads(listed.stdout)[0]["name"] == "paper"
    assert "paper" in playcoder("list", db=db_path).stdout


def test_import_export_round_trip_and_relabel(db_path, tmp_path):
    make_runs(db_path, 4, 4)
    assert playcoder("sample", "--successes", 4, "--failures", 4, "--name", "s", db=db_path).returncode == 0
    runs = sorted(set_runs(db_path, "s"))
    rows = [["alice", r, "pass", ""] for r in runs] + [["bob", runs[0], "unsure", "too fast, with, commas"]]
    out = playcoder("import-labels", write_csv(tmp_path / "in.csv", rows), "--name", "s", db=db_path)
    assert out.returncode == 0, out.stderr
    assert "imported 9 labels from 2 annotators" in out.stdout and "(9 new, 0 replaced)" in out.stdout
    again = playcoder("import-labels", write_csv(tmp_path / "re.csv", [["alice", runs[1], "FAIL", "relabel"]]),
                      "--name", "s", db=db_path)
    assert "(0 new, 1 replaced)" in again.stdout
    assert annotation_count(db_path) == 9
    out = playcoder("export-labels", "--name", "s", "-o", tmp_path / "out.csv", db=db_path)
    assert out.returncode == 0 and "wrote 9 labels" in out.stdout
    with open(tmp_path / "out.csv", newline="", encoding="utf-8") as fh:
        exported = list(csv.reader(fh))
    assert exported[0] == ["annotator", "run_id", "label", "note"]
    assert ["alice", str(runs[1]), "fail", "relabel"] in exported
    assert ["bob", str(runs[0]), "unsure", "too fast, with, commas"] in exported
    assert not any("reason" in cell for row in exported for cell in row)  # no tester text leaks into the file
    # the exported file imports back unchanged
    back = playcoder("import-labels", tmp_path / "out.csv", "--name", "s", db=db_path)
    assert "(0 new, 9 replaced)" in back.stdout


def test_import_refuses_bad_rows_with_line_numbers_and_writes_nothing(db_path, tmp_path):
    made = make_runs(db_path, 3, 3)
    assert playcoder("sample", "--successes", 2, "--failures", 2, "--seed", 9, "--name", "s", db=db_path).returncode == 0
    inside = sorted(set_runs(db_path, "s"))
    outside = sorted(set(made) - set(inside))[0]
    rows: list[list[object]] = [
        ["alice", inside[0], "pass", ""],        # line 2: fine
        ["alice", inside[1], "fail", ""],        # line 3: fine
        ["alice", inside[2], "pass", ""],        # line 4: fine
        ["alice", inside[3], "pass", ""],        # line 5: fine
        ["bob", inside[0], "pass", ""],          # line 6: fine
        ["bob", inside[1], "maybe", ""],         # line 7: bad label
        ["bob", outside, "pass", ""],            # line 8: not in the set
        ["bob", "x12", "pass", ""],              # line 9: not a number
        ["", inside[2], "pass", ""],             # line 10: no annotator
        ["alice", inside[0], "fail", ""],        # line 11: duplicate of line 2
    ]
    out = playcoder("import-labels", write_csv(tmp_path / "bad.csv", rows), "--name", "s", db=db_path)
    assert out.returncode == 2
    msg = out.stderr.strip()
    assert msg.startswith("playcoder: Nothing was imported from ")
    assert "line 7: label 'maybe' is not pass, fail or unsure; " in msg
    assert f"line 8: run {outside} is not in set 's'" in msg
    assert "line 9: run_id 'x12' is not a run number" in msg
    assert "line 10: the annotator name must be" in msg
    assert f"line 11: alice already labelled run {inside[0]} on line 2" in msg
    assert msg.endswith("— fix these lines and import again.")
    assert msg.count("\n") == 0 and "line 2:" not in msg
    assert annotation_count(db_path) == 0
    bad_header = write_csv(tmp_path / "h.csv", [["alice", inside[0], "pass"]], header=("who", "run_id", "label"))
    out = playcoder("import-labels", bad_header, "--name", "s", db=db_path)
    assert out.returncode == 2 and "has no column annotator" in out.stderr
    out = playcoder("import-labels", tmp_path / "missing.csv", "--name", "s", db=db_path)
    assert out.returncode == 2 and "Cannot read" in out.stderr and "Traceback" not in out.stderr
    out = playcoder("import-labels", write_csv(tmp_path / "ok.csv", rows[:5]), "--name", "nope", db=db_path)
    assert out.returncode == 2 and "no validation set named 'nope'" in out.stderr


def test_promote_through_the_cli(db_path, tmp_path):
    make_runs(db_path, 2, 2)
    assert playcoder("sample", "--successes", 2, "--failures", 2, "--name", "s", db=db_path).returncode == 0
    runs = set_runs(db_path, "s")
    good = next(r for r, v in runs.items() if v == "pass")
    bad = next(r for r, v in runs.items() if v == "fail")
    rows = [["alice", good, "fail", "never scores"], ["alice", bad, "unsure", ""]]
    assert playcoder("import-labels", write_csv(tmp_path / "l.csv", rows), "--name", "s", db=db_path).returncode == 0
    store = TrajectoryStore(db_path)
    assert store.effective_verdict(good) == "pass"  # a label is not an override
    store.close()
    out = playcoder("promote", "--name", "s", "--annotator", "alice", "--run", good, db=db_path)
    assert out.returncode == 0, out.stderr
    assert "effective verdict fail" in out.stdout
    store = TrajectoryStore(db_path)
    assert store.effective_verdict(good) == "fail"
    last = store.judgments(good)[-1]
    assert (last["source"], last["author"], last["note"]) == ("human", "alice", "promoted from validation set s: never scores")
    store.close()
    out = playcoder("promote", "--name", "s", "--annotator", "alice", "--run", bad, db=db_path)
    assert out.returncode == 2
    assert out.stderr.strip() == (f"playcoder: An 'unsure' label cannot be promoted; relabel run {bad} as pass or "
                                  "fail first if you are sure.")


@pytest.mark.parametrize("command", [["list"], ["stats", "--name", "x"], ["export-labels", "--name", "x", "-o", "o.csv"]])
def test_readers_refuse_a_missing_database(tmp_path, command):
    out = playcoder(*command, db=tmp_path / "none.db")
    assert out.returncode == 2 and "does not exist" in out.stderr and "Traceback" not in out.stderr


def test_annotate_opens_the_window_and_closes_on_sigterm(db_path, tmp_path):
    import os
    import signal
    import time

    make_runs(db_path, 2, 2)
    assert playcoder("sample", "--successes", 2, "--failures", 2, "--name", "s", db=db_path).returncode == 0
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"))
    proc = subprocess.Popen([sys.executable, "-m", "app", "validate", "annotate", "--name", "s", "--annotator", "zed",
                             "--db", str(db_path)], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        time.sleep(3)
        assert proc.poll() is None, proc.communicate()[1]  # the window is up and waiting
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
