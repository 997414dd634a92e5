"""Mutation scores by the book (benchmark/scoring.py): Stryker's categories, coverage decides what was reached,
recall over the reached mutants; a reference run passes only if it played."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark import corpus_bench, scoring
from benchmark.mutants import load_manifest


def _run(mutant, verdict, reached, reason="", kind="mutant", **extra):
    return {"kind": kind, "program": mutant.program, "split": "tune", "operator": mutant.operator,
            "mutant": mutant.id, "seed": 0, "verdict": verdict, "reason": reason, "reached": reached, "run_id": 1,
            "seconds": 1.0, **extra}


@pytest.fixture(scope="module")
def five():
    return load_manifest()[:5]


def test_each_mutant_run_gets_one_stryker_category_and_coverage_decides_not_reached(five):
    a, b, c, d, e = five
    rows = [_run(a, "fail", True), _run(b, "pass", True), _run(c, "uncertain", True),
            _run(d, "fail", False), _run(e, "error", True, reason="the run took longer than 255 s")]
    reached = scoring.reached_anywhere(rows)
    got = [scoring.mutant_category(r, reached, {}) for r in rows]
    # a fail whose line never ran in any play is not reached: it cannot have been seen, whatever the verdict
    assert got == [scoring.KILLED, scoring.SURVIVED, scoring.SURVIVED, scoring.NOT_REACHED, scoring.TIMEOUT]
    assert scoring.mutant_category(_run(e, "error", True, reason="exit 1: boom"), reached, {}) == scoring.ERROR
    # reached in another play (another tester's, another seed) is reached: coverage is not a verdict
    assert scoring.mutant_category(_run(d, "pass", False), reached | {d.id}, {}) == scoring.SURVIVED
    assert scoring.mutant_category(rows[0], reached, {a.id: "why"}) == scoring.EQUIVALENT


def test_recall_is_killed_over_reached_with_the_not_reached_share_beside_it(five):
    a, b, c, d, e = five
    rows = [_run(a, "fail", True), _run(b, "pass", True), _run(c, "fail", True), _run(d, "pass", False),
            _run(e, "error", True)]
    s = scoring.score(rows, {c.id: "listed"})
    assert (s["mutants"], s[scoring.KILLED], s[scoring.SURVIVED], s[scoring.NOT_REACHED], s[scoring.ERROR],
            s[scoring.EQUIVALENT]) == (5, 1, 1, 1, 1, 1)
    assert s["reached"] == 3 and s["recall"] == round(1 / 3, 4) and s["not_reached_share"] == 0.2
    assert scoring.mutant_line("all", s) == "| all | 5 | 1 | 1 | 1 | 0 | 1 | 1 | 33% (1/3) | 20% (1/5) |"


def test_a_reference_run_passes_only_if_it_played(five):
    m = five[0]
    ref = {"kind": "reference"}
    cases = [("behaved as the reference did: 72 settled screens compared after the same inputs over 71 steps", "pass"),
             ("behaved as the reference did: 1 settled screens compared after the same inputs over 2 steps",
              "not played"),
             ("no generic defect seen (crash) in 439 steps over 1 distinct screens", "not played"),
             ("no generic defect seen (crash) in 9 steps over 4 distinct screens", "not played"),
             ("no generic defect seen (crash) in 15 steps over 15 distinct screens", "pass")]
    for reason, want in cases:
        assert scoring.reference_category(_run(m, "pass", None, reason=reason, **ref)) == want, reason
    assert scoring.reference_category(_run(m, "fail", None, reason="1 step", **ref)) == scoring.FALSE_POSITIVE
    assert scoring.reference_category(_run(m, "pass", None, steps=12, screens=5, **ref)) == scoring.PASS
    assert scoring.reference_category(_run(m, "pass", None, steps=12, screens=4, **ref)) == scoring.NOT_PLAYED


def test_rescore_counts_a_results_file_again_without_playing(tmp_path: Path, five):
    a, b, c, d, _ = five
    rows = [_run(a, "fail", True), _run(b, "pass", True), _run(c, "pass", False),
            _run(d, "pass", None, reason="behaved as the reference did: 3 settled screens compared after the same "
                                         "inputs over 40 steps", kind="reference")]
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"tester": "differential", "command": "python -m benchmark.corpus_bench",
                               "measured_on": {"commit": "a" * 40, "dirty": False, "date": "2026-11-29"},
                               "runs": rows}), encoding="utf-8")
    out_json, out_md = tmp_path / "n.json", tmp_path / "n.md"
    assert corpus_bench.main(["--rescore", str(old), "--json", str(out_json), "--md", str(out_md)]) == 0
    data = json.loads(out_json.read_text(encoding="utf-8"))
    s = data["summary"]["all"]
    assert (s[scoring.KILLED], s[scoring.SURVIVED], s[scoring.NOT_REACHED], s["recall"]) == (1, 1, 1, 0.5)
    assert s["references_by"][scoring.NOT_PLAYED] == 1 and s["references_by"][scoring.PASS] == 0
    assert data["measured_on"]["commit"] == "a" * 40 and "commit" in data["counted_on"]
    md = out_md.read_text(encoding="utf-8")
    assert "| **all** | 3 | 1 | 1 | 1 | 0 | 0 | 0 | 50% (1/2) | 33% (1/3) |" in md
    assert "| **all** | 1 | 0% (0/1) | 1 | 0 | 0 | 0 |" in md


def test_a_file_that_is_not_a_corpus_result_ends_in_one_sentence(tmp_path: Path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    assert corpus_bench.main(["--rescore", str(bad)]) == 2
    assert "is not a corpus_bench results file" in capsys.readouterr().err


def test_every_equivalent_mutant_is_in_the_manifest_with_a_reason():
    listed = scoring.load_equivalent()
    ids = {m.id for m in load_manifest()}
    assert listed and set(listed) <= ids
    assert all(len(why) > 20 for why in listed.values())
