"""Exec/Pass/Play@k estimators and intervals against values computed by hand."""

from __future__ import annotations

import math

import pytest

from app.engine.bench.metrics import efficiency_at_k, mean_pass_at_k, pass_at_k, t_interval


@pytest.mark.parametrize("n, c, k, expected", [
    (5, 2, 1, 0.4),                      # 1 - C(3,1)/C(5,1) = 1 - 3/5
    (5, 2, 3, 0.9),                      # 1 - C(3,3)/C(5,3) = 1 - 1/10
    (5, 2, 2, 0.7),                      # 1 - C(3,2)/C(5,2) = 1 - 3/10
    (10, 0, 1, 0.0),
    (10, 0, 10, 0.0),
    (10, 10, 1, 1.0),
    (10, 10, 10, 1.0),
    (5, 3, 3, 1.0),                      # n - c = 2 < k = 3: every draw of 3 holds a success
    (4, 1, 4, 1.0),
    (1, 1, 1, 1.0),
    (1, 0, 1, 0.0),
    (200, 13, 1, 13 / 200),              # pass@1 is the success share
])
def test_pass_at_k_matches_hand_values(n, c, k, expected):
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)


def test_pass_at_k_is_exact_for_large_n():
    # 1 - C(900, 50)/C(1000, 50): a float product would drift; the integer ratio does not.
    exact = 1 - math.comb(900, 50) / math.comb(1000, 50)
    assert pass_at_k(1000, 100, 50) == exact


def test_pass_at_k_grows_with_k_and_c():
    assert [pass_at_k(8, 2, k) for k in range(1, 8)] == sorted(pass_at_k(8, 2, k) for k in range(1, 8))
    assert [pass_at_k(8, c, 3) for c in range(9)] == sorted(pass_at_k(8, c, 3) for c in range(9))


@pytest.mark.parametrize("n, c, k", [(5, 6, 1), (5, -1, 1), (5, 2, 0), (5, 2, 6), (0, 0, 1), (5.0, 2, 1), (True, 1, 1)])
def test_pass_at_k_rejects_impossible_arguments(n, c, k):
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


def test_mean_over_problems():
    # problems (n=5, c=2) and (n=10, c=0) and (n=4, c=4): (0.4 + 0 + 1) / 3 at k=1
    assert mean_pass_at_k([(5, 2), (10, 0), (4, 4)], 1) == pytest.approx(1.4 / 3)
    assert mean_pass_at_k([(5, 2), (5, 2)], 3) == pytest.approx(0.9)
    with pytest.raises(ValueError):
        mean_pass_at_k([], 1)


def test_t_interval_by_hand():
    # mean 0.6; sample sd sqrt((0.01 + 0.01 + 0) / 2) = 0.1; se = 0.1 / sqrt(3) = 0.0577350;
    # t(0.975, df=2) = 4.302653 (table value); half width = 0.2484138.
    iv = t_interval([0.5, 0.7, 0.6])
    assert iv.mean == pytest.approx(0.6)
    assert iv.half_width == pytest.approx(4.302653 * 0.1 / math.sqrt(3), abs=1e-6)
    assert iv.low == pytest.approx(0.6 - 0.2484138, abs=1e-6)
    assert iv.high == pytest.approx(0.6 + 0.2484138, abs=1e-6)
    assert iv.n == 3 and iv.text() == "0.600 ± 0.248"


def test_t_interval_other_levels_and_edge_cases():
    # two values 0 and 1: mean 0.5, sd 0.7071068, se 0.5, t(0.95, 1) = 6.313752 for a 90% interval
    iv = t_interval([0.0, 1.0], confidence=0.90)
    assert iv.half_width == pytest.approx(6.313752 * 0.5, abs=1e-5)
    single = t_interval([0.25])
    assert (single.mean, single.low, single.high) == (0.25, None, None)
    assert single.text() == "0.250"
    same = t_interval([0.4, 0.4, 0.4])
    assert same.low == pytest.approx(0.4) and same.high == pytest.approx(0.4)
    with pytest.raises(ValueError):
        t_interval([])


def test_efficiency_at_k():
    # Play@1 = 0.5 with 2,000 tokens per problem: 0.5 / 2 = 0.25 per thousand tokens
    assert efficiency_at_k(0.5, 2000) == pytest.approx(0.25)
    assert efficiency_at_k(0.9, 450) == pytest.approx(2.0)
    with pytest.raises(ValueError):
        efficiency_at_k(0.5, 0)
