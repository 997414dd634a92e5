"""What the model-free explorer scores in the games in a fixed budget: food eaten, pipes passed, bricks broken.

    python benchmark/game_scores.py [GAME ...] [--duration 40] [--seeds 0,1] [--survival on|off|both] [--db FILE]

Each game (a folder; by default the bundled and wild pygame games) is played
with ``--tester offline`` (the model-free explorer of
``app/engine/testers/explore/``) for ``--duration`` seconds of wall clock,
once per seed, with the survival search on, off or both.  The tester knows
nothing of the game; this *measurement* does: it reads the game's own score
text from the picture recorded after every step (a box per game below,
read with tesseract OCR; a crop read once is cached), the way a person
watching the run would.  Per run it prints

- ``steps``: steps played;
- ``episodes``: games played (a program start, or the score read falling
  back, e.g. to 0 after a GAME OVER and a restart key);
- ``longest``: the longest episode in seconds of wall clock (between the
  first and the last step of the episode);
- ``best``: the most points in one episode, in the game's unit (food eaten,
  pipes passed, bricks broken: the score read divided by the points one
  brings);
- ``total``: the points over all episodes;
- ``searched``: steps the survival search chose (its rationale starts with
  ``survival:``), and the wall seconds those decisions took (looks ahead,
  waits for a scout).

A read is trusted only when the next step reads the same value or more in
the same episode (one misread digit must not make a record).  ``--db`` keeps
the runs (the workbench can replay them); ``--rescore`` reads an existing
database again without playing.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image, ImageOps, ImageStat  # noqa: E402

from app.engine.run.session import RunConfig, Session  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class ScoreText:
    """Where a game shows its score while it is played, and what one point of the figure is worth."""

    box: tuple[int, int, int, int]
    """x0, y0, x1, y1 in the window's pixels."""
    pattern: str
    """A regular expression whose group is a number; the last match is the score."""
    unit: int
    """Score per food / pipe / brick."""
    what: str


GAMES: dict[str, ScoreText] = {
    "snake": ScoreText((220, 0, 400, 40), r"(\d+)", 10, "food eaten"),
    "flappy": ScoreText((130, 25, 270, 100), r"(\d+)", 1, "pipes passed"),
    "pysnake": ScoreText((0, 0, 220, 40), r"(\d+)", 10, "food eaten"),
    "brickout": ScoreText((0, 0, 220, 40), r"(\d+)", 10, "bricks broken"),
    "hopper": ScoreText((130, 15, 270, 90), r"(\d+)", 1, "pipes passed"),
    "pygame-aliens": ScoreText((0, 440, 320, 480), r"(\d+)", 1, "aliens shot"),
}
"""Per game (its folder's name): the score's box on screen (measured from the game's drawing code)."""
DEFAULT = ["benchmark/apps/snake", "benchmark/apps/flappy", "benchmark/wild/pysnake", "benchmark/wild/brickout",
           "benchmark/wild/hopper"]


class Reader:
    """Tesseract on a grey, upscaled crop; one call per distinct crop."""

    def __init__(self) -> None:
        if shutil.which("tesseract") is None:
            raise SystemExit("tesseract is not installed: apt-get install tesseract-ocr, then run again.")
        self.cache: dict[str, str] = {}

    def read(self, image: Image.Image) -> str:
        grey = ImageOps.grayscale(image)
        if ImageStat.Stat(grey).mean[0] < 128:
            grey = ImageOps.invert(grey)  # tesseract reads dark text on light
        grey = grey.resize((grey.width * 3, grey.height * 3), Image.LANCZOS)
        buf = io.BytesIO()
        grey.save(buf, "PNG")
        key = hashlib.sha256(buf.getvalue()).hexdigest()
        if key not in self.cache:
            out = subprocess.run(["tesseract", "stdin", "stdout", "--psm", "7"], input=buf.getvalue(),
                                 capture_output=True, timeout=30)
            self.cache[key] = out.stdout.decode(errors="replace").strip()
        return self.cache[key]


def score_of(text: str, spec: ScoreText) -> int | None:
    """The last number in the text (a label before it may hold an O read as a 0)."""
    found = re.findall(spec.pattern, text)
    return int(found[-1]) if found else None


def episodes_of(store: TrajectoryStore, run_id: int, spec: ScoreText, reader: Reader) -> list[dict[str, Any]]:
    """The run's episodes: score reads per step, split where the program restarted or the score fell."""
    steps = store.steps(run_id)
    starts = {int(f["step"]) for f in store.findings(run_id) if f["kind"] == "episode" and f.get("step") is not None}
    reads: list[tuple[int, float, int | None]] = []
    for s in steps:
        frame = store.frame(s["frame_after"]) if s.get("frame_after") else None
        value = None
        if frame is not None:
            value = score_of(reader.read(frame.image().crop(spec.box)), spec)
        reads.append((int(s["idx"]), float(s["ended_at"]), value))
    episodes: list[dict[str, Any]] = []
    current: dict[str, Any] = {"t0": reads[0][1] if reads else 0.0, "t1": 0.0, "best": 0}
    trusted_prev = 0
    for i, (idx, t, value) in enumerate(reads):
        nxt = reads[i + 1][2] if i + 1 < len(reads) else None
        new_start = idx in starts
        fell = value is not None and nxt is not None and value == nxt and value < trusted_prev
        if (new_start or fell) and i > 0:
            episodes.append(current)
            current = {"t0": t, "t1": t, "best": 0}
            trusted_prev = 0
        current["t1"] = t
        if value is not None and nxt is not None and nxt >= value and value >= trusted_prev:
            # trusted: confirmed by the next read, and not below what this episode showed
            if value - trusted_prev <= 5 * spec.unit or nxt == value:
                current["best"] = max(current["best"], value)
                trusted_prev = value
    episodes.append(current)
    return episodes


def play(program: str, survival: bool, duration: float, seed: int, db: Path) -> int | None:
    store = TrajectoryStore(db)
    config = RunConfig(program, tester="offline", max_steps=100_000, seed=seed, duration_s=duration, film_fps=0,
                       tester_options={"survival": survival})
    result = Session(config, store).run()
    store.close()
    return result.run_id


def report(store: TrajectoryStore, run_id: int, program: str, reader: Reader) -> dict[str, Any]:
    name = Path(program).name
    spec = GAMES[name]
    episodes = episodes_of(store, run_id, spec, reader)
    run = store.run(run_id)
    config = json.loads(run.get("config") or "{}")
    survival = bool(config.get("tester_options", {}).get("survival"))
    steps = store.steps(run_id)
    searched = [st for st in steps if str(st.get("rationale") or "").startswith("survival:")]
    search_s = sum(float(st.get("decide_ms") or 0) for st in searched) / 1000
    return {"program": program, "survival": survival, "seed": run.get("seed"), "steps": store.step_count(run_id),
            "searched": len(searched), "search_s": round(search_s, 1),
            "episodes": len(episodes), "longest_s": round(max(e["t1"] - e["t0"] for e in episodes), 1),
            "best": max(e["best"] for e in episodes) // spec.unit,
            "total": sum(e["best"] for e in episodes) // spec.unit, "what": spec.what, "verdict": run.get("verdict")}


def line(row: dict[str, Any]) -> str:
    mode = "survival" if row["survival"] else "default "
    return (f"{row['program']:28s} {mode} seed {row['seed']}  steps {row['steps']:4d}  episodes {row['episodes']:2d}  "
            f"longest {row['longest_s']:5.1f} s  best {row['best']:3d}  total {row['total']:3d}  {row['what']}"
            f"  ({row['verdict']}; searched {row.get('searched', 0)} steps in {row.get('search_s', 0.0):.1f} s)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="*", default=DEFAULT)
    ap.add_argument("--duration", type=float, default=40.0)
    ap.add_argument("--seeds", default="0", help="comma-separated seeds")
    ap.add_argument("--survival", choices=["on", "off", "both"], default="on")
    ap.add_argument("--db", help="keep the runs in this database (default: a temporary one)")
    ap.add_argument("--rescore", action="store_true", help="read the runs already in --db again, play nothing")
    ap.add_argument("--json", action="store_true", help="one JSON line per run")
    args = ap.parse_args()
    unknown = [p for p in args.programs if Path(p).name not in GAMES]
    if unknown:
        print(f"no score box is known for {', '.join(unknown)}; known games: {', '.join(GAMES)}.", file=sys.stderr)
        return 2
    if args.rescore and not args.db:
        print("--rescore reads --db: name the database.", file=sys.stderr)
        return 2
    reader = Reader()
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    modes = {"on": [True], "off": [False], "both": [False, True]}[args.survival]
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(args.db) if args.db else Path(tmp) / "runs.db"
        rows: list[dict[str, Any]] = []
        if args.rescore:
            store = TrajectoryStore(db)
            for run in sorted(store.runs(), key=lambda r: r["id"]):
                program = next((p for p in args.programs if Path(p).name == Path(run["target"]).name), None)
                if program is not None:
                    rows.append(report(store, run["id"], program, reader))
                    print(json.dumps(rows[-1]) if args.json else line(rows[-1]), flush=True)
            store.close()
            return 0
        for program in args.programs:
            for survival in modes:
                for seed in seeds:
                    run_id = play(program, survival, args.duration, seed, db)
                    if run_id is None:
                        print(f"{program}: the run did not start", flush=True)
                        continue
                    store = TrajectoryStore(db)
                    rows.append(report(store, run_id, program, reader))
                    store.close()
                    print(json.dumps(rows[-1]) if args.json else line(rows[-1]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
