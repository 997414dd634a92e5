"""Testers on web programs: JavaScript mutants scored as mutation tools score them, and false alarms.

    python -m benchmark.web_bench [--programs a,b] [--no-bundled] [--no-corpus] [--testers offline,differential]
                                  [--mutants K] [--seeds N] [--ref-seeds N] [--no-bugs] [--max-steps M]
                                  [--duration S] [--jobs J] [--name NAME] [--cache DIR]

Programs: the bundled web programs (``benchmark/web``) and the web corpus (``benchmark/web_corpus``,
installed from the npm registry into a cache first).  For each program, K mutants are drawn from its
own scripts (:mod:`benchmark.js_mutants`, seed 0: nobody picks them) and written as patched copies; a
TypeScript mutant that ``tsc`` refuses is a *compile error* (as Stryker counts it: played by nobody,
in no denominator).  Every run is a ``python -m app test TARGET --tester T --seed S --json`` child
with its own private display; ``--tester differential`` plays against the unmodified program, explore
only (``--no-script``).

- **Mutants**: each played by each tester on seeds ``0 .. N-1``.  A run is *killed* when the tester says
  ``fail``; *survived* when its line ran and it did not; *not reached* when the mutated line ran in no
  play of that mutant, by any tester (the run's JavaScript coverage, :mod:`benchmark.web_reach`:
  coverage decides, never a verdict); *timeout* when the benchmark stopped it at its budget; *error*
  otherwise.  Recall = killed / (all - not reached).  A run without coverage at all is counted apart
  (*no coverage*), since nothing tells whether its line ran.
- **Bugs**: the bundled programs' hand-written variants (``bugs/bugs.toml``), each played like a mutant;
  every one is visible by design, so recall is fail / all.
- **References**: each unmodified program by each tester on seeds ``0 .. R-1``; a ``fail`` is a false
  alarm (:func:`benchmark.scoring.reference_category`).

Writes ``benchmark/results/web-NAME.json`` and ``.md`` with the command, the commit and the tree state.
Timings depend on the machine: the results say whether it was shared while they were measured.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from app.engine.bench.children import run_batch, spawn, stop_all
from app.engine.bench.provenance import describe_commit, measured_on
from app.engine.play.targetspec import load_bugs
from benchmark import js_mutants, scoring, web_reach
from benchmark.web_corpus import install as corpus

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmark" / "results"
BUNDLED = ROOT / "benchmark" / "web"
BUNDLED_SCRIPTS = {"websnake": ["*.js"], "webtodo": ["*.js"], "tscalc": ["src/*.ts"]}
"""The bundled programs' own scripts, the ones mutated."""
TS_BUILD = {"tscalc": ("dist", "tsconfig.json")}
"""A TypeScript program: the folder its pages load the build from, and its tsc project."""
MUTANTS_PER_PROGRAM = 5
SEEDS = 1
REF_SEEDS = 3
MAX_STEPS = 30
CHILD_SLACK_S = 600.0
"""A child's budget beyond --duration: two browsers (candidate, reference), npm ci, the end; a differential run
took 160-300 s on a machine loaded to 30 (2 cores)."""
NO_COVERAGE = "no coverage"
COMPILE_ERROR = "compile error"


@dataclass
class Case:
    """One program as the bench plays it."""

    name: str
    source: str  # "bundled" or "corpus"
    folder: Path
    scripts: list[str]


@dataclass
class Row:
    kind: str  # mutant, bug, reference
    program: str
    source: str
    tester: str
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
    lines: dict[str, list[int]] = field(default_factory=dict)


def cases(args: argparse.Namespace) -> list[Case]:
    wanted = {n for n in args.programs.split(",") if n}
    out: list[Case] = []
    if args.bundled:
        for name, scripts in BUNDLED_SCRIPTS.items():
            if not wanted or name in wanted:
                out.append(Case(name, "bundled", BUNDLED / name, scripts))
    if args.corpus:
        _, programs = corpus.load_manifest()
        chosen = [p for p in programs if not wanted or p.name in wanted]
        if chosen:
            folders = corpus.install([p.name for p in chosen], args.cache)
            out += [Case(p.name, "corpus", f, list(p.mutate)) for p, f in zip(chosen, folders)]
    known = {c.name for c in out}
    if wanted - known:
        raise SystemExit(f"unknown web programs: {', '.join(sorted(wanted - known))}")
    return out


def _json_line(out: str) -> dict[str, Any] | None:
    for line in reversed(out.splitlines()):
        if line.startswith("{"):
            try:
                data: dict[str, Any] = json.loads(line)
                return data
            except json.JSONDecodeError:
                return None
    return None


def play(target: str, reference: Path, tester: str, seed: int, args: argparse.Namespace) -> dict[str, Any]:
    """One ``playcoder test`` child; its JSON summary, or an error verdict that says why there is none."""
    cmd = [sys.executable, "-m", "app", "test", target, "--db", str(args.db), "--tester", tester,
           "--seed", str(seed), "--json"]
    if tester == "differential":
        cmd += ["--reference", str(reference), *args.explore_only]
    if args.duration:
        cmd += ["--duration", f"{args.duration:g}"]
    if args.max_steps:
        cmd += ["--max-steps", str(args.max_steps)]
    budget = (args.duration or 0) + CHILD_SLACK_S
    proc = spawn(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc is None:
        return {"verdict": "error", "reason": "cancelled"}
    try:
        out, err = proc.communicate(timeout=budget)
    except subprocess.TimeoutExpired:
        stop_all([proc])
        return {"verdict": "error", "reason": f"the run {scoring.TIMED_OUT} {budget:.0f} s"}
    data = _json_line(out)
    if data is None:
        tail = (err.strip().splitlines() or ["no output"])[-1]
        return {"verdict": "error", "reason": f"exit {proc.returncode}: {tail}"}
    return data


def _row(kind: str, case: Case, tester: str, operator: str, mutant: str, seed: int, data: dict[str, Any],
         lines: dict[str, list[int]], db: Path, start: float) -> Row:
    run_id = data.get("run_id")
    coverage = web_reach.run_coverage(db, run_id)
    reach = web_reach.reached(coverage, lines) if lines else None
    steps, screens = data.get("steps"), data.get("screens")
    return Row(kind, case.name, case.source, tester, operator, mutant, seed, str(data.get("verdict")),
               str(data.get("reason") or data.get("error") or ""), reach, run_id, round(time.monotonic() - start, 1),
               steps if isinstance(steps, int) else None, screens if isinstance(screens, int) else None, lines)


@dataclass
class Prepared:
    """A mutant ready to play: its folder and the served lines that tell it ran (empty: compile error)."""

    mutant: js_mutants.JsMutant
    folder: Path | None
    lines: dict[str, list[int]]
    compile_error: str = ""


def _tsc(case: Case, scratch: Path) -> Path:
    """A tsc of the program's own locked version (``npm ci`` once, in a scratch copy)."""
    tools = scratch / f"{case.name}-tools"
    if not (tools / "node_modules" / ".bin" / "tsc").exists():
        tools.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy2(case.folder / name, tools / name)
        proc = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=tools,
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise SystemExit(f"npm ci for {case.name} failed: {(proc.stderr.strip().splitlines() or [''])[-1]}")
    return tools / "node_modules" / ".bin" / "tsc"


def prepare(case: Case, m: js_mutants.JsMutant, scratch: Path) -> Prepared:
    folder = js_mutants.write_copy(m, case.folder, scratch / m.id.replace("~", "_").replace("@", "_")
                                   .replace(":", "_").replace("/", "_"))
    if case.name not in TS_BUILD:
        return Prepared(m, folder, {m.file: [m.line]})
    served, project = TS_BUILD[case.name]
    build = scratch / f"{folder.name}-build"
    proc = subprocess.run([str(_tsc(case, scratch)), "-p", project, "--outDir", str(build)], cwd=folder,
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        return Prepared(m, None, {}, (proc.stdout.strip().splitlines() or ["tsc failed"])[0])
    return Prepared(m, folder, web_reach.ts_to_js_lines(build, served, m.file, m.line))


def calls_for(case: Case, args: argparse.Namespace, scratch: Path) -> tuple[list[Callable[[], Row]], list[Row]]:
    """The runs of one program, and the rows already decided (compile errors)."""
    calls: list[Callable[[], Row]] = []
    mutants: list[Callable[[], Row]] = []
    decided: list[Row] = []
    drawn = js_mutants.mutants_of(case.folder, case.scripts, case.name, args.mutants, js_mutants.SEED)

    def run(kind: str, target: str, tester: str, operator: str, ident: str, seed: int,
            lines: dict[str, list[int]]) -> Callable[[], Row]:
        def call() -> Row:
            start = time.monotonic()
            data = play(target, case.folder, tester, seed, args)
            return _row(kind, case, tester, operator, ident, seed, data, lines, args.db, start)
        return call

    for m in drawn:
        ready = prepare(case, m, scratch)
        if ready.folder is None:
            decided.append(Row("mutant", case.name, case.source, "", m.operator, m.id, 0, COMPILE_ERROR,
                               ready.compile_error, None, None, 0.0))
            continue
        mutants += [run("mutant", str(ready.folder), t, m.operator, m.id, s, ready.lines)
                    for t in args.testers for s in range(args.seeds)]
    if args.bugs and case.source == "bundled":
        calls += [run("bug", f"{case.folder}@{b.id}", t, b.type, f"{case.name}@{b.id}", s, {})
                  for b in load_bugs(case.folder) for t in args.testers for s in range(args.seeds)]
    # References first, then the bugs, then the mutants: a bench stopped early has its false alarms counted.
    refs = [run("reference", str(case.folder), t, "", "", s, {}) for t in args.testers for s in range(args.ref_seeds)]
    return refs + calls + mutants, decided


def summarise(rows: list[Row]) -> dict[str, Any]:
    """Per tester: the mutation score (all, by program, by operator), bug recall and reference outcomes."""
    played = [asdict(r) for r in rows if r.verdict != COMPILE_ERROR]
    covered = scoring.reached_anywhere(played)
    no_cov = {str(r["mutant"]) for r in played if r["kind"] == "mutant" and r["reached"] is None}
    no_cov -= covered | {str(r["mutant"]) for r in played if r["kind"] == "mutant" and r["reached"] is False}
    out: dict[str, Any] = {"compile_errors": sum(r.verdict == COMPILE_ERROR for r in rows),
                           "mutants_without_coverage": sorted(no_cov)}
    for tester in sorted({r["tester"] for r in played}):
        mine = [r for r in played if r["tester"] == tester and r["mutant"] not in no_cov]

        def block(sel: list[dict[str, Any]]) -> dict[str, Any]:
            bugs = [r for r in sel if r["kind"] == "bug"]
            base = scoring.score([r for r in sel if r["kind"] != "bug"], {}, covered)
            return {**base, "bugs": len(bugs), "bugs_caught": sum(r["verdict"] == "fail" for r in bugs)}
        out[tester] = {"all": block(mine),
                       "by_program": {p: block([r for r in mine if r["program"] == p])
                                      for p in sorted({r["program"] for r in mine})},
                       "by_operator": {o: block([r for r in mine if r["operator"] == o and r["kind"] == "mutant"])
                                       for o in sorted({r["operator"] for r in mine if r["kind"] == "mutant"})}}
    return out


def markdown(summary: dict[str, Any], rows: list[Row], header: str) -> str:
    out = [header, ""]
    if summary["mutants_without_coverage"]:
        out += [f"**{len(summary['mutants_without_coverage'])} mutants had no JavaScript coverage in any run** "
                "(the engine recorded none): they are left out of every count below.", ""]
    out.append(f"TypeScript mutants refused by tsc (compile errors, played by nobody): {summary['compile_errors']}.")
    for tester in (t for t in summary if t not in ("compile_errors", "mutants_without_coverage")):
        s = summary[tester]
        out += ["", f"### {tester}", "", scoring.MUTANT_HEADER, scoring.mutant_line("**all**", s["all"])]
        out += [scoring.mutant_line(f"program: {p}", b) for p, b in s["by_program"].items() if b["mutants"]]
        out += [scoring.mutant_line(f"operator: {o}", b) for o, b in s["by_operator"].items()]
        out += ["", scoring.REFERENCE_HEADER, scoring.reference_line("**all**", s["all"])]
        out += [scoring.reference_line(f"program: {p}", b) for p, b in s["by_program"].items() if b["references"]]
        if s["all"]["bugs"]:
            out += ["", f"Hand-written bug variants caught: {scoring.rate(s['all']['bugs_caught'], s['all']['bugs'])}"]
            out += [f"- {p}: {scoring.rate(b['bugs_caught'], b['bugs'])}" for p, b in s["by_program"].items() if b["bugs"]]
    out += ["", "| kind | tester | program | mutant or bug | seed | reached | verdict | reason | s |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        reason = r.reason.replace("|", "/").replace("\n", " ")[:140]
        out.append(f"| {r.kind} | {r.tester} | {r.program} | {r.mutant} | {r.seed} "
                   f"| {'' if r.reached is None else r.reached} | {r.verdict} | {reason} | {r.seconds:g} |")
    return "\n".join(out) + "\n"


def _cli_has(flag: str) -> bool:
    out = subprocess.run([sys.executable, "-m", "app", "test", "--help"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    return flag in out.stdout


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m benchmark.web_bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", default="", help="comma-separated program names (default: all)")
    ap.add_argument("--no-bundled", dest="bundled", action="store_false", help="leave out benchmark/web")
    ap.add_argument("--no-corpus", dest="corpus", action="store_false", help="leave out the npm web corpus")
    ap.add_argument("--testers", default="offline,differential")
    ap.add_argument("--mutants", type=int, default=MUTANTS_PER_PROGRAM, help="mutants drawn per program")
    ap.add_argument("--seeds", type=int, default=SEEDS, help="seeds each mutant and bug is played on")
    ap.add_argument("--ref-seeds", type=int, default=REF_SEEDS, help="seeds each reference is played on")
    ap.add_argument("--no-bugs", dest="bugs", action="store_false", help="leave out the bundled bug variants")
    ap.add_argument("--max-steps", type=int, default=MAX_STEPS)
    ap.add_argument("--duration", type=float, default=None)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--cache", type=Path, default=None, help="the web corpus cache (default: the installer's)")
    ap.add_argument("--db", type=Path, default=None, help="SQLite file for every run (default: a scratch file)")
    ap.add_argument("--rescore", type=Path, default=None,
                    help="count the runs of a stopped bench (benchmark/results/web-NAME.partial.jsonl) instead")
    ap.add_argument("--name", default="mutants", help="results go to benchmark/results/web-NAME.json and .md")
    args = ap.parse_args(argv)
    args.testers = [t for t in args.testers.split(",") if t]
    return args


def rescore(path: Path, args: argparse.Namespace) -> int:
    """Count the rows a stopped bench wrote (its ``.partial.jsonl``) as a results file of their own."""
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    head = next((i["header"] for i in items if "header" in i), {})
    rows = [Row(**i) for i in items if "header" not in i]
    command = f"{head.get('command', 'python -m benchmark.web_bench')} (stopped after {len(rows)} runs; counted by " \
              f"--rescore {path.name})"
    print(f"{len(rows)} runs read from {path}")
    return write_results(rows, args, command, head.get("measured_on") or measured_on(),
                         float(head.get("load_average") or 0.0))


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.rescore is not None:
        return rescore(args.rescore, args)
    args.explore_only = ["--no-script"] if "differential" in args.testers and _cli_has("--no-script") else []
    provenance = measured_on()
    command = "python -m benchmark.web_bench " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:])
                                                         if not a.startswith("--db"))
    load = os.getloadavg()[0]
    print(f"command: {command}\nmeasured on: {describe_commit(provenance)}; load average {load:.1f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="playcoder-web-bench-") as tmp:
        scratch = Path(tmp)
        if args.db is None:
            args.db = scratch / "web.db"
        calls: list[Callable[[], Row]] = []
        decided: list[Row] = []
        for case in cases(args):
            more, fixed = calls_for(case, args, scratch)
            calls += more
            decided += fixed
        print(f"{len(calls)} runs, {len(decided)} compile errors", flush=True)

        partial = RESULTS / f"web-{args.name}.partial.jsonl"
        RESULTS.mkdir(parents=True, exist_ok=True)
        head = {"header": {"command": command, "measured_on": provenance, "load_average": load}}
        partial.write_text("".join(json.dumps(x) + "\n" for x in [head, *map(asdict, decided)]), encoding="utf-8")

        def done(i: int, row: Row) -> None:
            with partial.open("a", encoding="utf-8") as f:  # a stopped bench keeps what it played
                f.write(json.dumps(asdict(row)) + "\n")
            print(f"  [{i + 1}/{len(calls)}] {row.kind} {row.tester} {row.mutant or row.program} seed {row.seed}: "
                  f"{row.verdict}" + ("" if row.reached is None else f" (reached: {row.reached})"),
                  file=sys.stderr, flush=True)
        rows: list[Row] = decided + run_batch(calls, args.jobs, done)
    partial.unlink(missing_ok=True)
    return write_results(rows, args, command, provenance, load)


def write_results(rows: list[Row], args: argparse.Namespace, command: str, provenance: dict[str, Any],
                  load: float) -> int:
    summary = summarise(rows)
    header = (f"# Web programs: mutants, bugs and references at {describe_commit(provenance)}\n\n    {command}\n\n"
              f"Measured on a shared machine (load average {load:.1f} at the start, 2 cores): the seconds are "
              "those of a loaded machine.  Every run counts (Stryker's categories, benchmark/scoring.py).")
    text = markdown(summary, rows, header)
    print(text)
    payload = {"command": command, "measured_on": provenance, "load_average": round(load, 2),
               "testers": args.testers, "explore_only_flag": getattr(args, "explore_only", None), "summary": summary,
               "runs": [asdict(r) for r in rows]}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"web-{args.name}.json").write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    (RESULTS / f"web-{args.name}.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
