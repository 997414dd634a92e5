"""Which corpus mutants are observable, and each tester's recall over them.

    python -m benchmark.corpus_observe RESULTS.json [RESULTS.json ...] [--duration 60] [--seeds 0]
                                       [--jobs 2] [--include-unreached] [--json FILE] [--md FILE]

``RESULTS.json`` are ``benchmark.corpus_bench`` outputs (mutant runs of any
tester, e.g. ``results/corpus-differential-mutants.json`` and
``results/corpus-offline-mutants.json``).  A mutant is decided from what they
hold, then from long differential runs this command plays:

- **observable**: a differential run, with the mutated line reached in that
  run, ended ``fail``: its play differed from the unmodified program's after
  the same inputs (or it crashed or froze where the reference did not).
  Differential play's false-positive rate on the corpus references and
  refactorings is measured apart (``corpus-*-references-*``,
  ``corpus-refactorings``); a ``fail`` is taken as a difference.
- otherwise, when its line ran in some run (``--include-unreached``: or in
  none), it is played again against the unmodified program, explore-only,
  ``--duration`` seconds (a generous budget: four times the bench's) on each
  of ``--seeds``: a ``fail`` with the line reached makes it observable;
- **not observable**: its line ran, and no run saw a difference (an
  equivalent mutant, or one whose effect this exploration never shows);
- **never reached**: its line ran in no run (without ``--include-unreached``
  no long run is played for it: it counts as not observable, said apart);
- **undecided**: a long run ended ``error`` or ``uncertain`` and none failed.
  Undecided mutants are left out of the observable denominator and counted.

Recall over the observable mutants, for each tester of ``RESULTS``, is
``caught with the line reached / observable``.  A tester's catch of a mutant
decided *not observable* (no differential run saw it) is counted apart.

The decision leans on differential play itself (the strongest judge here):
read the observable recall of the differential tester as *how much of what a
long run sees, a short run sees*, not as an absolute rate.  No tester sees a
mutant's id, operator or place: the runs are plain ``playcoder test`` children.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from app.engine.bench.children import run_batch
from app.engine.bench.provenance import describe_commit, measured_on
from benchmark.corpus_bench import ROOT, Row, _mutant_call
from benchmark.mutants import MANIFEST, load_manifest

OBSERVABLE, NOT_OBSERVABLE, NEVER_REACHED, UNDECIDED = "observable", "not observable", "never reached", "undecided"
LONG_S = 60.0


def decide(runs: list[dict[str, Any]]) -> str:
    """A mutant's class from every run of it (each a corpus_bench row: tester, verdict, reached)."""
    if any(r["tester"] == "differential" and r["verdict"] == "fail" and r.get("reached") for r in runs):
        return OBSERVABLE
    long = [r for r in runs if r.get("long")]
    if long and all(r["verdict"] in ("error", "uncertain") for r in long):
        return UNDECIDED
    if any(r.get("reached") for r in runs):
        return NOT_OBSERVABLE
    return NEVER_REACHED


def wants_long_run(runs: list[dict[str, Any]], include_unreached: bool) -> bool:
    """Is a mutant undecided by the runs given (so a long differential run should look at it)?"""
    if decide(runs) == OBSERVABLE:
        return False
    return include_unreached or any(r.get("reached") for r in runs)


def load_runs(paths: list[Path]) -> tuple[dict[str, list[dict[str, Any]]], list[str], list[str]]:
    """Mutant runs by mutant id (each tagged with its tester), the testers in order, and what was read."""
    by_mutant: dict[str, list[dict[str, Any]]] = {}
    testers: list[str] = []
    read: list[str] = []
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            tester, rows = str(data["tester"]), list(data["runs"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SystemExit(f"{path} is not a corpus_bench results file ({exc}); pass the --json file a "
                             "`python -m benchmark.corpus_bench` run wrote.")
        if tester not in testers:
            testers.append(tester)
        read.append(f"{path.name} ({tester}, {describe_commit(data.get('measured_on') or {})})")
        for row in rows:
            if row.get("kind") == "mutant":
                by_mutant.setdefault(row["mutant"], []).append({**row, "tester": tester})
    return by_mutant, testers, read


def table(by_mutant: dict[str, list[dict[str, Any]]], classes: dict[str, str], testers: list[str],
          operator_of: dict[str, str], split_of: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """Per tester: recall over all mutants, the reached ones and the observable ones, by split and operator."""
    summary: dict[str, Any] = {}
    out = ["| tester | group | mutants | observable | recall (all) | recall (reached in its run) "
           "| recall (observable) | caught, not observable |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]

    def rate(hits: int, total: int) -> str:
        return f"{100 * hits / total:.0f}% ({hits}/{total})" if total else "—"

    for tester in testers:
        groups = [("**all**", list(by_mutant))]
        groups += [(f"split: {s}", [m for m in by_mutant if split_of[m] == s]) for s in sorted(set(split_of.values()))]
        groups += [(f"operator: {o}", [m for m in by_mutant if operator_of[m] == o])
                   for o in sorted(set(operator_of.values()))]
        summary[tester] = {}
        for name, ids in groups:
            mine = {m: [r for r in by_mutant[m] if r["tester"] == tester and not r.get("long")] for m in ids}
            played = [m for m in ids if mine[m]]
            caught = [m for m in played if any(r["verdict"] == "fail" and r.get("reached") for r in mine[m])]
            caught_any = [m for m in played if any(r["verdict"] == "fail" for r in mine[m])]
            reached = [m for m in played if any(r.get("reached") for r in mine[m])]
            observable = [m for m in played if classes[m] == OBSERVABLE]
            hit_obs = [m for m in caught if classes[m] == OBSERVABLE]
            hit_not = [m for m in caught if classes[m] != OBSERVABLE]
            summary[tester][name.strip("*")] = {"mutants": len(played), "observable": len(observable),
                                                "caught": len(caught_any), "caught_reached": len(caught),
                                                "reached": len(reached), "caught_observable": len(hit_obs),
                                                "caught_not_observable": len(hit_not)}
            if not played:
                continue
            out.append(f"| {tester} | {name} | {len(played)} | {len(observable)} | {rate(len(caught_any), len(played))} "
                       f"| {rate(len(caught), len(reached))} | {rate(len(hit_obs), len(observable))} | {len(hit_not)} |")
    return "\n".join(out) + "\n", summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmark.corpus_observe", description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", type=Path, help="corpus_bench --json files with mutant runs")
    ap.add_argument("--duration", type=float, default=LONG_S, help="seconds each long differential run plays")
    ap.add_argument("--seeds", default="0", help="comma-separated seeds of the long runs")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--include-unreached", action="store_true",
                    help="play long runs for mutants whose line ran in no run given, too")
    ap.add_argument("--no-play", action="store_true", help="decide from the results given alone (no long runs)")
    ap.add_argument("--manifest", type=Path, default=MANIFEST)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--md", type=Path, default=None)
    args = ap.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    by_mutant, testers, read = load_runs(args.results)
    manifest = {m.id: m for m in load_manifest(args.manifest)}
    unknown = sorted(set(by_mutant) - set(manifest))
    if unknown:
        raise SystemExit(f"{len(unknown)} mutants of the results are not in {args.manifest} (first: {unknown[0]}); "
                         "regenerate the results with this manifest.")
    todo = [] if args.no_play else [m for m in by_mutant if wants_long_run(by_mutant[m], args.include_unreached)]
    provenance = measured_on()
    command = "python -m benchmark.corpus_observe " + " ".join(argv if argv is not None else sys.argv[1:])
    print(f"command: {command}")
    print(f"measured on: {describe_commit(provenance)}", flush=True)
    print(f"{len(by_mutant)} mutants in {len(read)} results files; {len(todo)} undecided by them, "
          f"played {args.duration:g} s on seeds {seeds}", flush=True)
    with tempfile.TemporaryDirectory(prefix="playcoder-observe-") as tmp:
        scratch = Path(tmp)
        ns = argparse.Namespace(tester="differential", duration=args.duration, max_steps=None, db=scratch / "observe.db")
        if todo:
            subprocess.run([sys.executable, "-c", "import sys; from app.engine.trace.store import TrajectoryStore; "
                            "TrajectoryStore(sys.argv[1]).close()", str(ns.db)], cwd=ROOT, check=True, timeout=120)
        calls, order = [], []
        for mid in todo:
            for seed in seeds:
                calls.append(_mutant_call(manifest[mid], ns, ["--no-script"], scratch, seed=seed))
                order.append(mid)

        def done(i: int, row: Row) -> None:
            print(f"  [{i + 1}/{len(calls)}] {row.mutant} seed {row.seed}: {row.verdict} (reached: {row.reached})",
                  file=sys.stderr, flush=True)
        long_rows: list[Row] = run_batch(calls, args.jobs, done)
    for mid, row in zip(order, long_rows):
        by_mutant[mid].append({**asdict(row), "tester": "differential", "long": True})
    classes = {m: decide(runs) for m, runs in by_mutant.items()}
    counts = {c: sum(v == c for v in classes.values()) for c in (OBSERVABLE, NOT_OBSERVABLE, NEVER_REACHED, UNDECIDED)}
    text, summary = table(by_mutant, classes, testers, {m: manifest[m].operator for m in by_mutant},
                          {m: by_mutant[m][0]["split"] for m in by_mutant})
    md = "\n".join([
        f"Observable corpus mutants and each tester's recall over them, at {describe_commit(provenance)}.", "",
        f"    {command}", "", "Results read: " + "; ".join(read) + ".", "",
        f"Long differential runs: {len(calls)} ({args.duration:g} s, explore-only, seeds {seeds}) over the "
        f"{len(todo)} mutants the results left undecided"
        + ("" if args.include_unreached else " (those whose line ran in some run; never-reached ones were not played)")
        + ".", "",
        "| class | mutants |", "| --- | --- |", *[f"| {c} | {n} |" for c, n in counts.items()], "",
        "How a mutant is classed: see `benchmark/corpus_observe.py` (observable = a differential run with the "
        "mutated line reached ended `fail`; undecided ones are left out of the observable denominator).", "",
        text, "", "| mutant | class | long runs |", "| --- | --- | --- |",
        *[f"| {m} | {classes[m]} | " + ", ".join(f"seed {r['seed']}: {r['verdict']}"
                                                   + ("" if r.get("reached") else " (not reached)")
                                                   for r in by_mutant[m] if r.get("long")) + " |"
          for m in sorted(by_mutant) if any(r.get("long") for r in by_mutant[m])]]) + "\n"
    print(md)
    if args.json:
        args.json.write_text(json.dumps({"command": command, "measured_on": provenance, "read": read,
                                         "long_duration_s": args.duration, "seeds": seeds, "counts": counts,
                                         "classes": classes, "summary": summary,
                                         "long_runs": [{**asdict(r), "mutant": mid} for mid, r in zip(order, long_rows)]},
                                        indent=1) + "\n", encoding="utf-8")
    if args.md:
        args.md.write_text(md, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
