"""Two `bench detect --json` results side by side: recall per suite and per kind (bug type), references passed.

    python -m benchmark.compare_detect A.json B.json [--labels A,B] [--repeats 0] [--md FILE]

Used for explore-only recall (`--no-script`) beside the with-rubric figure. ``--repeats 0`` keeps only the
first repeat of each target (the seed-0 runs of a `--runs 3 --vary-seeds` result), so a one-seed result is
compared with the same seed. Each column names the commit it was measured on; nothing is computed here that
the two files do not hold, and the suite of an app (benchmark/apps or benchmark/wild) is read from its folder.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from app.engine.bench.detect import suite_of
from app.engine.bench.provenance import describe_commit


def load(path: Path, repeats: set[int] | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        runs = [r for r in data["runs"] if repeats is None or r["repeat"] in repeats]
        return data["summary"], runs
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SystemExit(f"{path} is not a `bench detect --json` result ({exc}).") from None


def table(runs: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[int, int]]:
    """(suite, kind) -> (detected, bug runs); kind '*' is every kind, suite '*' every suite; 'reference' rows
    count the references judged pass."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in runs:
        kind = r["type"]
        hit = r["verdict"] == ("pass" if r["bug"] is None else "fail")
        for key in ((suite_of(r["app"]), kind), ("*", kind)) + (((suite_of(r["app"]), "*"), ("*", "*"))
                                                                 if r["bug"] is not None else ()):
            counts[key][0] += hit
            counts[key][1] += 1
    return {k: (v[0], v[1]) for k, v in counts.items()}


def _cell(value: tuple[int, int] | None) -> str:
    if not value or not value[1]:
        return "-"
    return f"{value[0] / value[1]:.0%} ({value[0]}/{value[1]})"


def markdown(results: list[tuple[str, dict[str, Any], list[dict[str, Any]]]], repeats: set[int] | None) -> str:
    tables = [table(runs) for _, _, runs in results]
    keys = sorted(set().union(*tables), key=lambda k: (k[0] == "*", k[0], k[1] == "reference", k[1] == "*", k[1]))
    lines = ["| column | measured on | command |", "| --- | --- | --- |"]
    for label, summary, _ in results:
        lines.append(f"| {label} | {describe_commit(summary.get('measured_on'))} | "
                     f"`{summary.get('command', '?')}` |")
    if repeats is not None:
        lines += ["", f"Only repeat(s) {', '.join(map(str, sorted(repeats)))} of each target are counted."]
    lines += ["", "Recall of the bug variants judged fail (every run counts; error and uncertain are misses); the "
              "`reference` rows are the references judged pass.", "",
              "| suite | kind | " + " | ".join(label for label, _, _ in results) + " |",
              "| --- | --- | " + " | ".join("---" for _ in results) + " |"]
    for suite, kind in keys:
        name = "all" if suite == "*" else suite
        what = "**all bugs**" if kind == "*" else kind
        lines.append(f"| {name} | {what} | " + " | ".join(_cell(t.get((suite, kind))) for t in tables) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", type=Path, nargs="+", help="bench detect --json files")
    ap.add_argument("--labels", default=None, help="comma-separated column names (default: the file names)")
    ap.add_argument("--repeats", default=None, help="comma-separated repeat numbers to keep (default: all)")
    ap.add_argument("--md", type=Path, default=None, help="also write the table here")
    args = ap.parse_args(argv)
    labels = args.labels.split(",") if args.labels else [p.stem for p in args.results]
    if len(labels) != len(args.results):
        raise SystemExit("--labels needs one name per result file.")
    try:
        repeats = {int(v) for v in args.repeats.split(",")} if args.repeats else None
    except ValueError:
        raise SystemExit(f"--repeats must be comma-separated whole numbers, not {args.repeats!r}.") from None
    results = [(label, *load(path, repeats)) for label, path in zip(labels, args.results)]
    text = markdown(results, repeats)
    if args.md:
        args.md.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
