"""Differential play on the corpus: recall over generated mutants, false positives over the references.

    python -m benchmark.corpus_bench [--programs a,b] [--split tune|test|all] [--tester differential|offline]
                                     [--mutants K] [--ref-seeds N] [--refactorings K]
                                     [--duration S] [--max-steps M] [--jobs J] [--json FILE] [--md FILE]

Every run is a ``python -m app test TARGET --tester differential --reference
benchmark/corpus/NAME --json`` child with its own private Xvfb, explore-only:
``--no-script`` is passed when this checkout's CLI has it (the corpus has no
``[[script]]`` anyway, so the runs explore either way).  ``--tester offline``
plays the same targets with the offline tester (no reference: its oracles
alone judge the run).

- **Mutants** (ground truth *fail*): the first K mutants of each program in
  ``benchmark/corpus/mutants.json`` (``benchmark/mutants.py``), seed 0, each
  played once against the unmodified program.
- **References** (ground truth *pass*): each unmodified program against
  itself, seeds ``0 .. N-1``.
- **Refactorings** (ground truth *pass*, ``--refactorings K``): the first K
  behaviour-preserving refactorings of each program in
  ``benchmark/corpus/refactorings.json`` (``benchmark/refactorings.py``),
  seed 0, each played once against the unmodified program; any ``fail`` is a
  false positive of differential play.

Every run counts, with Stryker's categories (:mod:`benchmark.scoring`):
a mutant is *killed*, *survived*, *not reached* (its line ran in no play:
coverage decides, read from the probe's stdout line in the run's logs),
*timeout*, *error*, or *equivalent* (the committed list, each with its
reason).  Recall is killed over the reached mutants; the not-reached share
is given beside it.  A reference run passes only if it played (at least 5
settled screens judged over 10 steps); a shorter pass is *not played*.
Tables are given per program, per split (tune/test, ``benchmark/split.md``)
and per mutation operator.  The output names the command line, the commit and
whether the tree had uncommitted changes.

    python -m benchmark.corpus_bench --rescore RESULTS.json [--json FILE] [--md FILE]

counts an earlier results file's runs again with these rules (no run is
played); the output names both the commit the runs were measured on and the
commit that counted them.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from app.engine.bench.children import run_batch, spawn, stop_all
from app.engine.bench.provenance import describe_commit, measured_on
from benchmark import refactorings as refactor
from benchmark import scoring
from benchmark.mutants import (
    CORPUS,
    MANIFEST,
    MARK,
    TEST,
    TUNE,
    Mutant,
    build_target,
    corpus_programs,
    load_manifest,
    program_split,
)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmark" / "results"
MUTANTS_PER_PROGRAM = 5
REF_SEEDS = 5
CHILD_SLACK_S = 240.0
"""A child's timeout beyond its --duration: the start of three programs, a closer look, the end."""
DEFAULT_STEPS = 30


@dataclass
class Row:
    kind: str  # "mutant" or "reference"
    program: str
    split: str
    operator: str
    mutant: str
    seed: int
    verdict: str
    reason: str
    reached: bool | None
    run_id: int | None
    seconds: float
    steps: int | None = None
    screens: int | None = None
    """Settled screens judged (compared with the reference, or distinct ones for the offline tester)."""


def cli_has(flag: str) -> bool:
    """Does this checkout's ``playcoder test`` take ``flag``? (Another change adds --no-script.)"""
    out = subprocess.run([sys.executable, "-m", "app", "test", "--help"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    return flag in out.stdout


def _play(target: Path, reference: Path, seed: int, args: argparse.Namespace, extra: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "app", "test", str(target), "--db", str(args.db), "--tester", args.tester,
           "--seed", str(seed), "--json", *extra]
    if args.tester == "differential":
        cmd += ["--reference", str(reference)]
    if args.duration:
        cmd += ["--duration", f"{args.duration:g}"]
    if args.max_steps:
        cmd += ["--max-steps", str(args.max_steps)]
    timeout = (args.duration or 0) + CHILD_SLACK_S
    proc = spawn(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc is None:
        return {"verdict": "error", "reason": "cancelled"}
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop_all([proc])
        return {"verdict": "error", "reason": f"the run took longer than {timeout:.0f} s"}
    lines = [ln for ln in out.splitlines() if ln.startswith("{")]
    if not lines:
        tail = (err.strip().splitlines() or ["no output"])[-1]
        return {"verdict": "error", "reason": f"exit {proc.returncode}: {tail}"}
    try:
        data: dict[str, Any] = json.loads(lines[-1])
    except json.JSONDecodeError:
        return {"verdict": "error", "reason": "the run's JSON line could not be read"}
    return data


def _reached(db: Path, run_id: int | None) -> bool | None:
    if run_id is None:
        return None
    with sqlite3.connect(db, timeout=30) as conn:
        row = conn.execute("SELECT 1 FROM target_logs WHERE run_id = ? AND stream = 'stdout' AND text LIKE ?",
                           (run_id, MARK + "%")).fetchone()
    return row is not None


def _played(data: dict[str, Any]) -> tuple[int, int]:
    """(steps, settled screens judged) of a run's JSON line."""
    screens, steps = scoring.screens_and_steps({"reason": data.get("reason") or "", "steps": data.get("steps")})
    return steps, screens


def _mutant_call(m: Mutant, args: argparse.Namespace, extra: list[str], scratch: Path, seed: int = 0) -> Any:
    def call() -> Row:
        folder = CORPUS / m.program
        name = m.id.replace("~", "_").replace("@", "_").replace(":", "_") + (f"_s{seed}" if seed else "")
        target = build_target(m, folder, scratch / name)
        start = time.monotonic()
        data = _play(target, folder, seed, args, extra)
        run_id = data.get("run_id")
        return Row("mutant", m.program, program_split(m.program), m.operator, m.id, seed, str(data.get("verdict")),
                   str(data.get("reason") or data.get("error") or ""), _reached(args.db, run_id), run_id,
                   round(time.monotonic() - start, 1), *_played(data))
    return call


def _refactoring_call(r: refactor.Refactoring, args: argparse.Namespace, extra: list[str], scratch: Path) -> Any:
    def call() -> Row:
        folder = CORPUS / r.program
        target = refactor.build_target(r, folder, scratch / r.id.replace("~", "_").replace("@", "_").replace(":", "_"))
        start = time.monotonic()
        data = _play(target, folder, 0, args, extra)
        return Row("refactoring", r.program, program_split(r.program), r.kind, r.id, 0, str(data.get("verdict")),
                   str(data.get("reason") or data.get("error") or ""), None, data.get("run_id"),
                   round(time.monotonic() - start, 1), *_played(data))
    return call


def refactoring_table(rows: list[Row]) -> str:
    """Refactored programs against their reference: every one should pass (any fail is a false positive)."""
    runs = [r for r in rows if r.kind == "refactoring"]
    if not runs:
        return ""
    out = ["", "Behaviour-preserving refactorings against the unmodified program (ground truth: pass).", "",
           "| group | runs | pass | fail (false positives) | uncertain | error |", "| --- | --- | --- | --- | --- | --- |"]
    groups = [("**all**", runs)] + [(f"kind: {k}", [r for r in runs if r.operator == k])
                                    for k in sorted({r.operator for r in runs})]
    groups += [(f"split: {s}", [r for r in runs if r.split == s]) for s in (TUNE, TEST)]
    for name, sel in groups:
        count = {v: sum(r.verdict == v for r in sel) for v in ("pass", "fail", "uncertain", "error")}
        out.append(f"| {name} | {len(sel)} | {count['pass']} | {count['fail']} | {count['uncertain']} | {count['error']} |")
    return "\n".join(out) + "\n"


def _reference_call(name: str, seed: int, args: argparse.Namespace, extra: list[str]) -> Any:
    def call() -> Row:
        folder = CORPUS / name
        start = time.monotonic()
        data = _play(folder, folder, seed, args, extra)
        return Row("reference", name, program_split(name), "", "", seed, str(data.get("verdict")),
                   str(data.get("reason") or data.get("error") or ""), None, data.get("run_id"),
                   round(time.monotonic() - start, 1), *_played(data))
    return call


def summarise(rows: list[dict[str, Any]], equivalent: dict[str, str],
              covered: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Stryker categories and reference outcomes (:mod:`benchmark.scoring`) by split, operator and program;
    ``covered``: mutants whose line ran in other plays (coverage is not a verdict, any play counts)."""
    def block(sel: list[dict[str, Any]]) -> dict[str, Any]:
        return scoring.score(sel, equivalent, covered)
    return {"all": block(rows),
            "by_split": {s: block([r for r in rows if r["split"] == s]) for s in (TUNE, TEST)},
            "by_program": {p: block([r for r in rows if r["program"] == p]) for p in sorted({r["program"] for r in rows})},
            "by_operator": {o: block([r for r in rows if r["operator"] == o and r["kind"] == "mutant"])
                            for o in sorted({r["operator"] for r in rows if r["operator"] and r["kind"] == "mutant"})}}


def markdown(summary: dict[str, Any], rows: list[dict[str, Any]], header: str,
             covered: frozenset[str] = frozenset()) -> str:
    out = [header, "",
           ("Mutants in Stryker's categories (`benchmark/scoring.py`): *not reached* means the mutated line ran in no "
           "play (coverage decides); recall is killed over the reached mutants, the not-reached share beside it. "
           f"A reference run passes only if it played ({scoring.MIN_SCREENS} settled screens over "
           f"{scoring.MIN_STEPS} steps); a shorter pass is *not played*."), ""]
    groups = [("**all**", summary["all"])] + [(f"split: {s}", b) for s, b in summary["by_split"].items()]
    groups += [(f"operator: {o}", b) for o, b in summary["by_operator"].items()]
    groups += [(f"{p} ({program_split(p)})", b) for p, b in summary["by_program"].items()]
    if summary["all"]["mutants"]:
        out += [scoring.MUTANT_HEADER, *(scoring.mutant_line(n, b) for n, b in groups if b["mutants"]), ""]
    if summary["all"]["references"]:
        out += [scoring.REFERENCE_HEADER,
                *(scoring.reference_line(n, b) for n, b in groups if b["references"]), ""]
    equivalent = scoring.load_equivalent()
    reached = scoring.reached_anywhere(rows) | covered
    out += ["| kind | program | mutant | seed | steps | screens | reached | verdict | category | reason |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        cat = (scoring.mutant_category(r, reached, equivalent) if r["kind"] == "mutant"
               else scoring.reference_category(r) if r["kind"] == "reference" else r["verdict"])
        steps, screens = scoring.screens_and_steps(r)
        reason = str(r["reason"]).replace("|", "/").replace("\n", " ")[:160]
        out.append(f"| {r['kind']} | {r['program']} | {r['mutant']} | {r['seed']} | {steps} | {screens} "
                   f"| {'' if r['reached'] is None else r['reached']} | {r['verdict']} | {cat} | {reason} |")
    return "\n".join(out) + "\n"


def _load_runs(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data, [dict(r) for r in data["runs"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"{path} is not a corpus_bench results file ({exc}); pass a --json file it wrote.", file=sys.stderr)
        return None


def rescore(path: Path, args: argparse.Namespace) -> int:
    """Count an earlier results file's runs with this checkout's rules and split; play nothing."""
    loaded = [x for x in (_load_runs(p) for p in [path, *args.coverage_from]) if x is not None]
    if len(loaded) != 1 + len(args.coverage_from):
        return 2
    (data, rows), others_runs = loaded[0], [runs for _, runs in loaded[1:]]
    covered = frozenset(m for runs in others_runs for m in scoring.reached_anywhere(runs))
    for r in rows:
        r["split"] = program_split(r["program"])
    counted = measured_on()
    runs_on = data.get("measured_on") or {}
    others = "".join(f" --coverage-from {p.name}" for p in args.coverage_from)
    command = (str(data.get("command", "")) +
               f"  (counted again: python -m benchmark.corpus_bench --rescore {path.name}{others})")
    title = "Differential play" if data.get("tester") == "differential" else "The offline tester"
    header = (f"{title} on the corpus, explore-only: runs measured at {describe_commit(runs_on)}, "
              f"counted at {describe_commit(counted)}.\n\n    {command}")
    summary = summarise(rows, scoring.load_equivalent(), covered)
    as_rows = [Row(**{k: r.get(k) for k in Row.__dataclass_fields__}) for r in rows]
    text = markdown(summary, rows, header, covered) + refactoring_table(as_rows)
    payload = {**data, "command": command, "counted_on": counted, "coverage_from": [p.name for p in args.coverage_from],
               "summary": summary, "runs": rows}
    payload.pop("regenerated_on", None)
    _write(args, payload, text)
    return 0


def _write(args: argparse.Namespace, payload: dict[str, Any], text: str) -> None:
    print(text)
    if args.json:
        args.json.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    if args.md:
        args.md.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmark.corpus_bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", default="", help="comma-separated corpus programs (default: all of the split)")
    ap.add_argument("--split", choices=[TUNE, TEST, "all"], default="all")
    ap.add_argument("--tester", choices=["differential", "offline"], default="differential",
                    help="differential: each run against the unmodified program; offline: the explorer's oracles alone")
    ap.add_argument("--mutants", type=int, default=MUTANTS_PER_PROGRAM, help="mutants per program (manifest order)")
    ap.add_argument("--ref-seeds", type=int, default=REF_SEEDS, help="reference runs per program: seeds 0..N-1")
    ap.add_argument("--refactorings", type=int, default=0,
                    help="behaviour-preserving refactorings per program (manifest order) played against the reference")
    ap.add_argument("--duration", type=float, default=None, help="seconds each run plays (passed to playcoder test)")
    ap.add_argument("--max-steps", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--manifest", type=Path, default=MANIFEST)
    ap.add_argument("--db", type=Path, default=None, help="SQLite file for every run (default: a scratch file)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--md", type=Path, default=None)
    ap.add_argument("--rescore", type=Path, default=None,
                    help="count an earlier --json results file's runs with this checkout's rules (plays nothing)")
    ap.add_argument("--coverage-from", type=Path, nargs="*", default=[],
                    help="with --rescore: other results files whose plays count as coverage (a line run there is reached)")
    args = ap.parse_args(argv)
    if args.rescore:
        return rescore(args.rescore, args)
    names = [n for n in args.programs.split(",") if n]
    programs = [f.name for f in corpus_programs(names or None)
                if args.split == "all" or program_split(f.name) == args.split]
    manifest = [m for m in load_manifest(args.manifest) if m.program in programs]
    mutants = [m for p in programs for m in [x for x in manifest if x.program == p][:args.mutants]]
    listed = refactor.load_manifest() if args.refactorings else []
    refactored = [r for p in programs for r in [x for x in listed if x.program == p][:args.refactorings]]
    extra = ["--no-script"] if args.tester == "differential" and cli_has("--no-script") else []
    provenance = measured_on()
    command = "python -m benchmark.corpus_bench " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:])
                                                            if not a.startswith("--db"))
    print(f"command: {command}")
    print(f"measured on: {describe_commit(provenance)}")
    print(f"{len(mutants)} mutant runs, {len(refactored)} refactoring runs and {len(programs) * args.ref_seeds} "
          f"reference runs over {len(programs)} "
          f"programs; explore-only flag: {' '.join(extra) or '(--no-script not in this CLI: the corpus has no script)'}",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="playcoder-corpus-") as tmp:
        scratch = Path(tmp)
        if args.db is None:
            args.db = scratch / "corpus.db"
        subprocess.run([sys.executable, "-c", "import sys; from app.engine.trace.store import TrajectoryStore; "
                        "TrajectoryStore(sys.argv[1]).close()", str(args.db)], cwd=ROOT, check=True, timeout=120)
        calls = [_mutant_call(m, args, extra, scratch) for m in mutants]
        calls += [_refactoring_call(r, args, extra, scratch) for r in refactored]
        calls += [_reference_call(p, s, args, extra) for p in programs for s in range(args.ref_seeds)]

        def done(i: int, row: Row) -> None:
            print(f"  [{i + 1}/{len(calls)}] {row.kind} {row.mutant or row.program} seed {row.seed}: {row.verdict}"
                  + ("" if row.reached is None else f" (reached: {row.reached})"), file=sys.stderr, flush=True)
        rows: list[Row] = run_batch(calls, args.jobs, done)
    found = [asdict(r) for r in rows]
    summary = summarise(found, scoring.load_equivalent())
    title = "Differential play" if args.tester == "differential" else "The offline tester"
    header = (f"{title} on the corpus, explore-only, at {describe_commit(provenance)}.\n\n"
              f"    {command}")
    payload = {"command": command, "tester": args.tester, "measured_on": provenance, "explore_only_flag": extra,
               "counting": "Stryker's categories (benchmark/scoring.py): recall is killed / reached mutants; a "
                           "reference run passes only if it played",
               "summary": summary, "runs": found}
    _write(args, payload, markdown(summary, found, header) + refactoring_table(rows))
    return 0

if __name__ == "__main__":
    sys.exit(main())
