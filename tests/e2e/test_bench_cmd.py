"""`playcoder bench`: accuracy statistics, candidates layout, and both commands end to end through the CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from app.engine.bench import detect
from app.engine.bench import play_at_k
from app.engine.errors import UserError
from app.engine.play.targetspec import load_bugs
from app.engine.trace.store import TrajectoryStore

from suite import APPS, ROOT, needs_xvfb


def cli(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT)


# -- statistics on hand-made rows -------------------------------------------------------
def row(target: str, truth: str, verdict: str, type_: str = "logic", difficulty: str = "medium",
        steps: int = 10, seconds: float = 2.0) -> detect.DetectRow:
    app, _, bug = target.partition("@")
    return detect.DetectRow(app, target, bug or None, type_ if bug else "reference",
                                 difficulty if bug else "", truth, verdict, 0, 0, steps, seconds, None, "", "")


def test_detect_summary_by_hand():
    rows = [
        row("a", "pass", "pass"), row("b", "pass", "fail", steps=20),               # one false positive of two
        row("a@x", "fail", "fail", "crash", "easy"), row("a@y", "fail", "pass", "logic"),
        row("b@z", "fail", "fail", "logic", "easy"), row("b@w", "fail", "error", "logic"),  # no answer: a miss
    ]
    s = detect.summarize(rows, tester="offline", max_steps=15, wall_seconds=12.0, parallel=2)
    assert s["recall"] == {"hits": 2, "runs": 4, "no_answer": 1, "errors": 1, "uncertain": 0, "rate": 0.5}
    assert s["false_positive_rate"]["rate"] == 0.5 and s["reference_pass_rate"]["rate"] == 0.5
    assert s["recall_by_type"]["crash"]["rate"] == 1.0
    assert s["recall_by_type"]["logic"] == {"hits": 1, "runs": 3, "no_answer": 1, "errors": 1, "uncertain": 0,
                                            "rate": pytest.approx(1 / 3)}
    assert s["recall_by_difficulty"]["easy"]["rate"] == 1.0 and s["recall_by_difficulty"]["medium"]["rate"] == 0.0
    assert s["no_answer"] == 1 and s["errors"] == 1 and s["uncertain"] == 0
    assert "count as misses" in s["counting"] and "commit" in s["measured_on"]
    assert s["apps"]["b"]["mean_steps"] == pytest.approx(40 / 3)
    # All 6 runs count; the error run is coded as the wrong answer (pass for a bug variant):
    # tester (1,0,0,1,0,1) vs truth (1,1,0,0,0,0) with pass=1, fail=0.
    # Krippendorff, nominal: n = 12 values, n_0 = 7, n_1 = 5; three units disagree, so o_01 = o_10 = 3;
    # D_o = 6/12, D_e = (7*5 + 5*7) / (12*11) = 70/132; alpha = 1 - 0.5 * 132/70 = 2/35.
    # Kendall tau-b: C = 2 ((1,1) over both (0,0)), D = 2 ((1,0) twice over (0,1)), so tau-b = 0.
    assert s["agreement"]["krippendorff_alpha"] == pytest.approx(2 / 35)
    assert s["agreement"]["kendall_tau_b"] == pytest.approx(0.0)
    assert s["agreement"]["units"] == 6 and s["agreement"]["no_answer_units"] == 1
    md = detect.markdown(s)
    assert "| recall (bug variants judged fail, of all bug runs) | 50% (2/4) |" in md
    assert "| logic | 33% (1/3) | 1 (1 error, 0 uncertain) |" in md
    assert "Rates count every run" in md and "Measured on commit " in md
    assert "| b | - | reference | - | pass | fail ✗ |" in md


def test_detect_reports_the_tuning_and_held_out_halves():
    from app.engine.bench.split import HELD_OUT, TUNING, split_of

    names = [f"app@bug{i}" for i in range(12)]
    rows = [detect.DetectRow("app", n, n.split("@")[1], "logic", "easy", "fail", "fail" if i % 3 else "uncertain",
                             0, 0, 5, 1.0, None, "", "", split_of("app", n.split("@")[1]))
            for i, n in enumerate(names)]
    s = detect.summarize(rows, tester="script", max_steps=5, wall_seconds=1.0, parallel=1)
    for half in (TUNING, HELD_OUT):
        mine = [r for r in rows if r.split == half]
        assert s["recall_by_split"][half]["runs"] == len(mine) > 0
        assert s["recall_by_split"][half]["hits"] == sum(r.verdict == "fail" for r in mine)
        assert s["recall_by_split"][half]["uncertain"] == sum(r.verdict == "uncertain" for r in mine)
    assert s["uncertain"] == 4 and s["recall"]["rate"] == pytest.approx(8 / 12)
    md = detect.markdown(s)
    assert "| recall, tuning half |" in md and "| recall, held-out half |" in md


def test_detect_agreement_is_undefined_without_variation():
    rows = [row("a", "pass", "pass"), row("b", "pass", "pass")]
    ag = detect.agreement(rows)
    assert ag["krippendorff_alpha"] is None and ag["kendall_tau_b"] is None


def test_select_apps_refuses_unknown_names():
    assert [p.name for p in detect.select_apps("tiles2048,calculator")] == ["tiles2048", "calculator"]
    with pytest.raises(UserError, match="unknown app"):
        detect.select_apps("tiles2048,nope")


def test_play_summary_by_hand():
    def cand(name: str, tests: bool, execs: list[bool], plays: list[bool]) -> play_at_k.CandidateResult:
        return play_at_k.CandidateResult("p", name, tests, exec_ok=execs, play_ok=plays,
                                         verdicts=["pass" if p else "fail" for p in plays],
                                         run_ids=[None] * 3, tester_tokens=[None] * 3)

    results = [cand("a", True, [True] * 3, [True, True, False]), cand("b", False, [True] * 3, [False, True, False]),
               cand("c", True, [False] * 3, [False] * 3)]
    results[2].verdicts = ["error", "uncertain", "fail"]  # no answer: a Play failure, shown in its own column
    s = play_at_k.summarize(results, [1, 2, 4], 3, tester="offline")
    assert s["problems"]["p"]["no_answer"] == [1, 1, 0] and "Play failure" in s["counting"]
    assert "| p | 3 | 2/2/2 | 2 | 1/2/0 | 1/1/0 |" in play_at_k.markdown(s)
    # repeats: Play c = 1, 2, 0 of n = 3 -> Play@1 per repeat 1/3, 2/3, 0 -> mean 1/3,
    # sd = 1/3, se = 1/3/sqrt(3), t(0.975, 2) = 4.302653
    play1 = s["metrics"]["Play@1"]
    assert play1["values"] == pytest.approx([1 / 3, 2 / 3, 0.0])
    assert play1["mean"] == pytest.approx(1 / 3)
    assert play1["high"] - play1["mean"] == pytest.approx(4.302653 * (1 / 3) / 3 ** 0.5, abs=1e-5)
    assert s["metrics"]["Exec@1"]["mean"] == pytest.approx(2 / 3)
    assert s["metrics"]["Pass@2"]["mean"] == pytest.approx(1.0)     # n - c = 1 < k = 2
    assert s["metrics"]["Play@2"]["values"] == pytest.approx([2 / 3, 1.0, 0.0])  # 1 - C(2,2)/C(3,2) = 2/3
    assert s["metrics"]["Play@4"]["mean"] is None
    assert any("fewer than 4 candidates" in n for n in s["notes"])
    assert any("Efficiency@k omitted" in n for n in s["notes"])
    assert "Efficiency@1" not in s["metrics"]


def test_efficiency_when_tokens_are_known():
    results = [play_at_k.CandidateResult("p", "a", True, exec_ok=[True], play_ok=[True], verdicts=["pass"],
                                         run_ids=[1], tester_tokens=[1500], generation_tokens=500),
               play_at_k.CandidateResult("p", "b", True, exec_ok=[True], play_ok=[False], verdicts=["fail"],
                                         run_ids=[2], tester_tokens=[2000], generation_tokens=None)]
    s = play_at_k.summarize(results, [1], 1, tester="llm")
    # Play@1 = 0.5; 4,000 tokens for the one problem -> 0.5 / 4 = 0.125
    assert s["metrics"]["Efficiency@1"]["mean"] == pytest.approx(0.125)


def test_discover_checks_the_layout(tmp_path):
    with pytest.raises(UserError, match="not a folder"):
        play_at_k.discover(tmp_path / "missing")
    with pytest.raises(UserError, match="no candidates"):
        play_at_k.discover(tmp_path)
    (tmp_path / "notanapp" / "c1").mkdir(parents=True)
    with pytest.raises(UserError, match="not named after a benchmark app"):
        play_at_k.discover(tmp_path)


def test_make_candidates_writes_reference_and_patched_sources(tmp_path):
    made = play_at_k.make_candidates(tmp_path, [APPS / "calculator"])
    assert made["calculator"][0] == "reference" and "wrong-subtraction" in made["calculator"]
    ref = tmp_path / "calculator" / "reference"
    bug = tmp_path / "calculator" / "wrong-subtraction"
    assert sorted(p.name for p in ref.iterdir()) == ["calc_logic.py", "candidate.json", "main.py"]
    assert "return a - b" in (ref / "calc_logic.py").read_text()
    assert "return b - a" in (bug / "calc_logic.py").read_text()
    assert json.loads((bug / "candidate.json").read_text())["type"] == "logic"
    with pytest.raises(UserError, match="already exists"):
        play_at_k.make_candidates(tmp_path, [APPS / "calculator"])


# -- end to end through the CLI -------------------------------------------------------------
@needs_xvfb
def test_bench_detect_end_to_end(tmp_path):
    db, out = tmp_path / "bench.db", tmp_path / "detect.json"
    proc = cli("bench", "detect", "--tester", "script", "--apps", "calculator", "--max-steps", "15", "--jobs", "2",
               "--json", str(out), "--md", str(tmp_path / "detect.md"), "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    assert "bench detect (script)" in proc.stderr and "5/5" in proc.stderr      # the progress bar
    data = json.loads(out.read_text())
    s = data["summary"]
    assert s["runs"] == 5 and s["errors"] == 0
    # What the tester catches in the benchmark is a figure this command reports, not a pinned result
    #: the test checks that the tables and rates agree with the runs, whatever the verdicts.
    bug_runs = [r for r in data["runs"] if r["bug"]]
    ref_runs = [r for r in data["runs"] if not r["bug"]]
    for r in bug_runs:
        assert f"| {r['target']} | {r['split']} | {r['type']} | {r['difficulty']} | {r['truth']} | {r['verdict']} |" \
            in proc.stdout, r
    assert s["recall"]["rate"] == pytest.approx(sum(r["verdict"] == "fail" for r in bug_runs) / len(bug_runs))
    assert s["false_positive_rate"]["rate"] == pytest.approx(sum(r["verdict"] == "fail" for r in ref_runs)
                                                             / len(ref_runs))
    assert s["agreement"]["units"] == 5
    assert (tmp_path / "detect.md").read_text() == proc.stdout
    store = TrajectoryStore(db)
    try:
        runs = {r["id"]: r for r in store.runs()}
        assert {r["run_id"] for r in data["runs"]} == set(runs)
        assert {r["bug"] for r in runs.values()} == {None} | {b.id for b in load_bugs(APPS / "calculator")}
        assert all(r["status"] == "completed" and r["tester"] == "script" for r in runs.values())
    finally:
        store.close()


@needs_xvfb
def test_bench_play_end_to_end(tmp_path):
    made = tmp_path / "made"
    proc = cli("bench", "make-candidates", str(made), "--apps", "calculator")
    assert proc.returncode == 0, proc.stderr
    assert "calculator: 5 candidates" in proc.stdout
    cands = tmp_path / "cands" / "calculator"
    cands.mkdir(parents=True)
    for name in ("reference", "wrong-subtraction"):
        (made / "calculator" / name).rename(cands / name)
    broken = cands / "broken"
    broken.mkdir()
    (broken / "main.py").write_text('raise RuntimeError("this candidate does not start")\n')
    out = tmp_path / "play.json"
    proc = cli("bench", "play", "--candidates", str(tmp_path / "cands"), "--k", "1,2", "--tester", "script",
               "--max-steps", "8", "--jobs", "2", "--json", str(out), "--db", str(tmp_path / "play.db"))
    assert proc.returncode == 0, proc.stderr
    s = json.loads(out.read_text())
    by_name = {c["candidate"]: c for c in s["candidates"]}
    assert by_name["reference"]["passed_tests"] is True and by_name["reference"]["exec_ok"] == [True]
    assert by_name["reference"]["verdicts"] == ["pass"]
    assert by_name["wrong-subtraction"]["passed_tests"] is False
    assert by_name["wrong-subtraction"]["exec_ok"] == [True] and by_name["wrong-subtraction"]["verdicts"] == ["fail"]
    assert by_name["broken"]["passed_tests"] is True        # its logic module is the reference's
    assert by_name["broken"]["exec_ok"] == [False] and by_name["broken"]["verdicts"] == ["fail"]
    m = s["metrics"]
    # n = 3; Exec c = 2, Pass c = 2, Play c = 1
    assert m["Exec@1"]["mean"] == pytest.approx(2 / 3) and m["Pass@1"]["mean"] == pytest.approx(2 / 3)
    assert m["Play@1"]["mean"] == pytest.approx(1 / 3)
    assert m["Exec@2"]["mean"] == 1.0 and m["Play@2"]["mean"] == pytest.approx(2 / 3)
    assert "| Play@1 | 0.333 | n/a (1 repeat) |" in proc.stdout
    assert "Efficiency@k omitted" in proc.stdout


def test_bench_commands_refuse_bad_arguments(tmp_path):
    proc = cli("bench", "play", "--candidates", str(tmp_path), "--k", "one")
    assert proc.returncode == 2 and "--k must be comma-separated" in proc.stderr
    proc = cli("bench", "detect", "--apps", "nope", "--db", str(tmp_path / "x.db"))
    assert proc.returncode == 2 and "unknown app(s) nope" in proc.stderr
    proc = cli("bench", "detect", "--tester", "psychic", "--db", str(tmp_path / "x.db"))
    assert proc.returncode == 2 and "unknown tester 'psychic'" in proc.stderr


def test_perf_reads_the_target_lines_of_every_benchmark_style():
    from benchmark.perf import parse

    text = (
        "engine overhead per step (capture, 200 steps): median 12.1 ms, p90 20.0 ms  [target <= 30 ms: OK]\n"
        "action -> settled observation (key press): median 160.2 ms, p90 170.0 ms  [target <= 150 ms: MISS]\n"
        "window capture 800x600 sustained 10 s: 240 frames/s  [target >= 60: OK]\n"
        "resident memory:                               512.0 MB   (target <= 400 MB)\n"
        "next step (new frame decoded), median:          7.10 ms   (target <= 16 ms; p95 9.2 ms)\n"
        '{"rss_mb": 512.0}\n'
        "Engine overhead per LLM step (prompt, images; server time removed)\n"
        "  openai: tester loop, 480x560 frames      median   12.0 ms   p90   20.0 ms   (10 steps)\n"
        "  anthropic: tester loop, 480x560 frames   median   14.5 ms   p90   20.0 ms   (10 steps)\n"
        "  target median <= 50 ms: met\n"
    )
    rows = [(r.name, r.value, r.target, r.status) for r in parse("b", text)]
    assert rows == [
        ("engine overhead per step", "median 12.1 ms, p90 20.0 ms", "<= 30 ms", "OK"),
        ("action -> settled observation", "median 160.2 ms, p90 170.0 ms", "<= 150 ms", "MISS"),
        ("window capture 800x600 sustained 10 s", "240 frames/s", ">= 60", "OK"),
        ("resident memory", "512.0 MB", "<= 400 MB", "MISS"),
        ("next step, median", "7.10 ms", "<= 16 ms", "OK"),
        ("Engine overhead per LLM step", "worst median 14.5 ms", "<= 50 ms", "OK"),
    ]


def test_repair_rate_counts_every_variant_by_half():
    from benchmark import repair_rate

    assert repair_rate.classify({"fixed": True, "final_verdict": "pass", "iterations": [{}]}, 0) == "fixed"
    assert repair_rate.classify({"fixed": True, "final_verdict": "pass", "iterations": []}, 0) == "not detected"
    assert repair_rate.classify({"fixed": False, "final_verdict": "fail", "iterations": [{}]}, 1) == "not fixed"
    assert repair_rate.classify({"fixed": False, "final_verdict": "uncertain", "iterations": []}, 1) == "no answer"
    assert repair_rate.classify({}, 2) == "no answer"

    def row(variant: str, split: str, outcome: str, refused: int = 0) -> dict:
        return {"variant": variant, "split": split, "outcome": outcome, "fixed": outcome == "fixed",
                "detected": outcome in ("fixed", "not fixed"), "iterations": 1, "refused": refused, "seconds": 3.0,
                "same_as_reference": outcome == "fixed", "patch": "", "reason": "r"}

    rows = [row("a@1", "tuning", "fixed"), row("a@2", "tuning", "no answer"), row("b@1", "held-out", "not fixed", 2),
            row("b@2", "held-out", "not detected")]
    t = repair_rate.totals(rows)
    assert t["variants"] == 4 and t["fixed"] == 1 and t["repair_rate"] == 0.25 and t["no_answer"] == 1
    assert t["not_detected"] == 1 and t["refused_patches"] == 2 and t["repair_rate_detected"] == 0.5
    summary = {"refiner": "offline", "max_iterations": 6, "max_steps": 40, "wall_seconds": 9.0,
               "measured_on": {"commit": "abc123", "dirty": False, "date": "2026-01-01"}, "totals": t,
               "by_split": {h: repair_rate.totals([r for r in rows if r["split"] == h]) for h in ("tuning", "held-out")}}
    md = repair_rate.markdown(rows, summary)
    # variants, repair rate, claimed fixed, fixed (held up), template inverse, suppressed, diverges, not fixed, ...
    assert "| tuning | 2 | 50% | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 1 | 1 | 0 |" in md
    assert "| held-out | 2 | 0% | 0 | 0 | 0 | 0 | 0 | 1 | 1 | 0 | 0 | 2 |" in md
    assert "Measured on commit abc123 (tree clean), 2026-01-01" in md and "every variant counts" in md


def test_types_keep_every_reference_and_refuse_unknown_types():
    apps = detect.select_apps("calculator,converter")
    jobs = detect.plan(apps, 1, 0, False, detect.select_types("freeze,no-response"))
    assert [j.target for j in jobs if j.bug is None] == ["calculator", "converter"]
    assert {j.bug.type for j in jobs if j.bug is not None} == {"freeze", "no-response"}
    only_refs = detect.plan(apps, 2, 0, True, detect.select_types("reference"))
    assert [(j.target, j.seed) for j in only_refs] == [("calculator", 0), ("converter", 0), ("calculator", 1),
                                                        ("converter", 1)]
    with pytest.raises(UserError, match="unknown bug type"):
        detect.select_types("freeze,lag")
    assert detect.plan(apps, 1, 0, False, detect.select_types("blank")) == detect.plan(apps, 1, 0, False, {"?"})
