"""What a look of the survival search costs on forked scouts, lean branches against full ones.

    python benchmark/fork_cost.py [GAME ...] [--looks 4] [--plans 12] [--frames 36] [--start 60]

For each game (default: the bundled snake and flappy and the wild brickout) a
forked scout (``app/engine/testers/explore/fork_scout.py``) is started twice:
*lean*, as the explorer plays it (a branch draws on the display only in the
frames a picture is taken of, in a game a probe found to redraw its whole
display, and stops tracing functions that ran nothing new for a long while),
and *full* (``PLAYCODER_FORK_FULL=1``: every frame drawn, every line traced).
Each plays ``--looks`` looks of ``--plans`` branches forked at frame
``--start`` (plus 12 frames a look), each branch ``--frames`` frames long with
one of the game's keys (or nothing) at a drawn frame, pictures every 3 frames.
Printed per game and mode: the wall time of a look (median and worst), per
branch, and how many branches of the lean scout showed exactly the pictures
the full one showed for the same plan (they should: the lean branch skips
only what no picture shows).  Measure on a quiet machine (check the load).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.engine.play.actions import Action, Press  # noqa: E402
from app.engine.play.targetspec import resolve_target  # noqa: E402
from app.engine.testers.explore.fork_scout import ForkScouts  # noqa: E402
from app.engine.testers.explore.scouts import NOTHING  # noqa: E402

DEFAULT_GAMES = ("benchmark/apps/snake", "benchmark/apps/flappy", "benchmark/wild/brickout")


def plans_for(keys: list[Action], looks: int, plans: int, start: int, frames: int,
              seed: int) -> list[list[list[tuple[int, Action]]]]:
    """The same plans for both modes: per look, ``plans`` plans forked at its frame."""
    rng = random.Random(seed)
    out = []
    for look in range(looks):
        at = start + 12 * look
        out.append([[(at, rng.choice(keys)), (at + rng.randrange(3, frames // 2), rng.choice(keys))]
                    for _ in range(plans)])
    return out


def measure(game: str, full: bool, looks: list[list[list[tuple[int, Action]]]],
            frames: int) -> tuple[list[float], list[list[bytes | None]]]:
    resolved = resolve_target(str(ROOT / game))
    spec = resolved.spec
    if full:
        spec = replace(spec, env={**spec.env, "PLAYCODER_FORK_FULL": "1"})
    scouts = ForkScouts(spec, seed=0)
    times: list[float] = []
    pictures: list[list[bytes | None]] = []
    try:
        scouts.warm([], 0)
        for plans in looks:
            at = plans[0][0][0]
            marks = list(range(at + 3, at + frames + 1, 3))
            t0 = time.monotonic()
            played = scouts.play_many([], [(plan, marks) for plan in plans], 4, 12)
            times.append(time.monotonic() - t0)
            pictures.append([b"".join(p.pictures) if p is not None else None for p in played])
    finally:
        scouts.close()
        resolved.cleanup()
    return times, pictures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python benchmark/fork_cost.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("games", nargs="*", default=list(DEFAULT_GAMES))
    ap.add_argument("--looks", type=int, default=4)
    ap.add_argument("--plans", type=int, default=12)
    ap.add_argument("--frames", type=int, default=36)
    ap.add_argument("--start", type=int, default=60)
    args = ap.parse_args(argv)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.looks} looks of {args.plans} "
          f"branches, {args.frames} frames each, from frame {args.start}")
    for game in args.games:
        resolved = resolve_target(str(ROOT / game))
        keys: list[Action] = [Press(k) for k in resolved.spec.keys][:6] + [NOTHING]
        resolved.cleanup()
        looks = plans_for(keys, args.looks, args.plans, args.start, args.frames, seed=0)
        seen: dict[bool, list[list[bytes | None]]] = {}
        for full in (False, True):
            times, seen[full] = measure(game, full, looks, args.frames)
            per_branch = statistics.median(times) / args.plans * 1000
            print(f"{game:28s} {'full' if full else 'lean':4s}  look median {statistics.median(times):5.2f} s  "
                  f"worst {max(times):5.2f} s  per branch {per_branch:6.1f} ms", flush=True)
        pairs = [(a, b) for la, lb in zip(seen[False], seen[True]) for a, b in zip(la, lb)]
        same = sum(1 for a, b in pairs if a is not None and a == b)
        print(f"{game:28s} lean branches showing the full branch's pictures: {same}/{len(pairs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
