"""Line coverage the offline explorer reaches in a fixed budget, old explorer against new.

    python benchmark/explore_coverage.py [PROGRAM ...] [--duration 40] [--seed 0] [--explorer old|new|both]

For each program (a bundled app name or a folder; by default every bundled
and wild program) plays ``--tester offline`` for ``--duration`` seconds with
the explorer before the model-free explorer (``old``: state-coverage over hinted keys and
detected widgets) and the new one (keys read from the code, widgets from
inside, tester plans, Go-Explore returns, survival search on games), and
prints the lines of the program's own .py files executed (measured inside the
program by the run's own coverage, :mod:`app.engine.run.coverage`, over every
start of the program in the run: the same tracer for both explorers), the steps played and, for the games, whether the line that scores ran
(food eaten, a pipe passed, a brick broken).  The two explorers are measured
with the same tracer.  ``--no-hints`` plays copies whose playcoder.toml has no
``keys``: a program nobody described, as an outside user's is.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine.run.session import RunConfig, Session  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = [*(f"benchmark/apps/{p.name}" for p in sorted((ROOT / "benchmark/apps").iterdir()) if p.is_dir()),
            *(f"benchmark/wild/{p.name}" for p in sorted((ROOT / "benchmark/wild").iterdir()) if p.is_dir())]
SCORE_LINES = {
    "snake": r"self\.score \+= FOOD_POINTS", "flappy": r"self\.score \+= 1", "pysnake": r"score \+=",
    "brickout": r"score \+=", "hopper": r"score \+=",
}
"""Per game: the line that runs when the player scores (its first match in the program's own files)."""
def score_line(folder: Path, game: str) -> tuple[str, int] | None:
    pattern = SCORE_LINES.get(game)
    if pattern is None:
        return None
    for path in sorted(folder.rglob("*.py")):
        if "bugs" in path.parts or path.name.startswith("test_"):
            continue
        for n, text in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if re.search(pattern, text):
                return (str(path.relative_to(folder)), n)
    return None


def without_hints(program: str, into: Path) -> str:
    """A copy of the program folder whose playcoder.toml has no ``keys`` (a program nobody described)."""
    folder = Path(program) if Path(program).is_dir() else ROOT / "benchmark" / "apps" / program
    copy = into / folder.name
    if not copy.exists():
        shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("bugs", "__pycache__"))
        toml = copy / "playcoder.toml"
        toml.write_text(re.sub(r"^keys\s*=\s*\[[^\]]*\]\s*$", "", toml.read_text(), flags=re.M))
    return str(copy)


def measure(program: str, explorer: str, duration: float, seed: int, db: Path) -> dict[str, Any]:
    store = TrajectoryStore(db)
    config = RunConfig(program, tester="offline", max_steps=100_000, seed=seed, duration_s=duration, film_fps=0,
                       tester_options={"explorer": explorer})
    result = Session(config, store).run()
    files = store.run_coverage(result.run_id) if result.run_id is not None else []
    store.close()
    hit = {(f.file, n) for f in files for n in f.hit}
    n_total = sum(len(f.total) for f in files)
    folder = Path(program) if Path(program).is_dir() else ROOT / "benchmark" / "apps" / program
    scored = score_line(folder, folder.name)  # (a copy keeps the folder's name)
    return {"program": program, "explorer": explorer, "lines": len(hit), "total": n_total,
            "share": round(len(hit) / n_total, 3) if n_total else None, "steps": result.steps,
            "verdict": result.verdict, "episodes": result.episodes,
            "scored": (scored in hit) if scored is not None else None,
            "findings": sorted({f.kind for f in result.findings})}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="*", default=PROGRAMS)
    ap.add_argument("--duration", type=float, default=40.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--explorer", choices=["old", "new", "both"], default="both")
    ap.add_argument("--json", action="store_true", help="one JSON line per run")
    ap.add_argument("--no-hints", action="store_true",
                    help="play copies whose playcoder.toml has no keys (a program nobody described)")
    args = ap.parse_args()
    explorers = ["old", "new"] if args.explorer == "both" else [args.explorer]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for program in args.programs:
            played = without_hints(program, Path(tmp)) if args.no_hints else program
            for explorer in explorers:
                row = measure(played, explorer, args.duration, args.seed, Path(tmp) / "runs.db")
                row["program"] = program
                rows.append(row)
                if args.json:
                    print(json.dumps(row), flush=True)
                else:
                    scored = "" if row["scored"] is None else f"  scored: {'yes' if row['scored'] else 'no'}"
                    print(f"{program:28s} {explorer:3s}  lines {row['lines']:4d}/{row['total']:<4d} "
                          f"({100 * (row['share'] or 0):5.1f}%)  steps {row['steps']:4d}  {row['verdict']}"
                          f"{scored}  {' '.join(row['findings'])}", flush=True)
    for explorer in explorers:
        shares = [r["share"] for r in rows if r["explorer"] == explorer and r["share"] is not None]
        if shares:
            print(f"median line coverage, {explorer}: {100 * statistics.median(shares):.1f}% over {len(shares)} programs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
