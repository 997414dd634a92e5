"""Run the speed and memory benchmarks that exist and print one table: name, value, target, OK/MISS.

    python -m benchmark.perf [--quick] [--only engine_speed,gui_speed] [--json FILE]

Each benchmark script runs as its own process (they start Xvfb, Qt or local
servers of their own); its output lines are read, not its internals: a line
that states a target (``target <= 30 ms``, ``[target >= 60: OK]``,
``target median <= 50 ms: met``) becomes a row.  A row is OK or MISS as the
script says, or else by comparing the line's measured value with its target.
A script that is not there yet is listed as absent; one that fails without
printing any target is a MISS with its last error line.  Exit code 0 when
every row is OK.
"""

from __future__ import annotations

import argparse
import json
import operator
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
SCRIPT_TIMEOUT_S = 1800.0

BENCHMARKS: list[tuple[str, list[str], list[str]]] = [
    # (script name in benchmark/, full arguments, --quick arguments)
    ("engine_speed", [], ["--steps", "60", "--capture-seconds", "3"]),
    ("gui_speed", [], ["--steps", "3000", "--live-seconds", "10"]),
    ("llm_tokens", [], ["--steps", "10"]),
    ("settle_speed", [], ["--steps", "12", "--seeds", "1"]),
]
"""The speed/memory benchmarks of the other issues; missing scripts are reported, not fatal."""

_TARGET_RE = re.compile(r"target\b[^<>≤≥]*?(<=|>=|≤|≥)\s*([0-9][0-9.,]*)([^:;)\]]*)")
_NUMBER_RE = re.compile(r"(-?[0-9]+(?:\.[0-9]+)?)\s*([A-Za-z/%]*)")
_MEDIAN_RE = re.compile(r"median\s+(-?[0-9]+(?:\.[0-9]+)?)\s*([A-Za-z/%]*)")
_COMPARE: dict[str, Callable[[float, float], bool]] = {"<=": operator.le, "≤": operator.le,
                                                       ">=": operator.ge, "≥": operator.ge}


@dataclass(frozen=True)
class Row:
    benchmark: str
    name: str
    value: str
    target: str
    status: str  # OK | MISS | absent | error


def parse(benchmark: str, text: str) -> list[Row]:
    """Rows for every line of ``text`` that states a target (see the module docstring)."""
    rows: list[Row] = []
    header = ""
    section: list[str] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped:
            continue
        target = _TARGET_RE.search(stripped)
        if target is None:
            if not line[0].isspace() and not stripped.startswith("{"):
                header, section = stripped, []
            else:
                section.append(stripped)
            continue
        comparator, number, unit = target.group(1), target.group(2).replace(",", ""), " ".join(target.group(3).split())
        target_text = f"{comparator} {number}" + (f" {unit}" if unit else "")
        if stripped.lower().startswith("target"):
            name = re.split(r"[:(]", header, maxsplit=1)[0].strip() or benchmark
            medians = [(float(m.group(1)), m.group(2)) for s in section for m in _MEDIAN_RE.finditer(s)]
            worst = max(medians) if medians else None
            value = f"worst median {worst[0]:g} {worst[1]}".strip() if worst else "see log"
            measured = worst[0] if worst else None
        else:
            name, _, rest = stripped.partition(":")
            cut = re.split(r"[\[(]\s*target", rest, maxsplit=1)[0]
            value = " ".join(cut.split()).rstrip(",;") or "?"
            med = _MEDIAN_RE.search(cut)
            num = med or _NUMBER_RE.search(cut)
            measured = float(num.group(1)) if num else None
        status = _status(stripped, comparator, float(number), measured)
        rows.append(Row(benchmark, re.sub(r"\s*\([^)]*\)", "", name).strip(), value, target_text, status))
    return rows


def _status(line: str, comparator: str, target: float, measured: float | None) -> str:
    tail = line.rsplit("target", 1)[-1]
    if re.search(r"\bNOT met\b|\bMISS\b|\bnot met\b", tail):
        return "MISS"
    if re.search(r"\bOK\b|\bmet\b", tail):
        return "OK"
    if measured is None:
        return "MISS"
    return "OK" if _COMPARE[comparator](measured, target) else "MISS"


def run_one(name: str, args: list[str]) -> tuple[list[Row], float, str]:
    script = HERE / f"{name}.py"
    if not script.is_file():
        return [Row(name, "(script not present yet)", "", "", "absent")], 0.0, ""
    t0 = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, str(script), *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=SCRIPT_TIMEOUT_S)
        out, err, code = proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        err, code = f"timed out after {SCRIPT_TIMEOUT_S:g} s", -1
    seconds = time.monotonic() - t0
    rows = parse(name, out)
    if not rows:
        last = next((line for line in reversed(err.splitlines()) if line.strip()), f"exit code {code}")
        rows = [Row(name, "(no target line printed)", last.strip()[:80], "", "error")]
    return rows, seconds, out


def table(rows: list[Row]) -> str:
    headers = ("benchmark", "measure", "value", "target", "status")
    cells = [headers] + [(r.benchmark, r.name, r.value, r.target, r.status) for r in rows]
    widths = [min(60, max(len(c[i]) for c in cells)) for i in range(len(headers))]

    def fmt(c: tuple[str, ...]) -> str:
        return "| " + " | ".join(v[:widths[i]].ljust(widths[i]) for i, v in enumerate(c)) + " |"

    return "\n".join([fmt(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [fmt(c) for c in cells[1:]])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="shorter runs (fewer steps, shorter live runs)")
    ap.add_argument("--only", default="", help="comma-separated benchmark names")
    ap.add_argument("--json", type=Path, default=None, metavar="FILE")
    args = ap.parse_args(argv)
    only = {n for n in args.only.split(",") if n}
    rows: list[Row] = []
    timings: dict[str, float] = {}
    for name, full, quick in BENCHMARKS:
        if only and name not in only:
            continue
        print(f"running {name} …", file=sys.stderr, flush=True)
        got, seconds, _ = run_one(name, quick if args.quick else full)
        rows.extend(got)
        timings[name] = round(seconds, 1)
    print(table(rows))
    print("\n" + ", ".join(f"{n} {s:g} s" for n, s in timings.items()))
    if args.json:
        args.json.write_text(json.dumps({"rows": [asdict(r) for r in rows], "seconds": timings}, indent=2) + "\n")
    return 0 if rows and all(r.status == "OK" for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
