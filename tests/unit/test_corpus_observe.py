"""benchmark/corpus_observe.py: which corpus mutants are observable, and recall over them per tester."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark import corpus_observe as co
from benchmark.mutants import load_manifest


def _run(mutant, verdict, reached, tester="differential", **extra):
    return {"kind": "mutant", "program": mutant.program, "split": "test", "operator": mutant.operator,
            "mutant": mutant.id, "seed": 0, "verdict": verdict, "reason": "", "reached": reached, "run_id": 1,
            "seconds": 1.0, "tester": tester, **extra}


@pytest.fixture(scope="module")
def four():
    return load_manifest()[:4]


def test_a_difference_seen_with_the_line_reached_makes_a_mutant_observable(four):
    m = four[0]
    assert co.decide([_run(m, "fail", True)]) == co.OBSERVABLE
    # a fail whose mutated line did not run in that run is no evidence of the mutant
    assert co.decide([_run(m, "fail", False)]) == co.NEVER_REACHED
    # an offline tester's fail is not the differential judge's difference
    assert co.decide([_run(m, "fail", True, tester="offline")]) == co.NOT_OBSERVABLE
    assert co.decide([_run(m, "pass", True)]) == co.NOT_OBSERVABLE
    assert co.decide([_run(m, "pass", True), _run(m, "fail", True, long=True)]) == co.OBSERVABLE
    assert co.decide([_run(m, "pass", True), _run(m, "error", False, long=True)]) == co.UNDECIDED


def test_long_runs_are_played_only_for_what_the_results_leave_open(four):
    m = four[0]
    assert not co.wants_long_run([_run(m, "fail", True)], include_unreached=False)
    assert co.wants_long_run([_run(m, "pass", True)], include_unreached=False)
    assert not co.wants_long_run([_run(m, "pass", False)], include_unreached=False)
    assert co.wants_long_run([_run(m, "pass", False)], include_unreached=True)


def test_the_report_gives_each_testers_recall_over_the_observable_mutants(tmp_path: Path, four):
    a, b, c, d = four
    differential = [_run(a, "fail", True), _run(b, "pass", True), _run(c, "fail", True), _run(d, "pass", False)]
    offline = [_run(a, "fail", True), _run(b, "fail", True), _run(c, "pass", True), _run(d, "pass", False)]
    files = []
    for tester, rows in (("differential", differential), ("offline", offline)):
        path = tmp_path / f"{tester}.json"
        path.write_text(json.dumps({"tester": tester, "measured_on": {}, "runs": rows}), encoding="utf-8")
        files.append(str(path))
    out_json, out_md = tmp_path / "o.json", tmp_path / "o.md"
    assert co.main([*files, "--no-play", "--json", str(out_json), "--md", str(out_md)]) == 0
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data["classes"] == {a.id: co.OBSERVABLE, b.id: co.NOT_OBSERVABLE, c.id: co.OBSERVABLE,
                               d.id: co.NEVER_REACHED}
    assert data["counts"] == {co.OBSERVABLE: 2, co.NOT_OBSERVABLE: 1, co.NEVER_REACHED: 1, co.UNDECIDED: 0}
    diff, off = data["summary"]["differential"]["all"], data["summary"]["offline"]["all"]
    assert (diff["observable"], diff["caught_observable"], diff["caught_not_observable"]) == (2, 2, 0)
    assert (off["observable"], off["caught_observable"], off["caught_not_observable"]) == (2, 1, 1)
    md = out_md.read_text(encoding="utf-8")
    assert "| offline | **all** | 4 | 2 | 50% (2/4) | 67% (2/3) | 50% (1/2) | 1 |" in md


def test_a_file_that_is_not_a_corpus_result_ends_in_one_sentence(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    with pytest.raises(SystemExit, match="is not a corpus_bench results file"):
        co.main([str(bad), "--no-play"])
