"""Tester accuracy on the labelled bug suite (``playcoder bench detect``).

Every benchmark app is played as its reference (ground truth 'pass') and as
each of its bug variants (ground truth 'fail'), ``runs`` times, by child
processes (:mod:`app.engine.bench.jobs`).  Reported: recall per defect class
(the bug's ``type``) and per difficulty, the false-positive rate on the
references, Krippendorff's alpha (nominal) and Kendall's tau-b of the tester's
verdict against the ground truth, and mean steps and seconds per app.

Runs whose verdict is 'error' (the harness could not play the target: no
Xvfb, a target that never opened a window, a timeout) are not judgments of
the tester: they are counted and shown, and left out of every rate.
"""

from __future__ import annotations

import statistics
import warnings
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
from scipy.stats import kendalltau

from app.engine.study.agreement import nominal_alpha
from app.engine.bench.jobs import ChildRun, prepare_db, run_child, run_parallel
from app.engine.errors import UserError
from app.engine.play.targetspec import BugInfo, list_apps, load_bugs

REFERENCE = "reference"
CODES = {"pass": 1.0, "fail": 0.0}


@dataclass(frozen=True)
class DetectJob:
    app: str
    bug: BugInfo | None
    repeat: int
    seed: int

    @property
    def target(self) -> str:
        return f"{self.app}@{self.bug.id}" if self.bug else self.app

    @property
    def truth(self) -> str:
        return "pass" if self.bug is None else "fail"


@dataclass(frozen=True)
class DetectRow:
    """One played target with its ground truth and what the tester said."""

    app: str
    target: str
    bug: str | None
    type: str
    difficulty: str
    truth: str
    verdict: str
    repeat: int
    seed: int
    steps: int
    seconds: float
    run_id: int | None
    reason: str
    error: str

    @property
    def judged(self) -> bool:
        return self.verdict in CODES

    @property
    def correct(self) -> bool:
        return self.verdict == self.truth


def select_apps(names: str | None) -> list[Path]:
    """The benchmark apps to use: all, or the comma-separated names given (unknown names are an error)."""
    apps = list_apps()
    if not names:
        return apps
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    known = {p.name: p for p in apps}
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise UserError(f"unknown app(s) {', '.join(unknown)}; the benchmark has: {', '.join(known) or 'none'}.")
    return [known[n] for n in wanted]


def plan(apps: list[Path], runs: int, seed: int, vary_seeds: bool) -> list[DetectJob]:
    if runs < 1:
        raise UserError("--runs must be at least 1.")
    jobs = []
    for repeat in range(runs):
        s = seed + repeat if vary_seeds else seed
        for folder in apps:
            jobs.append(DetectJob(folder.name, None, repeat, s))
            jobs.extend(DetectJob(folder.name, bug, repeat, s) for bug in load_bugs(folder))
    return jobs


def run(jobs: list[DetectJob], *, tester: str, max_steps: int, db: Path, parallel: int,
        on_done: Callable[[DetectRow], None] | None = None) -> list[DetectRow]:
    prepare_db(db)

    def call(job: DetectJob) -> Callable[[], DetectRow]:
        return lambda: to_row(job, run_child(job.target, tester=tester, max_steps=max_steps, seed=job.seed, db=db))

    return run_parallel([call(j) for j in jobs], parallel,
                        (lambda i, row: on_done(row)) if on_done is not None else None)


def to_row(job: DetectJob, child: ChildRun) -> DetectRow:
    bug = job.bug
    return DetectRow(job.app, job.target, bug.id if bug else None, bug.type if bug else REFERENCE,
                     bug.difficulty if bug else "", job.truth, child.verdict, job.repeat, job.seed, child.steps,
                     round(child.seconds, 2), child.run_id, child.reason, child.error)


# -- statistics ------------------------------------------------------------------
def _rate(rows: list[DetectRow], hit: str) -> dict[str, Any]:
    judged = [r for r in rows if r.judged]
    hits = sum(r.verdict == hit for r in judged)
    return {"hits": hits, "judged": len(judged), "errors": len(rows) - len(judged),
            "rate": hits / len(judged) if judged else None}


def agreement(rows: list[DetectRow]) -> dict[str, Any]:
    """Krippendorff's alpha (nominal) and Kendall's tau-b, tester vs ground truth, over judged runs."""
    judged = [r for r in rows if r.judged]
    tester = [CODES[r.verdict] for r in judged]
    truth = [CODES[r.truth] for r in judged]
    alpha = nominal_alpha([tester, truth], value_domain=[0.0, 1.0]) if judged else None
    tau: float | None = None
    if len(judged) >= 2:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = float(kendalltau(tester, truth, variant="b").statistic)
        tau = value if np.isfinite(value) else None
    return {"krippendorff_alpha": alpha, "kendall_tau_b": tau, "units": len(judged)}


def summarize(rows: list[DetectRow], *, tester: str, max_steps: int, wall_seconds: float,
              parallel: int) -> dict[str, Any]:
    bugs = [r for r in rows if r.bug is not None]
    refs = [r for r in rows if r.bug is None]
    by_type: dict[str, list[DetectRow]] = defaultdict(list)
    by_difficulty: dict[str, list[DetectRow]] = defaultdict(list)
    by_app: dict[str, list[DetectRow]] = defaultdict(list)
    by_target: dict[str, list[DetectRow]] = defaultdict(list)
    for r in bugs:
        by_type[r.type].append(r)
        by_difficulty[r.difficulty or "?"].append(r)
    for r in rows:
        by_app[r.app].append(r)
        by_target[r.target].append(r)
    apps = {}
    for app, rs in by_app.items():
        app_bugs = [r for r in rs if r.bug is not None]
        apps[app] = {
            "runs": len(rs), "mean_steps": statistics.fmean(r.steps for r in rs),
            "mean_seconds": statistics.fmean(r.seconds for r in rs),
            "bugs_detected": sum(r.verdict == "fail" for r in app_bugs), "bug_runs": len(app_bugs),
            "reference_passes": sum(r.verdict == "pass" for r in rs if r.bug is None),
            "reference_runs": sum(r.bug is None for r in rs),
        }
    targets = {}
    for target, rs in by_target.items():
        first = rs[0]
        targets[target] = {"app": first.app, "bug": first.bug, "type": first.type, "difficulty": first.difficulty,
                           "truth": first.truth, "verdicts": [r.verdict for r in rs],
                           "reason": next((r.reason or r.error for r in rs if r.verdict != first.truth), first.reason)}
    return {
        "tester": tester, "max_steps": max_steps, "jobs": parallel, "runs": len(rows),
        "wall_seconds": round(wall_seconds, 1),
        "recall": _rate(bugs, "fail"),
        "false_positive_rate": _rate(refs, "fail"),
        "recall_by_type": {k: _rate(v, "fail") for k, v in sorted(by_type.items())},
        "recall_by_difficulty": {k: _rate(v, "fail") for k, v in sorted(by_difficulty.items())},
        "agreement": agreement(rows),
        "errors": sum(not r.judged for r in rows),
        "apps": apps, "targets": targets,
    }


def report_json(rows: list[DetectRow], summary: dict[str, Any]) -> dict[str, Any]:
    return {"summary": summary, "runs": [asdict(r) for r in rows]}


# -- Markdown ---------------------------------------------------------------------
def _pct(rate: dict[str, Any]) -> str:
    if rate["rate"] is None:
        return "n/a"
    text = f"{rate['rate']:.0%} ({rate['hits']}/{rate['judged']})"
    return text + (f", {rate['errors']} error" if rate["errors"] else "")


def _num(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def markdown(summary: dict[str, Any]) -> str:
    s = summary
    ag = s["agreement"]
    lines = [
        f"## bench detect — tester `{s['tester']}`, max {s['max_steps']} steps, {s['runs']} runs, "
        f"{s['jobs']} parallel, {s['wall_seconds']:.0f} s wall",
        "",
        "| target | type | difficulty | truth | verdict | reason |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for target, t in s["targets"].items():
        verdicts = ", ".join(t["verdicts"])
        mark = "" if all(v == t["truth"] for v in t["verdicts"]) else " ✗"
        reason = " ".join(str(t["reason"]).split())[:110].replace("|", "/")
        lines.append(f"| {target} | {t['type']} | {t['difficulty'] or '-'} | {t['truth']} | {verdicts}{mark} | {reason} |")
    lines += ["", "| defect class | recall |", "| --- | --- |"]
    lines += [f"| {k} | {_pct(v)} |" for k, v in s["recall_by_type"].items()]
    lines += ["", "| difficulty | recall |", "| --- | --- |"]
    lines += [f"| {k} | {_pct(v)} |" for k, v in s["recall_by_difficulty"].items()]
    lines += ["", "| app | runs | references passed | bugs detected | mean steps | mean seconds |",
              "| --- | --- | --- | --- | --- | --- |"]
    for app, a in s["apps"].items():
        lines.append(f"| {app} | {a['runs']} | {a['reference_passes']}/{a['reference_runs']} | "
                     f"{a['bugs_detected']}/{a['bug_runs']} | {a['mean_steps']:.1f} | {a['mean_seconds']:.1f} |")
    lines += [
        "",
        "| overall | value |", "| --- | --- |",
        f"| recall (bug variants judged fail) | {_pct(s['recall'])} |",
        f"| false-positive rate (references judged fail) | {_pct(s['false_positive_rate'])} |",
        f"| Krippendorff's alpha, nominal (tester vs truth, {ag['units']} runs) | {_num(ag['krippendorff_alpha'])} |",
        f"| Kendall's tau-b (tester vs truth) | {_num(ag['kendall_tau_b'])} |",
        f"| runs without a verdict (error) | {s['errors']} |",
    ]
    return "\n".join(lines) + "\n"
