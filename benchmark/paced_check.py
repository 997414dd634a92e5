"""The paced check alone: each program against itself (must agree) and each timing bug against its app.

    python -m benchmark.paced_check [--apps a,b] [--corpus-split tune|test|none] [--bugs] [--seconds S]

Runs :class:`app.engine.testers.paced.PacedCheck` (the part of differential play
that watches both programs off the frame gate and off the pinned clocks) once per
pair, sequentially, and prints one row per pair with both programs' pictures and
motion per second and the finding, if any.  References: every bundled app
(``benchmark/apps``) and, with ``--corpus-split``, the corpus programs of that half.
``--bugs``: the bundled bug variants of type ``timing`` against their app.  The
output names the command, the commit and whether the tree was clean.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
import tomllib
from pathlib import Path

from app.engine.bench.provenance import describe_commit, measured_on
from app.engine.play.targetspec import resolve_target
from app.engine.testers.paced import PACED_TOLERANCE, PACED_WATCH_S, PacedCheck
from benchmark.mutants import corpus_programs, program_split

ROOT = Path(__file__).resolve().parents[1]
APPS = ROOT / "benchmark" / "apps"


def timing_bugs(apps: list[str]) -> list[str]:
    out = []
    for app in apps:
        toml = APPS / app / "bugs" / "bugs.toml"
        if toml.is_file():
            out += [f"{app}@{b['id']}" for b in tomllib.loads(toml.read_text())["bug"] if b.get("type") == "timing"]
    return out


def one(candidate: str, reference: str, seconds: float) -> str:
    cand, ref = resolve_target(candidate), resolve_target(reference)
    start = time.monotonic()
    try:
        check = PacedCheck(cand.spec, ref.spec, 0, seconds=seconds)
        found = check.run()
    finally:
        cand.cleanup()
        ref.cleanup()
    paces = ("| " + " | ".join(f"{p.draws_per_s:.0f} / {p.pictures_per_s:.0f} / {100 * p.motion_per_s:.1f}%" for p in check.paces)
             if check.paces else "| — | —")
    what = f"**paced**: {found.message}" if found is not None else (check.note or "same")
    name = candidate if "@" in candidate else Path(candidate).name
    return f"| {name} {paces} | {what} | {time.monotonic() - start:.0f} |"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmark.paced_check", description=__doc__.split("\n\n")[0])
    ap.add_argument("--apps", default="", help="comma-separated bundled apps (default: all)")
    ap.add_argument("--corpus-split", choices=["tune", "test", "none"], default="none")
    ap.add_argument("--bugs", action="store_true", help="also each timing bug against its app")
    ap.add_argument("--seconds", type=float, default=PACED_WATCH_S)
    args = ap.parse_args(argv)
    apps = [a for a in args.apps.split(",") if a] or sorted(p.parent.name for p in APPS.glob("*/playcoder.toml"))
    pairs = [(str(APPS / a), str(APPS / a)) for a in apps]
    if args.corpus_split != "none":
        pairs += [(str(f), str(f)) for f in corpus_programs() if program_split(f.name) == args.corpus_split]
    if args.bugs:
        pairs += [(bug, str(APPS / bug.split("@")[0])) for bug in timing_bugs(apps)]
    provenance = measured_on()
    print(f"    python -m benchmark.paced_check {' '.join(shlex.quote(a) for a in (argv or sys.argv[1:]))}")
    print(f"measured on: {describe_commit(provenance)}; "
          f"watch {args.seconds:g} s, tolerance {PACED_TOLERANCE:g}x\n")
    print("| candidate | candidate draws/s / pictures/s / motion/s | reference draws/s / pictures/s / motion/s "
          "| finding | s |")
    print("| --- | --- | --- | --- | --- |", flush=True)
    for candidate, reference in pairs:
        print(one(candidate, reference, args.seconds), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
