"""Exec@k / Pass@k / Play@k of candidate implementations (``playcoder bench play``).

Layout of a candidates folder (also in benchmark/README.md)::

    CANDIDATES/
      tiles2048/                  one folder per problem, named after a benchmark app
        reference/                one folder per candidate (any name)
          tiles2048_logic.py      files that replace the app's files of the same relative path
          main.py
          candidate.json          optional: {"tokens": 12345} spent generating it
        merge-no-double/
          tiles2048_logic.py

A candidate is materialised as a copy of ``benchmark/apps/PROBLEM`` (without
``bugs/``) with the candidate's files laid over it; the app's own unit tests
(its ``unit_tests`` patterns, default ``test_*.py``) are never replaced.

Stages, per candidate:

- Exec: the engine started it and found its window, with no crash, exception
  or blank render at start (from a ``playcoder test`` child run);
- Pass: the app's unit tests pass against the candidate (pytest in the copy;
  deterministic, so run once and reused for every repeat);
- Play: the tester's verdict on that run is 'pass'.  Every run counts: a run
  without an answer (verdict 'error' or 'uncertain') is a Play failure, and
  is also shown in its own column.

For each repeat, the unbiased estimator gives each problem's @k and the
problems are averaged; the repeats give a 95% Student-t interval.
Efficiency@k = Play@k / (thousand tokens per problem), when every problem's
tokens are known: generation tokens from ``candidate.json`` plus the tester's
LLM tokens (``llm_calls`` of its runs).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from app.engine.bench.executors import Executor, LocalExecutor, PlayTask
from app.engine.bench.jobs import ChildRun, prepare_db, run_parallel
from app.engine.errors import UserError
from app.engine.bench.metrics import Interval, efficiency_at_k, pass_at_k, t_interval
from app.engine.judge.oracles import FAILING_KINDS
from app.engine.judge.verdict import is_answer
from app.engine.bench.provenance import describe_commit, measured_on
from app.engine.trace.store import TrajectoryStore
from app.engine.play import sandbox
from app.engine.play.targetspec import APPS_DIR, SPEC_FILE, app_folder, apply_patch, list_apps, load_bugs, load_spec

STAGES = ("exec", "pass", "play")
COUNTING = ("every run counts: a play run without an answer (verdict error or uncertain) is a Play failure and is "
            "shown in the no-answer column")
CANDIDATE_META = "candidate.json"
PYTEST_TIMEOUT_S = 300.0
_COPY_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".benchmarks", "bugs")


@dataclass(frozen=True)
class Candidate:
    problem: str
    name: str
    source: Path
    tokens: int | None = None


@dataclass
class CandidateResult:
    problem: str
    candidate: str
    passed_tests: bool | None
    tests_note: str = ""
    exec_ok: list[bool] = field(default_factory=list)
    play_ok: list[bool] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)
    run_ids: list[int | None] = field(default_factory=list)
    tester_tokens: list[int | None] = field(default_factory=list)
    generation_tokens: int | None = None


# -- layout -------------------------------------------------------------------------
def discover(root: Path, apps_dir: Path = APPS_DIR) -> list[Candidate]:
    """Every candidate under ``root``; problems must be benchmark app names."""
    if not root.is_dir():
        raise UserError(f"{root} is not a folder; give --candidates a folder with one sub-folder per problem.")
    found: list[Candidate] = []
    for problem in sorted(p for p in root.iterdir() if p.is_dir()):
        if not (apps_dir / problem.name / SPEC_FILE).is_file():
            known = ", ".join(p.name for p in list_apps()) or "none"
            raise UserError(f"{problem} is not named after a benchmark app ({known}); rename or remove it.")
        for cand in sorted(c for c in problem.iterdir() if c.is_dir()):
            found.append(Candidate(problem.name, cand.name, cand, _tokens(cand)))
    if not found:
        raise UserError(f"{root} holds no candidates; see benchmark/README.md for the layout "
                        "or build one with `playcoder bench make-candidates`.")
    return found


def _tokens(folder: Path) -> int | None:
    meta = folder / CANDIDATE_META
    if not meta.is_file():
        return None
    try:
        value = json.loads(meta.read_text(encoding="utf-8")).get("tokens")
    except (ValueError, AttributeError) as exc:
        raise UserError(f"{meta} is not a JSON object ({exc}); fix or delete it.") from exc
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def materialise(candidate: Candidate, dest: Path, apps_dir: Path = APPS_DIR) -> Path:
    """Copy the problem's app to ``dest`` and lay the candidate's files over it; returns the folder."""
    app = apps_dir / candidate.problem
    spec = load_spec(app)
    shutil.copytree(app, dest, ignore=_COPY_IGNORE)
    protected = {p.relative_to(dest) for pattern in spec.unit_tests for p in dest.glob(pattern)}
    for path in sorted(candidate.source.rglob("*")):
        rel = path.relative_to(candidate.source)
        if path.is_dir() or rel.name == CANDIDATE_META or rel in protected or "__pycache__" in rel.parts:
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dest / rel)
    return dest


def candidate_files(app: Path) -> list[Path]:
    """The files a generated candidate consists of: the app's Python sources except its unit tests."""
    spec = load_spec(app)
    tests = {p for pattern in spec.unit_tests for p in app.glob(pattern)}
    return sorted(p.relative_to(app) for p in app.rglob("*.py")
                  if p not in tests and "bugs" not in p.relative_to(app).parts and "__pycache__" not in p.parts)


def make_candidates(out: Path, apps: list[Path]) -> dict[str, list[str]]:
    """Write the reference and every bug variant of each app as candidates (n = 1 + bugs per problem)."""
    made: dict[str, list[str]] = {}
    for app in apps:
        files = candidate_files(app)
        made[app.name] = []
        variants: list[tuple[str, Path | None, dict[str, Any]]] = [("reference", None, {"source": "reference"})]
        variants += [(b.id, app / "bugs" / f"{b.id}.patch",
                      {"source": "bug", "bug": b.id, "type": b.type, "difficulty": b.difficulty})
                     for b in load_bugs(app)]
        for name, patch, meta in variants:
            dest = out / app.name / name
            if dest.exists():
                raise UserError(f"{dest} already exists; choose an empty folder for make-candidates.")
            with tempfile.TemporaryDirectory(prefix="playcoder-cand-") as tmp:
                work = Path(tmp) / app.name
                shutil.copytree(app, work, ignore=_COPY_IGNORE)
                if patch is not None:
                    apply_patch(work, patch)
                for rel in files:
                    (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(work / rel, dest / rel)
            (dest / CANDIDATE_META).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
            made[app.name].append(name)
    return made


# -- stages -------------------------------------------------------------------------
def run_unit_tests(folder: Path) -> tuple[bool | None, str]:
    """(passed, note) for the app's unit tests in ``folder``; None when it has no unit tests."""
    spec = load_spec(folder)
    files = sorted({str(p.relative_to(folder)) for pattern in spec.unit_tests for p in folder.glob(pattern)})
    if not files:
        return None, "no unit test files match " + ", ".join(spec.unit_tests)
    limits = sandbox.Limits(wall_s=PYTEST_TIMEOUT_S, cpu_s=int(PYTEST_TIMEOUT_S))
    jail = sandbox.Jail(folder, env={"SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
                                     "PYTHONDONTWRITEBYTECODE": "1"}, limits=limits, import_from_folder=True)
    out = sandbox.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *files], jail)
    if out.timed_out:
        return False, f"the unit tests took longer than {PYTEST_TIMEOUT_S:g} s"
    tail = next((line for line in reversed(out.stdout.splitlines()) if line.strip()), "")
    return out.returncode == 0, tail.strip()


def exec_ok(child: ChildRun, store: TrajectoryStore) -> bool:
    """Started and showed a window without an error at start."""
    if child.run_id is None or child.status != "completed":
        return False
    if store.run(child.run_id).get("window_width") is None:
        return False
    return not any(f.get("step") is None and f.get("kind") in FAILING_KINDS for f in child.findings)


def tester_tokens(store: TrajectoryStore, run_id: int | None) -> int | None:
    if run_id is None:
        return None
    return store.llm.tokens(run_id)


def play(candidates: list[Candidate], *, tester: str, max_steps: int, repeats: int, seed: int, db: Path,
         parallel: int, workdir: Path, on_done: Callable[[str], None] | None = None,
         executor: Executor | None = None) -> list[CandidateResult]:
    """Materialise, unit-test and play every candidate ``repeats`` times; one result per candidate.

    The unit tests run here; the play runs go to ``executor`` (local children by default, or Ray)."""
    if repeats < 1:
        raise UserError("--repeats must be at least 1.")
    prepare_db(db)
    folders = [materialise(c, workdir / c.problem / c.name) for c in candidates]
    results = [CandidateResult(c.problem, c.name, None, generation_tokens=c.tokens) for c in candidates]

    def test_call(i: int) -> Callable[[], tuple[bool | None, str]]:
        return lambda: run_unit_tests(folders[i])

    def tested(i: int, outcome: tuple[bool | None, str]) -> None:
        results[i].passed_tests, results[i].tests_note = outcome
        if on_done is not None:
            on_done(f"tests {candidates[i].problem}/{candidates[i].name}")

    run_parallel([test_call(i) for i in range(len(candidates))], parallel, tested)
    order = [i for _ in range(repeats) for i in range(len(candidates))]
    # differential: the problem's reference program
    tasks = [PlayTask(str(folders[i]), tester, max_steps, seed, str(app_folder(candidates[i].problem))) for i in order]
    children: list[ChildRun] = (executor or LocalExecutor(parallel)).play(
        tasks, db,
        (lambda j, child: on_done(f"play {candidates[order[j]].problem}/{candidates[order[j]].name}"))
        if on_done is not None else None)
    store = TrajectoryStore(db)
    try:
        for i, child in zip(order, children):
            r = results[i]
            r.exec_ok.append(exec_ok(child, store))
            r.play_ok.append(child.verdict == "pass")
            r.verdicts.append(child.verdict)
            r.run_ids.append(child.run_id)
            r.tester_tokens.append(tester_tokens(store, child.run_id))
    finally:
        store.close()
    return results


# -- metrics ------------------------------------------------------------------------
def _stage_ok(r: CandidateResult, stage: str, repeat: int) -> bool:
    if stage == "exec":
        return r.exec_ok[repeat]
    if stage == "pass":
        return bool(r.passed_tests)
    return r.play_ok[repeat]


def summarize(results: list[CandidateResult], ks: list[int], repeats: int, *, tester: str) -> dict[str, Any]:
    problems: dict[str, list[CandidateResult]] = {}
    for r in results:
        problems.setdefault(r.problem, []).append(r)
    notes: list[str] = []
    metrics: dict[str, dict[str, Any]] = {}
    for k in ks:
        usable = {p: rs for p, rs in problems.items() if len(rs) >= k}
        skipped = sorted(set(problems) - set(usable))
        if skipped:
            notes.append(f"@{k}: left out {', '.join(skipped)} (fewer than {k} candidates)")
        for stage in STAGES:
            key = f"{stage.capitalize()}@{k}"
            if not usable:
                metrics[key] = {"mean": None, "low": None, "high": None, "repeats": repeats, "values": []}
                continue
            per_repeat = [sum(pass_at_k(len(rs), sum(_stage_ok(r, stage, rep) for r in rs), k)
                              for rs in usable.values()) / len(usable) for rep in range(repeats)]
            metrics[key] = _interval_dict(t_interval(per_repeat), per_repeat)
        eff = _efficiency(usable, k, repeats, metrics.get(f"Play@{k}", {}).get("values", []))
        if isinstance(eff, str):
            if k == ks[0]:
                notes.append(eff)
        else:
            metrics[f"Efficiency@{k}"] = eff
    counts = {p: {"n": len(rs), "exec": [sum(r.exec_ok[i] for r in rs) for i in range(repeats)],
                  "pass": sum(bool(r.passed_tests) for r in rs),
                  "play": [sum(r.play_ok[i] for r in rs) for i in range(repeats)],
                  "no_answer": [sum(not is_answer(r.verdicts[i]) for r in rs) for i in range(repeats)]}
              for p, rs in problems.items()}
    return {"tester": tester, "repeats": repeats, "ks": ks, "problems": counts, "metrics": metrics, "notes": notes,
            "counting": COUNTING, "measured_on": measured_on(), "candidates": [asdict(r) for r in results]}


def _efficiency(usable: dict[str, list[CandidateResult]], k: int, repeats: int,
                play_values: list[float]) -> dict[str, Any] | str:
    if not usable or not play_values:
        return "Efficiency@k omitted: no problem has enough candidates"
    per_repeat = []
    for rep in range(repeats):
        totals = []
        for rs in usable.values():
            known = [(r.generation_tokens, r.tester_tokens[rep]) for r in rs]
            if all(g is None and t is None for g, t in known):
                return ("Efficiency@k omitted: token counts are unknown (no candidate.json tokens and the tester "
                        "made no LLM calls; use --tester llm or record generation tokens)")
            totals.append(sum((g or 0) + (t or 0) for g, t in known))
        mean_tokens = sum(totals) / len(totals)
        if mean_tokens <= 0:
            return "Efficiency@k omitted: zero tokens recorded"
        per_repeat.append(efficiency_at_k(play_values[rep], mean_tokens))
    return _interval_dict(t_interval(per_repeat), per_repeat)


def _interval_dict(iv: Interval, values: list[float]) -> dict[str, Any]:
    return {"mean": iv.mean, "low": iv.low, "high": iv.high, "repeats": iv.n, "values": values}


def markdown(summary: dict[str, Any]) -> str:
    s = summary
    lines = [f"## bench play — tester `{s['tester']}`, {s['repeats']} repeat(s)", "",
             f"Measured on {describe_commit(s.get('measured_on'))}; {s.get('counting', COUNTING)}.", "",
             "| problem | n | Exec c | Pass c | Play c | no answer (Play failures) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for p, c in s["problems"].items():
        lines.append(f"| {p} | {c['n']} | {'/'.join(map(str, c['exec']))} | {c['pass']} | "
                     f"{'/'.join(map(str, c['play']))} | {'/'.join(map(str, c.get('no_answer', [])))} |")
    lines += ["", "| metric | mean | 95% t interval |", "| --- | --- | --- |"]
    for key, m in s["metrics"].items():
        if m["mean"] is None:
            lines.append(f"| {key} | n/a | |")
            continue
        ci = "n/a (1 repeat)" if m["low"] is None else f"[{m['low']:.3f}, {m['high']:.3f}]"
        lines.append(f"| {key} | {m['mean']:.3f} | {ci} |")
    lines += ["", "| candidate | unit tests | exec | play verdicts |", "| --- | --- | --- | --- |"]
    for r in s["candidates"]:
        tests = {True: "pass", False: "fail", None: "none"}[r["passed_tests"]]
        lines.append(f"| {r['problem']}/{r['candidate']} | {tests} | "
                     f"{'/'.join('yes' if e else 'no' for e in r['exec_ok'])} | {', '.join(r['verdicts'])} |")
    if s["notes"]:
        lines += [""] + [f"- {n}" for n in s["notes"]]
    return "\n".join(lines) + "\n"

