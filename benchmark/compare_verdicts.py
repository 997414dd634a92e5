"""Two `bench detect` results compared target by target: do they give the same verdicts?

    python benchmark/compare_verdicts.py A.json[,A2.json] B.json[,B2.json] [--names inside,pixels]

Made for the check that settling from inside changes no verdict: the same
commit played once as usual and once with ``PLAYCODER_SETTLE=pixels``.  Targets
are matched by (target, repeat, seed); a side may be several files (comma-separated, e.g. two
benches of different apps); a target only one side played is listed
apart.  Prints the agreement, then every target whose verdicts differ with both
verdicts, the ground truth and each side's reason.  Exit code 0 when all agree.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

Key = tuple[str, int, int]


def load_rows(path: Path) -> dict[Key, dict[str, Any]]:
    """The runs of one ``bench detect --json`` file, by (target, repeat, seed)."""
    try:
        data = json.loads(path.read_text())
        return {(r["target"], int(r["repeat"]), int(r["seed"])): r for r in data["runs"]}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SystemExit(f"{path} is not a `playcoder bench detect --json` result ({exc}); give the files it wrote.")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="one side's bench detect --json file(s), comma-separated")
    ap.add_argument("b", help="the other side's")
    ap.add_argument("--names", default="A,B", help="what to call the two sides (default A,B)")
    args = ap.parse_args(argv)
    names = (args.names.split(",") + ["A", "B"])[:2]
    a = {k: r for f in args.a.split(",") if f for k, r in load_rows(Path(f)).items()}
    b = {k: r for f in args.b.split(",") if f for k, r in load_rows(Path(f)).items()}
    shared = sorted(set(a) & set(b))
    if not shared:
        raise SystemExit("The two results have no target in common; compare runs of the same apps and seeds.")
    differ = [k for k in shared if a[k]["verdict"] != b[k]["verdict"]]
    correct = [sum(1 for k in shared if side[k]["verdict"] == side[k]["truth"]) for side in (a, b)]
    print(f"{len(shared) - len(differ)} of {len(shared)} targets with the same verdict "
          f"({100 * (len(shared) - len(differ)) / len(shared):.1f}%); correct: {names[0]} {correct[0]}, "
          f"{names[1]} {correct[1]}")
    for only, name in ((sorted(set(a) - set(b)), names[0]), (sorted(set(b) - set(a)), names[1])):
        if only:
            targets = sorted({t for t, _, _ in only})
            print(f"played by {name} only: {len(only)} runs of {len(targets)} targets ({', '.join(targets[:12])}"
                  + (", ..." if len(targets) > 12 else "") + ")")
    if differ:
        print(f"\n| target | seed | truth | {names[0]} | {names[1]} | {names[0]} reason | {names[1]} reason |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for k in differ:
            ra, rb = a[k], b[k]
            print(f"| {k[0]} | {k[2]} | {ra['truth']} | {ra['verdict']} | {rb['verdict']} | "
                  f"{ra['reason'][:90]} | {rb['reason'][:90]} |")
    return 0 if not differ else 1


if __name__ == "__main__":
    sys.exit(main())
