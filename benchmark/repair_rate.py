"""Repair rate of a refiner over the benchmark's bug variants, for the tuning and the held-out half.

For every ``benchmark/apps/<app>/bugs/<bug>.patch`` this runs the real CLI,
``playcoder repair <app>@<bug> --json``, in its own process (the refiner
sees only the materialised copy without ``bugs/``, never the label), and
reports each variant as one of:

* fixed: the loop ended with the unit tests passing and every tester's
  verdict pass (the offline tester, plus the scripted rubric tester where
  the target has a ``[[script]]`` section) -- the repair's *claim* -- **and**
  the claim holds up (:mod:`benchmark.repair_check`): the patch swallows no
  exception and deletes no behaviour, and the repaired program behaves as the
  unmodified app under differential play on three seeds;
* template inverse: the repair's claimed fix was made by a template that is a
  mutation operator run backwards (:data:`benchmark.repair_check.INVERTING_TEMPLATES`),
  in either half: its own column, never in the repair rate;
* suppressed / diverges: the repair claimed a fix that does not hold up (a
  silenced symptom; a program that plays differently from the reference);
  counted as not fixed, with the diff;
* not fixed: the first play or the unit tests failed and no patch made the
  program pass;
* not detected: the first play passed and the unit tests passed, so there
  was nothing to repair (not counted as fixed);
* no answer: the testers could not judge the program (verdict uncertain), or
  the repair could not run (error);

plus same-as-reference (every repaired source file has the same ast as the
bug-free app; this script reads the reference, the refiner never does),
refused patches (that touched the program's oracles), iterations and seconds.

Every rate counts every variant of its half: the repair rate is fixed /
variants, and "no answer" and "not detected" count as not fixed.  The
halves come from :mod:`app.engine.bench.split` (a fixed sha256 rule); the
refiner's templates may be tuned on the tuning half only.  ``--md FILE`` writes the tables with the commit
they were measured on; benchmark/README.md takes them from there.

    python -m benchmark.repair_rate [--apps calculator flappy] [--refiner offline] [--json out.json] [--md out.md]
    python -m benchmark.repair_rate --executor ray [--ray-address HOST:PORT] [--db runs.db]   # one Ray task a variant
    python -m benchmark.repair_rate --rescore OLD.json --json NEW.json --md NEW.md   # count again, repair nothing
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.engine.bench import children  # noqa: E402
from app.engine.bench.executors import CommandResult, CommandTask, RayExecutor, summary_line  # noqa: E402
from app.engine.bench.provenance import describe_commit, measured_on  # noqa: E402
from app.engine.bench.ray_tasks import DB, SCRATCH  # noqa: E402
from app import pysyntax  # noqa: E402
from app.paths import default_db  # noqa: E402
from app.engine.bench.jobs import run_parallel  # noqa: E402
from app.engine.bench.split import SPLITS, split_of  # noqa: E402
from app.engine.errors import UserError  # noqa: E402
from app.engine.play.targetspec import list_apps, load_bugs  # noqa: E402
from benchmark.repair_check import INVERTING_TEMPLATES, TEMPLATE_INVERSE, check_claimed_fix  # noqa: E402

VARIANT_TIMEOUT_S = 1200
OUTCOMES = ("fixed", TEMPLATE_INVERSE, "suppressed", "diverges", "not fixed", "not detected", "no answer")
CLAIMED = ("fixed", TEMPLATE_INVERSE, "suppressed", "diverges")
"""Outcomes where the repair itself said fixed; only ``fixed`` held up under the benchmark's checks."""
COUNTING = ("every variant counts: the repair rate is fixed / all variants of the half, where fixed means the "
            "repair's claim held up (no swallowed exception, no deleted behaviour, plays as the unmodified app "
            "under differential play on 3 seeds) and its patch is not a mutation operator run backwards "
            "(template inverse, its own column in both halves); template inverse, suppressed, diverges, not "
            "detected and no answer (uncertain or error) count as not fixed")
CHECK_STEPS = 40
"""Steps of each differential run that checks a claimed fix."""


def same_as_reference(repaired: Path, reference: Path) -> bool:
    for src in reference.glob("*.py"):
        other = repaired / src.name
        if not other.is_file():
            return False
        try:
            # (rows are made in worker threads: parse under the app's lock, see app/pysyntax.py)
            if ast.dump(pysyntax.parse(src.read_text())) != ast.dump(pysyntax.parse(other.read_text())):
                return False
        except SyntaxError:
            return False
    return True


def _interrupted(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def repair_args(app: Path, bug: str, args: argparse.Namespace, db: str, out: str) -> list[str]:
    """``playcoder repair`` of one variant (after ``python -m app``)."""
    return ["repair", f"{app.name}@{bug}", "--json", "--db", db, "--out", out, "--refiner", args.refiner,
            "--max-iterations", str(args.max_iterations), "--max-steps", str(args.max_steps)]


def run_variant(app: Path, bug: str, args: argparse.Namespace, tmp: Path, index: int) -> dict[str, Any]:
    # Neutral names: nothing the repair can see (its --out folder, its database) names the bug.
    out = tmp / f"variant-{index:03d}"
    cmd = [sys.executable, "-m", "app", *repair_args(app, bug, args, str(tmp / f"{out.name}.db"), str(out))]
    t0 = time.monotonic()
    # Its own process group, dying with us, stopped on Ctrl-C or SIGTERM (as bench detect's runs are).
    proc = children.spawn(cmd, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc is None:
        return variant_row(app, bug, "", "the benchmark was interrupted before this repair started", -1, 0.0, out)
    try:
        stdout, stderr = proc.communicate(timeout=VARIANT_TIMEOUT_S)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        children.stop_all([proc])
        proc.communicate()
        stdout, stderr, code = "", f"the repair took longer than {VARIANT_TIMEOUT_S} s", -1
    except BaseException:
        children.stop_all([proc])
        raise
    finally:
        children.forget(proc)
    return variant_row(app, bug, stdout, stderr, code, time.monotonic() - t0, out)


def variant_row(app: Path, bug: str, stdout: str, stderr: str, code: int, seconds: float,
                out: Path) -> dict[str, Any]:
    """One variant's row from its repair's output and the repaired sources in ``out``."""
    lines = stdout.strip().splitlines()
    try:
        summary = json.loads(lines[-1]) if lines else {}
    except ValueError:
        summary = {}
    iterations = summary.get("iterations", [])
    outcome = classify(summary, code)
    split = split_of(app.name, bug)
    patch = next((i["description"] for i in iterations if i.get("outcome") == "fixed"), "")
    checked: dict[str, Any] = {}
    if outcome == "fixed":  # the repair's claim: now checked with what the refiner never saw
        checked = check_claimed_fix(f"{app.name}@{bug}", app, out, patch, CHECK_STEPS)
        outcome = checked["outcome"]
    fixed = outcome == "fixed"
    return {
        "variant": f"{app.name}@{bug}", "split": split, "exit": code, "outcome": outcome,
        "detected": outcome in (*CLAIMED, "not fixed"), "claimed": outcome in CLAIMED, "fixed": fixed,
        "final_verdict": summary.get("final_verdict", "error"), "iterations": len(iterations),
        "refused": sum(i.get("outcome") == "refused" for i in iterations), "seconds": round(seconds, 1),
        "same_as_reference": fixed and same_as_reference(out, app),
        "patch": patch, "check": checked.get("check", ""), "template": checked.get("template", ""),
        "template_inverse": checked.get("template_inverse", False), "diff": checked.get("diff", ""),
        "behaviour": checked.get("behaviour", []),
        "reason": summary.get("reason", stderr.strip()[-300:]),
    }


def classify(summary: dict[str, Any], exit_code: int) -> str:
    """fixed | not fixed | not detected | no answer, from the repair's JSON summary."""
    if not summary or summary.get("final_verdict") in ("uncertain", "error", None):
        return "no answer"
    iterations = summary.get("iterations", [])
    if summary.get("fixed"):
        return "fixed" if iterations else "not detected"
    return "not fixed"


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts and rates over ``rows``, every row in every denominator."""
    total = len(rows)
    fixed = [r for r in rows if r["fixed"]]
    detected = [r for r in rows if r["detected"]]
    return {
        "variants": total, **{o.replace(" ", "_"): sum(r["outcome"] == o for r in rows) for o in OUTCOMES},
        "claimed_fixed": sum(r.get("claimed", r["fixed"]) for r in rows),
        "repair_rate": round(len(fixed) / total, 3) if total else None,
        "repair_rate_detected": round(len(fixed) / len(detected), 3) if detected else None,
        "same_as_reference": sum(r["same_as_reference"] for r in rows),
        "refused_patches": sum(r["refused"] for r in rows),
        "mean_iterations_fixed": round(statistics.mean(r["iterations"] for r in fixed), 2) if fixed else None,
        "mean_seconds_all": round(statistics.mean(r["seconds"] for r in rows), 1) if rows else None,
    }


def markdown(rows: list[dict[str, Any]], summary: dict[str, Any]) -> str:
    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.0%}"

    lines = [f"## repair rate — refiner `{summary['refiner']}`, at most {summary['max_iterations']} iterations, "
             f"max {summary['max_steps']} steps, {summary['wall_seconds']:.0f} s wall", "",
             f"Measured on {describe_commit(summary['measured_on'])}"
             + (f", counted at {describe_commit(summary['counted_on'])}" if summary.get("counted_on") else "")
             + f"; {summary.get('counting', COUNTING)}.", "",
             *([f"Command: `{summary['command']}`", ""] if summary.get("command") else []),
             "The bundled suite is **in-sample**: every bug, and the refiner's templates, were seen before the "
             "split was drawn; 'held-out' is only the half the templates were not meant to be tuned on. A claimed "
             "fix made by a template that runs a mutation operator backwards (template inverse: "
             + ", ".join(sorted(INVERTING_TEMPLATES)) + ") is its own column in both halves and not in the rate.", "",
             "| half | variants | repair rate (template inverses excluded) | claimed fixed | fixed (held up) "
             "| template inverse | suppressed | diverges | not fixed | not detected | no answer | same as reference "
             "| refused patches |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, t in [*summary["by_split"].items(), ("all", summary["totals"])]:
        lines.append(f"| {name} | {t['variants']} | {pct(t['repair_rate'])} | {t['claimed_fixed']} | {t['fixed']} | "
                     f"{t['template_inverse']} | {t['suppressed']} | {t['diverges']} | {t['not_fixed']} | "
                     f"{t['not_detected']} | {t['no_answer']} | {t['same_as_reference']} | {t['refused_patches']} |")
    lines += ["", "| variant | half | outcome | iterations | seconds | patch or reason |",
              "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        why = " ".join(str(r["patch"] or r["reason"]).split())[:110].replace("|", "/")
        if r.get("check"):
            why += " — " + " ".join(str(r["check"]).split())[:140].replace("|", "/")
        same = " (= reference)" if r["same_as_reference"] else ""
        lines.append(f"| {r['variant']} | {r['split']} | {r['outcome']}{same} | {r['iterations']} | "
                     f"{r['seconds']:.0f} | {why} |")
    diffs = [r for r in rows if r.get("diff")]
    if diffs:
        lines += ["", "### Every claimed fix's diff (the buggy variant against the repaired copy)", ""]
        for r in diffs:
            lines += [f"#### {r['variant']}: {r['outcome']}", "", "```diff", r["diff"].rstrip("\n"), "```", ""]
    return "\n".join(lines) + "\n"


def recount(row: dict[str, Any]) -> dict[str, Any]:
    """An earlier row counted with today's rules: a claimed fix by an inverting template is a template inverse
    (after suppression, before behaviour, as :func:`benchmark.repair_check.check_claimed_fix` decides)."""
    row = dict(row)
    outcome = "template inverse" if row["outcome"] == "tuned template" else row["outcome"]
    inverse = row.get("template", "") in INVERTING_TEMPLATES
    if outcome in ("fixed", "diverges", TEMPLATE_INVERSE) and inverse:
        outcome = TEMPLATE_INVERSE
    row.pop("tuned_template", None)
    row.update(outcome=outcome, template_inverse=inverse, fixed=outcome == "fixed",
               same_as_reference=outcome == "fixed" and row.get("same_as_reference", False))
    if outcome == TEMPLATE_INVERSE:
        row["check"] = f"made by {row['template']}, which {INVERTING_TEMPLATES[row['template']]}: counted apart"
    return row


def rescore(path: Path, args: argparse.Namespace) -> int:
    """Count an earlier --json file's rows with this checkout's rules; repair nothing."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        rows = [recount(r) for r in data["rows"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"{path} is not a repair_rate results file ({exc}); pass a --json file it wrote.", file=sys.stderr)
        return 2
    data.pop("regenerated_on", None)
    summary = {**{k: v for k, v in data.items() if k != "rows"}, "counting": COUNTING, "counted_on": measured_on(),
               "command": f"{data.get('command', '')}  (counted again: python -m benchmark.repair_rate --rescore "
                          f"{path.name})",
               "totals": totals(rows), "by_split": {n: totals([r for r in rows if r["split"] == n]) for n in SPLITS}}
    _write(args, rows, summary)
    return 0


def _write(args: argparse.Namespace, rows: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    if args.json is not None:
        args.json.write_text(json.dumps({"rows": rows, **summary}, indent=2))
    if args.md is not None:
        args.md.parent.mkdir(parents=True, exist_ok=True)
        args.md.write_text(markdown(rows, summary), encoding="utf-8")


def print_row(row: dict[str, Any]) -> dict[str, Any]:
    print(f"{row['variant']:<36} {row['split']:<9} {row['outcome']:<13} it={row['iterations']} "
          f"{row['seconds']:>6.1f} s{'  =reference' if row['same_as_reference'] else ''}  "
          f"{row['patch'] or row['reason']}", flush=True)
    return row


def run_on_ray(variants: list[tuple[Path, str]], args: argparse.Namespace,
               tmp: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Each variant's repair as a Ray task (``--executor ray``); its runs land in ``--db`` as each task ends.

    The task repairs into a neutral folder of its scratch space and brings the repaired sources back, so
    same-as-reference is judged here exactly as for a local run."""
    tasks = [CommandTask(tuple(repair_args(app, bug, args, DB, f"{SCRATCH}/variant")), VARIANT_TIMEOUT_S,
                         collect="variant/*.py") for app, bug in variants]
    rows: list[dict[str, Any]] = [{} for _ in variants]

    def done(index: int, result: CommandResult) -> None:
        app, bug = variants[index]
        out = tmp / f"variant-{index:03d}"
        for name, data in result.files.items():
            (out / Path(name).name).parent.mkdir(parents=True, exist_ok=True)
            (out / Path(name).name).write_bytes(data)
        row = variant_row(app, bug, result.stdout, result.error or result.stderr,
                          -1 if result.error else result.exit_code, result.seconds, out)
        rows[index] = print_row({**row, "runs": sorted(result.run_ids.values()), "node": result.node})

    with RayExecutor(args.ray_address, local_cpus=max(1, args.jobs)) as executor:
        executor.commands(tasks, args.db or default_db(), done)
        return rows, executor.describe()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--apps", nargs="*", default=None)
    parser.add_argument("--refiner", default="offline")
    parser.add_argument("--max-iterations", type=int, default=6)
    parser.add_argument("--max-steps", type=int, default=40)
    parser.add_argument("--json", type=Path, default=None, help="also write the rows and totals here")
    parser.add_argument("--md", type=Path, default=None, help="also write the Markdown tables here")
    parser.add_argument("--jobs", type=int, default=1, help="variants repaired at once (each has its own Xvfb)")
    parser.add_argument("--executor", choices=("local", "ray"), default="local",
                        help="local: --jobs processes here (default); ray: one Ray task per variant, its runs "
                             "imported into --db as they arrive")
    parser.add_argument("--ray-address", default=None, metavar="ADDR",
                        help="with --executor ray: the cluster to join (default: a local Ray instance, --jobs CPUs)")
    parser.add_argument("--db", type=Path, default=None,
                        help="with --executor ray: the database the runs are imported into (default: $PLAYCODER_DB "
                             "or the user data dir)")
    parser.add_argument("--rescore", type=Path, default=None,
                        help="count an earlier --json file's rows with this checkout's rules (repairs nothing)")
    args = parser.parse_args(argv)
    if args.rescore is not None:
        return rescore(args.rescore, args)
    # Ctrl-C and SIGTERM stop the running repairs, even when started in the background (where a
    # shell starts it with SIGINT ignored).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupted)
    apps = [a for a in list_apps() if args.apps is None or a.name in args.apps]
    variants = [(app, bug.id) for app in apps for bug in load_bugs(app)]
    measured = measured_on()  # the code as it was when the repairs started
    t0 = time.monotonic()
    played: dict[str, Any] = {"executor": "local", "jobs": args.jobs}
    with tempfile.TemporaryDirectory(prefix="playcoder-repair-rate-") as tmp:
        def one(item: tuple[int, tuple[Path, str]]) -> dict[str, Any]:
            index, (app, bug) = item
            return print_row(run_variant(app, bug, args, Path(tmp), index))

        if args.executor == "ray":
            try:
                rows, played = run_on_ray(variants, args, Path(tmp))
            except UserError as exc:
                print(exc, file=sys.stderr)
                return 2
        else:
            try:
                rows = run_parallel([functools.partial(one, item) for item in enumerate(variants)], max(1, args.jobs))
            except KeyboardInterrupt:
                print("repair_rate: interrupted; the running repairs were stopped and no table was written.",
                      file=sys.stderr)
                return 130
    summary = {"refiner": args.refiner, "max_iterations": args.max_iterations, "max_steps": args.max_steps,
               "wall_seconds": round(time.monotonic() - t0, 1), "measured_on": measured, "counting": COUNTING,
               "command": " ".join(["python -m benchmark.repair_rate", *(sys.argv[1:] if argv is None else argv)]),
               "executor": played,
               "totals": totals(rows), "by_split": {name: totals([r for r in rows if r["split"] == name])
                                                   for name in SPLITS}}
    all_ = summary["totals"]
    print(f"\nrefiner {args.refiner}: fixed {all_['fixed']}/{all_['variants']} variants "
          f"(repair rate {all_['repair_rate'] or 0:.1%}; {COUNTING})")
    for name, t in summary["by_split"].items():
        print(f"  {name}: fixed {t['fixed']}/{t['variants']} ({t['repair_rate'] or 0:.1%}), not fixed "
              f"{t['not_fixed']}, not detected {t['not_detected']}, no answer {t['no_answer']}, "
              f"{t['same_as_reference']} identical to the reference, {t['refused_patches']} refused patches")
    print(f"wall time {summary['wall_seconds']:.0f} s with {args.jobs} job(s)" if args.executor == "local"
          else summary_line(played, len(rows), summary["wall_seconds"], "variants"))
    _write(args, rows, summary)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
