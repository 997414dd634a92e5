"""`bench detect --no-script --duration S`: explore-only recall with a fixed time budget per run.  Planning, the
child's command line, the Ray task and the per-suite summary; nothing is played here."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import cli
from app.commands import bench as _bench  # noqa: F401  (registers `bench`)
from app.engine.bench import detect, jobs, ray_tasks
from app.engine.errors import UserError


def test_duration_bounds_every_run_and_a_long_bug_keeps_its_own():
    apps = detect.select_apps("snake,tkcalc")
    planned = {j.target: j.duration_s for j in detect.plan(apps, 1, 0, False, duration=40.0)}
    assert planned["tkcalc"] == 40.0 and planned["snake@no-growth"] == 40.0
    assert "snake@late-crash" not in planned  # long bugs still need --long
    with_long = {j.target: j.duration_s for j in detect.plan(apps, 1, 0, False, long=True, duration=40.0)}
    assert with_long["snake@late-crash"] == 150.0 and with_long["snake"] == 150.0 and with_long["tkcalc"] == 40.0


def test_the_child_gets_no_script_and_duration(monkeypatch, tmp_path):
    seen: list[list[str]] = []
    monkeypatch.setattr(jobs.children, "spawn", lambda cmd, **kw: seen.append(cmd))
    jobs.run_child("tkcalc@escape-typo", tester="differential", max_steps=40, seed=0, db=tmp_path / "x.db",
                   duration_s=40.0, no_script=True)
    jobs.run_child("tkcalc", tester="offline", max_steps=40, seed=0, db=tmp_path / "x.db", no_script=True)
    explore, offline = seen
    assert "--no-script" in explore and explore[explore.index("--duration") + 1] == "40"
    assert "--no-script" not in offline, "only the differential tester has a script to leave out"


def test_no_script_travels_with_a_ray_task():
    task = ray_tasks.portable(ray_tasks.PlayTask("tkcalc", "differential", 40, 0, duration_s=40.0, no_script=True))
    assert task.no_script and task.duration_s == 40.0


def test_the_command_line_takes_both_and_checks_them(capsys):
    parser = cli.build_parser()
    args = parser.parse_args(["bench", "detect", "--tester", "differential", "--no-script", "--duration", "40"])
    assert args.no_script and args.duration == 40.0
    assert parser.parse_args(["bench", "detect"]).duration is None
    with pytest.raises(SystemExit):
        parser.parse_args(["bench", "detect", "--duration", "-3"])
    assert "--duration" in capsys.readouterr().err
    args = parser.parse_args(["bench", "detect", "--tester", "offline", "--no-script"])
    with pytest.raises(UserError, match="--no-script applies only to --tester differential"):
        args.handler(args)


def test_recall_is_given_per_suite_and_kind():
    def row(app: str, bug: str, kind: str, verdict: str) -> detect.DetectRow:
        return detect.DetectRow(app, f"{app}@{bug}", bug, kind, "easy", "fail", verdict, 0, 0, 10, 40.0, None,
                                "", "", "tuning", 40.0)
    rows = [row("calculator", "a", "logic", "fail"), row("calculator", "b", "crash", "pass"),
            row("tkcalc", "c", "logic", "fail")]
    s = detect.summarize(rows, tester="differential", max_steps=40, wall_seconds=1.0, parallel=1)
    assert s["recall_by_suite"]["apps"]["hits"] == 1 and s["recall_by_suite"]["apps"]["runs"] == 2
    assert s["recall_by_suite_type"]["wild"]["logic"]["rate"] == 1.0
    text = detect.markdown({**s, "duration_s": 40.0, "no_script": True})
    assert "40 s per run" in text and "Explore only (`--no-script`)" in text and "| apps | crash | 0% (0/1) |" in text


def test_compare_puts_two_results_side_by_side_per_suite_and_kind(tmp_path, capsys):
    import json

    from benchmark import compare_detect

    def result(name: str, verdicts: list[str]) -> Path:
        runs = [{"app": "calculator", "bug": None, "type": "reference", "verdict": "pass", "repeat": 0},
                {"app": "tkcalc", "bug": "x", "type": "logic", "verdict": verdicts[0], "repeat": 0},
                {"app": "tkcalc", "bug": "x", "type": "logic", "verdict": verdicts[1], "repeat": 1}]
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"summary": {"command": f"playcoder {name}"}, "runs": runs}))
        return path

    assert compare_detect.main([str(result("a", ["fail", "pass"])), str(result("b", ["pass", "fail"])),
                                "--labels", "explore,rubric", "--repeats", "0"]) == 0
    out = capsys.readouterr().out
    assert "| wild | logic | 100% (1/1) | 0% (0/1) |" in out and "| apps | reference | 100% (1/1) | 100% (1/1) |" in out
    with pytest.raises(SystemExit, match="not a `bench detect --json` result"):
        compare_detect.main([str(tmp_path / "missing.json")])
