"""Tester accuracy on the labelled bug suite (``playcoder bench detect``).

Every benchmark app is played as its reference (ground truth 'pass') and as
each of its bug variants (ground truth 'fail'), ``runs`` times, by child
processes (:mod:`app.engine.bench.jobs`).  Reported: recall per defect class
(the bug's ``type``) and per difficulty, the false-positive rate on the
references, Krippendorff's alpha (nominal) and Kendall's tau-b of the tester's
verdict against the ground truth, and mean steps and seconds per app.

Every rate counts every run.  A run without an answer — verdict 'error' (the
harness could not play the target, or the tester gave up: no Xvfb, no
window, a timeout, a model that answered nothing usable) or 'uncertain' (the
tester judged no criterion) — is shown in its own column and counts as a
miss: not a detection for recall, not a pass for the reference pass rate,
and as the wrong answer in alpha and tau-b.  The false-positive rate is the
share of *all* reference runs judged 'fail'.

Bug variants are reported by half too (:mod:`app.engine.bench.split`):
tuning and held-out.  The Markdown and the JSON name the commit measured.

Long-run bugs (``long = true`` in ``bugs.toml``: a crash after two minutes,
a flash every twenty seconds) are played only with ``long``, each for its
declared ``duration_s`` instead of ``max_steps`` steps, and the reference of
an app that has any for the longest of its durations (whatever ``types``
selects), so that a reference that fails late counts as a false positive.
Without ``long`` they are listed as skipped.

``duration`` (``--duration S``) bounds every other run by S seconds of play
instead of ``max_steps`` steps (a fixed wall-clock budget per run); a
long-run bug keeps its own, longer duration.  ``no_script`` (``--no-script``,
differential tester only) plays no ``[[script]]`` steps first: the tester
explores on its own, which is the explore-only recall.  Recall is also given
per suite (``benchmark/apps``, ``benchmark/wild``) and per suite and kind.
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
from app.engine.bench.executors import Executor, LocalExecutor, PlayTask
from app.engine.bench.jobs import ChildRun
from app.engine.bench.provenance import describe_commit, measured_on
from app.engine.bench.split import SPLITS, split_of
from app.engine.judge.verdict import ERROR, UNCERTAIN, is_answer
from app.engine.errors import TargetError, UserError
from app.engine.play.targetspec import APPS_DIR, WILD_DIR, BugInfo, app_folder, list_apps, load_bugs

REFERENCE = "reference"
CODES = {"pass": 1.0, "fail": 0.0}
COUNTING = ("every rate counts every run; runs without an answer (verdict error or uncertain) are shown in their "
            "own column and count as misses: not detected for recall, not passed for references, and as the wrong "
            "answer in alpha and tau-b")


@dataclass(frozen=True)
class DetectJob:
    app: str
    bug: BugInfo | None
    repeat: int
    seed: int
    duration_s: float | None = None
    """Play for this many seconds instead of ``max_steps`` steps (a long-run bug, or its app's reference)."""
    folder: Path | None = None
    """The app's folder when it is not a bundled app (a test's own target): the target is named by its path."""

    @property
    def target(self) -> str:
        base = str(self.folder) if self.folder is not None else self.app
        return f"{base}@{self.bug.id}" if self.bug else base

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
    split: str = ""
    """tuning | held-out for a bug variant, '' for a reference"""
    duration_s: float | None = None
    """The run was bounded by this many seconds, not by steps (long runs)."""

    @property
    def judged(self) -> bool:
        """The tester answered (pass or fail); error and uncertain are no answer."""
        return is_answer(self.verdict)

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


def select_types(text: str | None) -> set[str] | None:
    """The bug types to play (comma-separated), or None for all; unknown types are an error."""
    if not text:
        return None
    wanted = {t.strip() for t in text.split(",") if t.strip()}
    # Known in the whole benchmark (a type the chosen apps happen not to have selects nothing there).
    known = {bug.type for folder in list_apps() for bug in load_bugs(folder)} | {REFERENCE}  # 'reference': refs only
    unknown = sorted(wanted - known)
    if unknown:
        raise UserError(f"unknown bug type(s) {', '.join(unknown)}; the benchmark has: {', '.join(sorted(known))}.")
    return wanted


def plan(apps: list[Path], runs: int, seed: int, vary_seeds: bool,
         types: set[str] | None = None, long: bool = False, duration: float | None = None) -> list[DetectJob]:
    """Every reference and every bug variant (of ``types``, when given: references are always played,
    so a false positive is never filtered away).  Long-run bugs only with ``long`` (see the module docstring)."""
    if runs < 1:
        raise UserError("--runs must be at least 1.")
    jobs = []
    for repeat in range(runs):
        s = seed + repeat if vary_seeds else seed
        for folder in apps:
            bugs = [bug for bug in _selected(folder, types) if long or not bug.long]
            longest = max((bug.duration_s for bug in _selected(folder, None) if bug.duration_s is not None),
                          default=None) if long else None
            own = None if folder.parent.resolve() in _SUITES else folder
            jobs.append(DetectJob(folder.name, None, repeat, s, _longer(longest, duration), own))
            jobs.extend(DetectJob(folder.name, bug, repeat, s, _longer(bug.duration_s, duration), own) for bug in bugs)
    return jobs


_SUITES = frozenset(p.resolve() for p in (APPS_DIR, WILD_DIR))
"""The bundled suites: an app folder elsewhere is played by its path."""


def _longer(a: float | None, b: float | None) -> float | None:
    """The longer of two optional durations (None: bounded by steps)."""
    given = [v for v in (a, b) if v is not None]
    return max(given) if given else None


def skipped_long(apps: list[Path], types: set[str] | None = None) -> list[str]:
    """The long-run variants (of ``types``) that a plan without ``long`` leaves out, as APP@BUG."""
    return [f"{folder.name}@{bug.id}" for folder in apps for bug in _selected(folder, types) if bug.long]


def _selected(folder: Path, types: set[str] | None) -> list[BugInfo]:
    return [bug for bug in load_bugs(folder) if types is None or bug.type in types]


def run(jobs: list[DetectJob], *, tester: str, max_steps: int, db: Path, parallel: int,
        on_done: Callable[[DetectRow], None] | None = None, executor: Executor | None = None,
        no_script: bool = False) -> list[DetectRow]:
    """Play every job (``executor``: local children by default, or Ray) with its runs in ``db``; rows in job order.

    ``no_script``: the differential tester plays no ``[[script]]`` steps first (explore only)."""
    # Differential play compares a reference with itself (a bug variant with its reference, by default).
    tasks = [PlayTask(j.target, tester, max_steps, j.seed,
                      str(j.folder or app_folder(j.app)) if j.bug is None else None,
                      duration_s=j.duration_s, no_script=no_script) for j in jobs]
    done = (lambda i, child: on_done(to_row(jobs[i], child))) if on_done is not None else None
    played = (executor or LocalExecutor(parallel)).play(tasks, db, done)
    return [to_row(j, child) for j, child in zip(jobs, played)]


def to_row(job: DetectJob, child: ChildRun) -> DetectRow:
    bug = job.bug
    return DetectRow(job.app, job.target, bug.id if bug else None, bug.type if bug else REFERENCE,
                     bug.difficulty if bug else "", job.truth, child.verdict, job.repeat, job.seed, child.steps,
                     round(child.seconds, 2), child.run_id, child.reason, child.error,
                     split_of(job.app, bug.id) if bug else "", job.duration_s)


# -- statistics ------------------------------------------------------------------
def _rate(rows: list[DetectRow], hit: str) -> dict[str, Any]:
    """``hit`` verdicts over *every* run; the runs without an answer are counted apart and as misses."""
    return {"hits": sum(r.verdict == hit for r in rows), "runs": len(rows),
            "no_answer": sum(not r.judged for r in rows), "errors": sum(r.verdict == ERROR for r in rows),
            "uncertain": sum(r.verdict == UNCERTAIN for r in rows),
            "rate": sum(r.verdict == hit for r in rows) / len(rows) if rows else None}


def _code(row: DetectRow) -> float:
    """The tester's verdict as 1 (pass) / 0 (fail); no answer is coded as the wrong answer."""
    if row.judged:
        return CODES[row.verdict]
    return 1.0 - CODES[row.truth]


def agreement(rows: list[DetectRow]) -> dict[str, Any]:
    """Krippendorff's alpha (nominal) and Kendall's tau-b, tester vs ground truth, over every run."""
    tester = [_code(r) for r in rows]
    truth = [CODES[r.truth] for r in rows]
    alpha = nominal_alpha([tester, truth], value_domain=[0.0, 1.0]) if rows else None
    tau: float | None = None
    if len(rows) >= 2:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = float(kendalltau(tester, truth, variant="b").statistic)
        tau = value if np.isfinite(value) else None
    return {"krippendorff_alpha": alpha, "kendall_tau_b": tau, "units": len(rows),
            "no_answer_units": sum(not r.judged for r in rows)}


def summarize(rows: list[DetectRow], *, tester: str, max_steps: int, wall_seconds: float,
              parallel: int, measured: dict[str, Any] | None = None) -> dict[str, Any]:
    """The statistics of ``rows``; ``measured`` is :func:`measured_on` taken when the runs started (now if None)."""
    bugs = [r for r in rows if r.bug is not None]
    refs = [r for r in rows if r.bug is None]
    by_type: dict[str, list[DetectRow]] = defaultdict(list)
    by_difficulty: dict[str, list[DetectRow]] = defaultdict(list)
    by_app: dict[str, list[DetectRow]] = defaultdict(list)
    by_target: dict[str, list[DetectRow]] = defaultdict(list)
    by_suite: dict[str, list[DetectRow]] = defaultdict(list)
    by_suite_type: dict[str, dict[str, list[DetectRow]]] = defaultdict(lambda: defaultdict(list))
    for r in bugs:
        by_type[r.type].append(r)
        by_difficulty[r.difficulty or "?"].append(r)
        by_suite[suite_of(r.app)].append(r)
        by_suite_type[suite_of(r.app)][r.type].append(r)
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
            "no_answer": sum(not r.judged for r in rs),
        }
    targets = {}
    for target, rs in by_target.items():
        first = rs[0]
        targets[target] = {"app": first.app, "bug": first.bug, "split": first.split, "type": first.type,
                           "difficulty": first.difficulty, "duration_s": first.duration_s,
                           "truth": first.truth, "verdicts": [r.verdict for r in rs],
                           "reason": next((r.reason or r.error for r in rs if r.verdict != first.truth), first.reason)}
    return {
        "tester": tester, "max_steps": max_steps, "jobs": parallel, "runs": len(rows),
        "wall_seconds": round(wall_seconds, 1), "measured_on": measured or measured_on(), "counting": COUNTING,
        "recall": _rate(bugs, "fail"),
        "recall_by_split": {name: _rate([r for r in bugs if r.split == name], "fail") for name in SPLITS},
        "false_positive_rate": _rate(refs, "fail"),
        "reference_pass_rate": _rate(refs, "pass"),
        "recall_by_type": {k: _rate(v, "fail") for k, v in sorted(by_type.items())},
        "recall_by_difficulty": {k: _rate(v, "fail") for k, v in sorted(by_difficulty.items())},
        "recall_by_suite": {k: _rate(v, "fail") for k, v in sorted(by_suite.items())},
        "recall_by_suite_type": {suite: {k: _rate(v, "fail") for k, v in sorted(kinds.items())}
                                 for suite, kinds in sorted(by_suite_type.items())},
        "agreement": agreement(rows),
        "no_answer": sum(not r.judged for r in rows),
        "errors": sum(r.verdict == ERROR for r in rows),
        "uncertain": sum(r.verdict == UNCERTAIN for r in rows),
        "apps": apps, "targets": targets,
    }


def suite_of(app: str) -> str:
    """The suite a bundled app belongs to: ``apps`` (benchmark/apps) or ``wild`` (benchmark/wild); ``other`` for
    an app that is not bundled (rows from elsewhere, e.g. an imported result or one summarised by hand)."""
    try:
        return app_folder(app).parent.name
    except TargetError:
        return "other"


def report_json(rows: list[DetectRow], summary: dict[str, Any]) -> dict[str, Any]:
    return {"summary": summary, "runs": [asdict(r) for r in rows]}


# -- Markdown ---------------------------------------------------------------------
def _pct(rate: dict[str, Any]) -> str:
    if rate["rate"] is None:
        return "n/a"
    return f"{rate['rate']:.0%} ({rate['hits']}/{rate['runs']})"


def _num(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def _rate_row(label: str, rate: dict[str, Any]) -> str:
    return f"| {label} | {_pct(rate)} | {rate['no_answer']} ({rate['errors']} error, {rate['uncertain']} uncertain) |"


def _long_note(s: dict[str, Any]) -> list[str]:
    """What happened to the long-run bugs: played for their duration (``--long``), or skipped (named)."""
    if s.get("long_runs"):
        return ["Long-run bugs were played for their declared duration (`--long`), and their apps' references "
                "for the longest of those; the seconds follow the target's name.", ""]
    skipped = s.get("skipped_long") or []
    if skipped:
        return [f"{len(skipped)} long-run bug variant(s) not played (`--long` plays them for their declared "
                f"duration): {', '.join(skipped)}.", ""]
    return []


def _bound_note(s: dict[str, Any]) -> list[str]:
    """How each run was bounded and whether the rubric's script was played first."""
    notes = []
    if s.get("duration_s"):
        notes.append(f"Every run played for {s['duration_s']:g} s (`--duration`), steps unbounded.")
    if s.get("no_script"):
        notes.append("Explore only (`--no-script`): no `[[script]]` step was played; every input came from the "
                     "explorer.")
    return [" ".join(notes), ""] if notes else []


def markdown(summary: dict[str, Any]) -> str:
    s = summary
    ag = s["agreement"]
    bound = f"{s['duration_s']:g} s per run" if s.get("duration_s") else f"max {s['max_steps']} steps"
    lines = [
        f"## bench detect — tester `{s['tester']}`, {bound}, {s['runs']} runs, "
        f"{s['jobs']} parallel, {s['wall_seconds']:.0f} s wall",
        "",
        f"Measured on {describe_commit(s.get('measured_on'))}. Rates count every run: {s.get('counting', COUNTING)}.",
        "",
        *([f"Command: `{s['command']}`", ""] if s.get("command") else []),
        *_long_note(s),
        *_bound_note(s),
        "| target | half | type | difficulty | truth | verdict | reason |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for target, t in s["targets"].items():
        verdicts = ", ".join(t["verdicts"])
        mark = "" if all(v == t["truth"] for v in t["verdicts"]) else " ✗"
        reason = " ".join(str(t["reason"]).split())[:110].replace("|", "/")
        played = f"{target} ({t['duration_s']:g} s)" if t.get("duration_s") else target
        lines.append(f"| {played} | {t.get('split') or '-'} | {t['type']} | {t['difficulty'] or '-'} | {t['truth']} | "
                     f"{verdicts}{mark} | {reason} |")
    head = ["| {} | recall (of all runs) | no answer (counted as missed) |", "| --- | --- | --- |"]
    lines += ["", head[0].format("half"), head[1]]
    lines += [_rate_row(k, v) for k, v in s["recall_by_split"].items()]
    lines += ["", head[0].format("defect class"), head[1]]
    lines += [_rate_row(k, v) for k, v in s["recall_by_type"].items()]
    lines += ["", head[0].format("suite"), head[1]]
    lines += [_rate_row(k, v) for k, v in s.get("recall_by_suite", {}).items()]
    lines += ["", "| suite | defect class | recall (of all runs) | no answer (counted as missed) |",
              "| --- | --- | --- | --- |"]
    lines += [_rate_row(f"{suite} | {k}", v) for suite, kinds in s.get("recall_by_suite_type", {}).items()
              for k, v in kinds.items()]
    lines += ["", head[0].format("difficulty"), head[1]]
    lines += [_rate_row(k, v) for k, v in s["recall_by_difficulty"].items()]
    lines += ["", "| app | runs | references passed | bugs detected | no answer | mean steps | mean seconds |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for app, a in s["apps"].items():
        lines.append(f"| {app} | {a['runs']} | {a['reference_passes']}/{a['reference_runs']} | "
                     f"{a['bugs_detected']}/{a['bug_runs']} | {a['no_answer']} | {a['mean_steps']:.1f} | "
                     f"{a['mean_seconds']:.1f} |")
    lines += [
        "",
        "| overall | value |", "| --- | --- |",
        f"| recall (bug variants judged fail, of all bug runs) | {_pct(s['recall'])} |",
        f"| recall, tuning half | {_pct(s['recall_by_split']['tuning'])} |",
        f"| recall, held-out half | {_pct(s['recall_by_split']['held-out'])} |",
        f"| false-positive rate (references judged fail, of all reference runs) | {_pct(s['false_positive_rate'])} |",
        f"| reference pass rate (references judged pass, of all reference runs) | {_pct(s['reference_pass_rate'])} |",
        f"| Krippendorff's alpha, nominal (tester vs truth, all {ag['units']} runs) | {_num(ag['krippendorff_alpha'])} |",
        f"| Kendall's tau-b (tester vs truth, all runs) | {_num(ag['kendall_tau_b'])} |",
        f"| runs without an answer (error or uncertain), counted as misses | {s['no_answer']} "
        f"({s['errors']} error, {s['uncertain']} uncertain) |",
    ]
    return "\n".join(lines) + "\n"
