"""Agreement between the tester and human annotators, as in the paper's validation study.

Input is plain data (one :class:`Unit` per sampled run: the tester's frozen
verdict and each annotator's label), so the statistics are testable without a
database.  Labels are binary: 'unsure' counts as a missing value.

- inter-human alpha: Krippendorff's alpha, nominal, all annotators, missing allowed;
- the human answer per unit is the majority of pass/fail labels; units with a
  tied majority, only 'unsure' labels or no labels are left out and counted;
- tester-vs-human alpha: the tester as one coder, the majority as the other;
- Kendall's tau-b between the tester and the majority (scipy, variant "b");
- FN rate: share of the tester's successes ('pass') the humans call fail;
  FP rate: share of the tester's failures ('fail') the humans call pass;
- 95% percentile bootstrap intervals over units for the alphas and tau-b.  The
  resampling is stratified by the tester's verdict, because the set was drawn
  that way (a fixed number of successes and of failures);
- the FN and FP rates are proportions, so their intervals are Wilson score
  intervals: a bootstrap of 0 disagreements out of 4 gives [0%, 0%], which
  claims a certainty four units cannot give; Wilson's interval never does.
"""

from __future__ import annotations

import csv
import json
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import krippendorff
import numpy as np
from scipy.stats import binomtest, kendalltau

from app.engine.errors import UserError
from app.engine.study.validation import FAILURE, SUCCESS, Unit

RESAMPLES = 2000
"""Bootstrap resamples per statistic."""
PROGRESS_EVERY = 50
"""Resamples between two progress reports of :func:`compute_agreement`."""
CONFIDENCE = 0.95
MIN_FINITE_SHARE = 0.5
"""An interval is reported only when at least this share of resamples gave a defined value."""
CODES = {"pass": 1.0, "fail": 0.0}
"""Numeric codes of the two answers; 'unsure' and no label are missing (nan)."""


@dataclass(frozen=True)
class Estimate:
    """A statistic, its bootstrap interval and the number of units it rests on; None when undefined."""

    value: float | None
    low: float | None
    high: float | None
    n: int


@dataclass(frozen=True)
class AnnotatorProgress:
    annotator: str
    labelled: int
    total: int
    passes: int
    fails: int
    unsure: int


@dataclass(frozen=True)
class AgreementReport:
    units: int
    annotators: list[AnnotatorProgress]
    alpha_humans: Estimate
    alpha_tester_human: Estimate
    tau_b: Estimate
    fn_rate: Estimate
    fp_rate: Estimate
    confusion: dict[str, dict[str, int]]
    """confusion[tester verdict][human majority] = number of units."""
    excluded: dict[str, int]
    """Units left out of the tester-vs-human statistics: tied, unsure_only, unlabelled."""
    resamples: int
    seed: int
    confidence: float = CONFIDENCE
    name: str = ""

    def statistics(self) -> dict[str, Estimate]:
        return {
            "alpha_humans": self.alpha_humans,
            "alpha_tester_human": self.alpha_tester_human,
            "tau_b": self.tau_b,
            "fn_rate": self.fn_rate,
            "fp_rate": self.fp_rate,
        }

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def majority(labels: Iterable[str]) -> str | None:
    """'pass' or 'fail' when one has more votes, else None ('unsure' does not vote)."""
    values = list(labels)
    passes, fails = values.count("pass"), values.count("fail")
    if passes > fails:
        return "pass"
    if fails > passes:
        return "fail"
    return None


def _exclusion(labels: dict[str, str]) -> str:
    if not labels:
        return "unlabelled"
    if all(v == "unsure" for v in labels.values()):
        return "unsure_only"
    return "tied"


def _value(x: float) -> float | None:
    return None if not np.isfinite(x) else float(x)


def nominal_alpha(data: Sequence[Sequence[float | None]] | np.ndarray,
                  value_domain: Sequence[float] | None = None) -> float | None:
    """Krippendorff's alpha, nominal, of a coders x units table (None or nan = missing).

    None when alpha is undefined: no unit has two values, or every value is the same.
    """
    arr = np.array([[np.nan if v is None else v for v in row] for row in data], dtype=float)
    if arr.size == 0:
        return None
    domain = list(value_domain) if value_domain is not None else sorted(set(arr[np.isfinite(arr)].tolist()))
    if len(domain) < 2:
        return None
    try:
        with np.errstate(all="ignore"):
            value = float(krippendorff.alpha(reliability_data=arr, level_of_measurement="nominal", value_domain=domain))
    except ValueError:  # no unit with two values
        return None
    return _value(value)


def _alpha_reliability(data: np.ndarray) -> float:
    """Nominal alpha of pass/fail codes (nan missing); nan when undefined."""
    value = nominal_alpha(data, value_domain=[0.0, 1.0])
    return float("nan") if value is None else value


def _alpha_counts(counts: np.ndarray) -> float:
    """Nominal alpha from units x (fail, pass) value counts (the bootstrap path, same formula)."""
    if counts.size == 0:
        return float("nan")
    try:
        with np.errstate(all="ignore"):
            return float(krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"))
    except ValueError:
        return float("nan")


def _tau_b(x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 2:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(kendalltau(x, y, variant="b").statistic)


def _rate(tester: np.ndarray, human: np.ndarray, group: float) -> float:
    """Share of units with tester == group whose human answer differs."""
    mask = tester == group
    total = int(mask.sum())
    return float((human[mask] != group).sum() / total) if total else float("nan")


class _Data:
    """The units as arrays, so a bootstrap resample is an index array."""

    def __init__(self, units: Sequence[Unit], coders: list[str]) -> None:
        self.tester = np.array([CODES[u.tester] for u in units], dtype=float)
        self.humans = np.array(
            [[CODES.get(u.labels.get(c, ""), np.nan) for u in units] for c in coders], dtype=float
        ).reshape(len(coders), len(units))
        self.counts = np.stack(
            [np.sum(self.humans == 0.0, axis=0), np.sum(self.humans == 1.0, axis=0)], axis=1
        ).astype(float)
        maj = np.full(len(units), np.nan)
        maj[self.counts[:, 1] > self.counts[:, 0]] = 1.0
        maj[self.counts[:, 0] > self.counts[:, 1]] = 0.0
        self.majority = maj

    def stats(self, idx: np.ndarray, *, point: bool = False) -> dict[str, float]:
        tester, maj = self.tester[idx], self.majority[idx]
        keep = ~np.isnan(maj)
        t, h = tester[keep], maj[keep]
        if point:
            alpha_h = _alpha_reliability(self.humans[:, idx])
            alpha_t = _alpha_reliability(np.vstack([t, h]))
        else:
            alpha_h = _alpha_counts(self.counts[idx])
            pair = np.stack([(t == 0.0).astype(float) + (h == 0.0), (t == 1.0).astype(float) + (h == 1.0)], axis=1)
            alpha_t = _alpha_counts(pair)
        return {
            "alpha_humans": alpha_h,
            "alpha_tester_human": alpha_t,
            "tau_b": _tau_b(t, h),
            "fn_rate": _rate(t, h, 1.0),
            "fp_rate": _rate(t, h, 0.0),
        }


def _interval(samples: list[float], confidence: float) -> tuple[float | None, float | None]:
    arr = np.array(samples, dtype=float)
    finite = arr[np.isfinite(arr)]
    if len(arr) == 0 or len(finite) < MIN_FINITE_SHARE * len(arr):
        return None, None
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(finite, [tail, 100.0 - tail])
    return float(low), float(high)


RATES = {"fn_rate": 1.0, "fp_rate": 0.0}
"""The rate statistics and the tester verdict each one is a share of."""


def _wilson(data: _Data, group: float, confidence: float) -> tuple[float | None, float | None]:
    """Wilson score interval of the share of units with tester == group whose majority differs."""
    keep = ~np.isnan(data.majority) & (data.tester == group)
    n = int(keep.sum())
    if n == 0:
        return None, None
    k = int(np.sum(data.majority[keep] != group))
    ci = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def compute_agreement(
    units: Sequence[Unit], *, resamples: int = RESAMPLES, seed: int = 0, confidence: float = CONFIDENCE,
    name: str = "", progress: Callable[[int, int], None] | None = None,
) -> AgreementReport:
    """Every statistic with its bootstrap interval; see the module docstring for the definitions.

    ``progress(done, resamples)`` is called every :data:`PROGRESS_EVERY` resamples; an exception it raises
    (a cancel) ends the computation."""
    if resamples < 0:
        raise UserError("--resamples must be zero or more.")
    unknown = sorted({u.tester for u in units} - set(CODES))
    if unknown:
        raise UserError(f"The tester verdict '{unknown[0]}' is neither pass nor fail; sample the set again.")
    coders = sorted({c for u in units for c in u.labels})
    data = _Data(units, coders)
    everything = np.arange(len(units))
    point = data.stats(everything, point=True)
    samples: dict[str, list[float]] = {k: [] for k in point}
    rng = np.random.default_rng(seed)
    groups = [np.flatnonzero(data.tester == code) for code in (1.0, 0.0)]
    for i in range(resamples if len(units) else 0):
        if progress is not None and i % PROGRESS_EVERY == 0:
            progress(i, resamples)
        idx = np.concatenate([rng.choice(g, size=len(g), replace=True) for g in groups if len(g)])
        for key, value in data.stats(idx).items():
            samples[key].append(value)
    keep = ~np.isnan(data.majority)
    sizes = {
        "alpha_humans": int(np.sum(data.counts.sum(axis=1) >= 2)),
        "alpha_tester_human": int(keep.sum()),
        "tau_b": int(keep.sum()),
        "fn_rate": int(np.sum(keep & (data.tester == 1.0))),
        "fp_rate": int(np.sum(keep & (data.tester == 0.0))),
    }
    estimates = {
        key: Estimate(_value(point[key]), *_interval(samples[key], confidence), n=sizes[key]) for key in point
    }
    for key, group in RATES.items():
        estimates[key] = Estimate(_value(point[key]), *_wilson(data, group, confidence), n=sizes[key])
    confusion = {
        t: {h: int(np.sum((data.tester == CODES[t]) & (data.majority == CODES[h]))) for h in (SUCCESS, FAILURE)}
        for t in (SUCCESS, FAILURE)
    }
    excluded = {"tied": 0, "unsure_only": 0, "unlabelled": 0}
    for unit, has_majority in zip(units, keep):
        if not has_majority:
            excluded[_exclusion(unit.labels)] += 1
    return AgreementReport(
        units=len(units), annotators=_progress(units, coders), confusion=confusion, excluded=excluded,
        resamples=resamples, seed=seed, confidence=confidence, name=name, **estimates,
    )


def _progress(units: Sequence[Unit], coders: list[str]) -> list[AnnotatorProgress]:
    out = []
    for coder in coders:
        labels = [u.labels[coder] for u in units if coder in u.labels]
        out.append(AnnotatorProgress(coder, len(labels), len(units), labels.count("pass"),
                                     labels.count("fail"), labels.count("unsure")))
    return out


# -- export ---------------------------------------------------------------------------------
STAT_TITLES = {
    "alpha_humans": "Krippendorff's alpha between annotators (nominal)",
    "alpha_tester_human": "Krippendorff's alpha, tester vs human majority (nominal)",
    "tau_b": "Kendall's tau-b, tester vs human majority",
    "fn_rate": "FN rate: tester pass, humans fail",
    "fp_rate": "FP rate: tester fail, humans pass",
}


def report_json(report: AgreementReport) -> str:
    return json.dumps(report.to_dict(), indent=2)


def write_report_csv(report: AgreementReport, path: Path) -> None:
    """Long format: one row per statistic, confusion cell, exclusion count and annotator."""
    rows: list[list[Any]] = []
    for key, est in report.statistics().items():
        rows.append(["statistic", key, est.value, est.low, est.high, est.n])
    for tester, row in report.confusion.items():
        for human, count in row.items():
            rows.append(["confusion", f"tester={tester} human={human}", count, "", "", ""])
    for reason, count in report.excluded.items():
        rows.append(["excluded", reason, count, "", "", ""])
    for p in report.annotators:
        rows.append(["labelled", p.annotator, p.labelled, "", "", p.total])
    try:
        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["section", "name", "value", "ci_low", "ci_high", "n"])
            writer.writerows(["" if v is None else v for v in row] for row in rows)
    except OSError as exc:
        raise UserError(f"Cannot write {path} ({exc.strerror}); choose another file.") from exc
