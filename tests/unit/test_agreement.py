"""Agreement statistics against published values (Krippendorff 2011) and by construction."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from scipy.stats import kendalltau

from app.engine.study.agreement import compute_agreement, majority, nominal_alpha, report_json, write_report_csv
from app.engine.study.validation import Unit

# Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School for
# Communication Departmental Papers 43.  Section A: binary data, two observers, no missing data.
BINARY_A = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
BINARY_B = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
# Section B: nominal data, two observers, no missing data (values a..e).
NOMINAL_BEN = list("aabbdcccedda")
NOMINAL_GERRY = list("babbbccceddd")
# Section C: nominal data, any number of observers, missing data (observers A..D, units 1..12).
M = None
FOUR_OBSERVERS = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, M, M, M],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, M, 3],
    [M, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, M],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, M],
]


def codes(values: list[str]) -> list[int]:
    return ["abcde".index(v) + 1 for v in values]


def test_published_binary_two_observers():
    assert round(nominal_alpha([BINARY_A, BINARY_B]), 3) == 0.095


def test_published_nominal_two_observers():
    assert round(nominal_alpha([codes(NOMINAL_BEN), codes(NOMINAL_GERRY)]), 3) == 0.692


def test_published_nominal_four_observers_missing_data():
    assert round(nominal_alpha(FOUR_OBSERVERS), 3) == 0.743


def test_undefined_alpha_is_none():
    assert nominal_alpha([[1, 1, 1], [1, 1, 1]]) is None
    assert nominal_alpha([[1, M], [M, 0]]) is None
    assert nominal_alpha([]) is None


def test_binary_example_through_both_report_paths():
    """The published binary data as tester vs one annotator, and as two annotators."""
    word = {0: "fail", 1: "pass"}
    units = [Unit(i, word[a], {"gerry": word[b]}) for i, (a, b) in enumerate(zip(BINARY_A, BINARY_B))]
    report = compute_agreement(units, resamples=200, seed=1)
    assert round(report.alpha_tester_human.value, 3) == 0.095
    assert report.alpha_humans.value is None and report.alpha_humans.n == 0  # one annotator: no pairs
    two = [Unit(i, "pass", {"ben": word[a], "gerry": word[b]}) for i, (a, b) in enumerate(zip(BINARY_A, BINARY_B))]
    assert round(compute_agreement(two, resamples=0).alpha_humans.value, 3) == 0.095


def test_majority_and_exclusions():
    assert majority(["pass", "pass", "fail"]) == "pass"
    assert majority(["fail", "unsure", "unsure"]) == "fail"
    assert majority(["pass", "fail", "unsure"]) is None
    assert majority(["unsure"]) is None and majority([]) is None
    units = [
        Unit(1, "pass", {"a": "pass", "b": "pass", "c": "fail"}),
        Unit(2, "pass", {"a": "pass", "b": "fail"}),               # tied
        Unit(3, "fail", {"a": "unsure", "b": "unsure"}),           # unsure only
        Unit(4, "fail", {}),                                       # unlabelled
        Unit(5, "fail", {"a": "pass", "c": "unsure"}),
        Unit(6, "fail", {"a": "fail", "b": "fail", "c": "fail"}),
        Unit(7, "pass", {"a": "fail", "b": "fail"}),
    ]
    report = compute_agreement(units, resamples=100, seed=3)
    assert report.excluded == {"tied": 1, "unsure_only": 1, "unlabelled": 1}
    assert report.confusion == {"pass": {"pass": 1, "fail": 1}, "fail": {"pass": 1, "fail": 1}}
    assert report.fn_rate.value == 0.5 and report.fn_rate.n == 2
    assert report.fp_rate.value == 0.5 and report.fp_rate.n == 2
    assert report.tau_b.n == 4
    # inter-human alpha: 'unsure' is missing, all annotators, missing allowed
    table = [
        ["pass", "pass", "unsure", "", "pass", "fail", "fail"],
        ["pass", "fail", "unsure", "", "", "fail", "fail"],
        ["fail", "", "", "", "unsure", "fail", ""],
    ]
    num = [[{"pass": 1, "fail": 0}.get(v) for v in row] for row in table]
    assert report.alpha_humans.value == pytest.approx(nominal_alpha(num))
    progress = {p.annotator: p for p in report.annotators}
    assert (progress["a"].labelled, progress["a"].unsure, progress["a"].total) == (6, 1, 7)
    assert progress["c"].labelled == 3


def test_tau_b_and_alpha_match_scipy_and_krippendorff_on_random_data():
    rng = np.random.default_rng(5)
    tester = rng.integers(0, 2, 60)
    human = np.where(rng.random(60) < 0.8, tester, 1 - tester)
    word = {0: "fail", 1: "pass"}
    units = [Unit(i, word[int(t)], {"h": word[int(h)]}) for i, (t, h) in enumerate(zip(tester, human))]
    report = compute_agreement(units, resamples=0)
    assert report.tau_b.value == pytest.approx(kendalltau(tester, human, variant="b").statistic)
    assert report.alpha_tester_human.value == pytest.approx(nominal_alpha([tester.tolist(), human.tolist()]))
    assert report.tau_b.low is None  # no resamples, no interval


def test_bootstrap_is_seeded_and_covers_the_estimate():
    units = [Unit(i, "pass" if i < 50 else "fail",
                  {"a": "pass" if (i < 42 or 50 <= i < 53) else "fail", "b": "pass" if (i < 40 or 50 <= i < 54) else "fail"})
             for i in range(100)]
    one = compute_agreement(units, resamples=500, seed=9)
    two = compute_agreement(units, resamples=500, seed=9)
    three = compute_agreement(units, resamples=500, seed=10)
    assert one == two and one != three
    for est in one.statistics().values():
        assert est.value is not None and est.low is not None and est.high is not None
        assert est.low <= est.value <= est.high
    assert 0.0 <= one.fn_rate.low < one.fn_rate.high <= 1.0


def test_exports(tmp_path):
    truth = ["pass" if i % 3 else "fail" for i in range(30)]
    units = [Unit(i, "pass" if i % 2 else "fail", {"a": t, "b": t, "c": "pass"}) for i, t in enumerate(truth)]
    report = compute_agreement(units, resamples=50, seed=1, name="s")
    data = json.loads(report_json(report))
    assert data["name"] == "s" and data["fn_rate"]["n"] == report.fn_rate.n
    assert set(data) >= {"alpha_humans", "alpha_tester_human", "tau_b", "fn_rate", "fp_rate", "confusion", "excluded"}
    write_report_csv(report, tmp_path / "r.csv")
    with open(tmp_path / "r.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    stats = {r["name"]: r for r in rows if r["section"] == "statistic"}
    assert float(stats["fp_rate"]["value"]) == pytest.approx(report.fp_rate.value)
    assert float(stats["tau_b"]["ci_low"]) == pytest.approx(report.tau_b.low)
    assert {r["name"] for r in rows if r["section"] == "labelled"} == {"a", "b", "c"}


def test_empty_set_gives_undefined_statistics():
    report = compute_agreement([], resamples=10)
    assert all(est.value is None for est in report.statistics().values())
    assert report.units == 0


def test_rate_interval_is_wilson_and_never_zero_width_when_no_disagreement():
    """Four passes the humans all call pass: FN rate 0, but its interval is not [0, 0]."""
    units = [Unit(i, "pass", {"ann": "pass"}) for i in range(4)] + [Unit(9, "fail", {"ann": "pass"})]
    report = compute_agreement(units, resamples=200, seed=0)
    assert report.fn_rate.value == 0.0 and report.fn_rate.n == 4
    assert report.fn_rate.low == pytest.approx(0.0, abs=1e-12)
    # Wilson score upper bound for 0/4 at 95%: z^2 / (n + z^2)
    z2 = 1.959963984540054 ** 2
    assert report.fn_rate.high == pytest.approx(z2 / (4 + z2), rel=1e-6)
    assert report.fp_rate.value == 1.0 and report.fp_rate.low < 1.0 == report.fp_rate.high
