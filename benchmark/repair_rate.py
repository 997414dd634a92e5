"""Repair rate of a refiner over the benchmark's bug variants.

For every ``benchmark/apps/<app>/bugs/<bug>.patch`` this runs the real CLI,
``playcoder repair <app>@<bug> --json``, in its own process (the refiner
sees only the materialised copy without ``bugs/``), and reports:

* fixed: the loop ended with the unit tests passing and every tester's
  verdict pass (the offline tester, plus the scripted rubric tester where
  the target has a ``[[script]]`` section);
* detected: the first play or the unit tests failed, so there was something
  to repair (an undetected variant "passes" with 0 iterations and is not
  counted as fixed);
* same-as-reference: every repaired source file has the same ast as the
  bug-free app (this script reads the reference; the refiner never does);
* iterations and seconds per variant, and their means.

    python -m benchmark.repair_rate [--apps calculator flappy] [--refiner offline] [--json out.json]
"""

from __future__ import annotations

import argparse
import ast
import json
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.engine.play.targetspec import list_apps, load_bugs  # noqa: E402

VARIANT_TIMEOUT_S = 1200


def same_as_reference(repaired: Path, reference: Path) -> bool:
    for src in reference.glob("*.py"):
        other = repaired / src.name
        if not other.is_file():
            return False
        try:
            if ast.dump(ast.parse(src.read_text())) != ast.dump(ast.parse(other.read_text())):
                return False
        except SyntaxError:
            return False
    return True


def run_variant(app: Path, bug: str, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    out = tmp / f"{app.name}-{bug}"
    cmd = [sys.executable, "-m", "app", "repair", f"{app.name}@{bug}", "--json", "--db", str(tmp / f"{out.name}.db"),
           "--out", str(out), "--refiner", args.refiner, "--max-iterations", str(args.max_iterations),
           "--max-steps", str(args.max_steps)]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=VARIANT_TIMEOUT_S, cwd=ROOT)
    seconds = time.monotonic() - t0
    lines = proc.stdout.strip().splitlines()
    try:
        summary = json.loads(lines[-1]) if lines else {}
    except ValueError:
        summary = {}
    iterations = summary.get("iterations", [])
    fixed = bool(summary.get("fixed"))
    detected = bool(iterations) or not fixed
    return {
        "variant": f"{app.name}@{bug}", "exit": proc.returncode, "detected": detected,
        "fixed": fixed and detected, "iterations": len(iterations), "seconds": round(seconds, 1),
        "same_as_reference": fixed and detected and same_as_reference(out, app),
        "patch": next((i["description"] for i in iterations if i.get("outcome") == "fixed"), ""),
        "reason": summary.get("reason", proc.stderr.strip()[-300:]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", nargs="*", default=None)
    parser.add_argument("--refiner", default="offline")
    parser.add_argument("--max-iterations", type=int, default=6)
    parser.add_argument("--max-steps", type=int, default=40)
    parser.add_argument("--json", type=Path, default=None, help="also write the rows and totals here")
    parser.add_argument("--jobs", type=int, default=1, help="variants repaired at once (each has its own Xvfb)")
    args = parser.parse_args(argv)
    apps = [a for a in list_apps() if args.apps is None or a.name in args.apps]
    variants = [(app, bug.id) for app in apps for bug in load_bugs(app)]
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="playcoder-repair-rate-") as tmp:
        def one(variant: tuple[Path, str]) -> dict[str, Any]:
            row = run_variant(variant[0], variant[1], args, Path(tmp))
            mark = "FIXED" if row["fixed"] else ("not detected" if not row["detected"] else "not fixed")
            print(f"{row['variant']:<36} {mark:<13} it={row['iterations']} {row['seconds']:>6.1f} s"
                  f"{'  =reference' if row['same_as_reference'] else ''}  {row['patch'] or row['reason']}",
                  flush=True)
            return row

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            rows = list(pool.map(one, variants))
    total = len(rows)
    detected = [r for r in rows if r["detected"]]
    fixed = [r for r in rows if r["fixed"]]
    totals = {
        "variants": total, "detected": len(detected), "fixed": len(fixed),
        "repair_rate": round(len(fixed) / total, 3) if total else 0.0,
        "repair_rate_detected": round(len(fixed) / len(detected), 3) if detected else 0.0,
        "same_as_reference": sum(r["same_as_reference"] for r in rows),
        "mean_iterations_fixed": round(statistics.mean(r["iterations"] for r in fixed), 2) if fixed else None,
        "mean_iterations_detected": round(statistics.mean(r["iterations"] for r in detected), 2) if detected else None,
        "mean_seconds_fixed": round(statistics.mean(r["seconds"] for r in fixed), 1) if fixed else None,
        "mean_seconds_all": round(statistics.mean(r["seconds"] for r in rows), 1) if rows else None,
    }
    print(f"\nrefiner {args.refiner}: fixed {len(fixed)}/{total} variants (repair rate {totals['repair_rate']:.1%}); "
          f"{len(fixed)}/{len(detected)} of the detected ones ({totals['repair_rate_detected']:.1%}); "
          f"{totals['same_as_reference']} identical to the reference")
    print(f"wall time {time.monotonic() - t0:.0f} s with {args.jobs} job(s)")
    print(f"mean iterations: {totals['mean_iterations_fixed']} over fixed, {totals['mean_iterations_detected']} over "
          f"detected; mean time: {totals['mean_seconds_fixed']} s per fixed variant, {totals['mean_seconds_all']} s "
          "per variant")
    if args.json is not None:
        args.json.write_text(json.dumps({"rows": rows, "totals": totals}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
