"""Exec@k / Pass@k / Play@k estimators, means over problems, Student-t intervals, Efficiency@k.

The estimator is the unbiased one of Chen et al. (2021) that the PlayCoder
paper uses: with n candidates for a problem of which c succeed,
``pass@k = 1 - C(n - c, k) / C(n, k)``, the chance that at least one of k
candidates drawn without replacement succeeds.  It is computed exactly with
integers (math.comb), so no floating-point product is involved.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from scipy import stats

CONFIDENCE = 0.95


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one problem: 0.0 when c == 0, 1.0 when n - c < k.

    Raises ValueError unless 0 <= c <= n and 1 <= k <= n (with fewer than k
    candidates the estimator is undefined; give the problem more candidates).
    """
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (n, c, k)):
        raise ValueError("n, c and k must be integers")
    if n < 1 or not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n and n >= 1, got n={n}, c={c}")
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and n={n}, got {k}")
    if c == 0:
        return 0.0
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def mean_pass_at_k(counts: Iterable[tuple[int, int]], k: int) -> float:
    """Mean of pass@k over problems given as (n, c) pairs."""
    values = [pass_at_k(n, c, k) for n, c in counts]
    if not values:
        raise ValueError("no problems to average")
    return sum(values) / len(values)


@dataclass(frozen=True)
class Interval:
    """A mean with its two-sided Student-t interval; low/high are None with fewer than 2 values."""

    mean: float
    low: float | None
    high: float | None
    n: int
    confidence: float = CONFIDENCE

    @property
    def half_width(self) -> float | None:
        return None if self.high is None else self.high - self.mean

    def text(self, digits: int = 3) -> str:
        if self.half_width is None:
            return f"{self.mean:.{digits}f}"
        return f"{self.mean:.{digits}f} ± {self.half_width:.{digits}f}"


def t_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """Mean and Student-t interval mean ± t(1-α/2, n-1) · s / √n over repeated runs (s: sample sd)."""
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    mean = sum(values) / n
    if n < 2:
        return Interval(mean, None, None, n, confidence)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = float(stats.t.ppf(1 - (1 - confidence) / 2, n - 1)) * sd / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, n, confidence)


def efficiency_at_k(play_at_k: float, tokens_per_problem: float) -> float:
    """Play@k per thousand tokens spent per problem (the paper's Efficiency@k)."""
    if tokens_per_problem <= 0:
        raise ValueError("tokens per problem must be positive")
    return play_at_k / (tokens_per_problem / 1000.0)
