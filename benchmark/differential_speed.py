"""Per-step cost of differential play against a plain offline step, on this machine.

    python benchmark/differential_speed.py [--app calculator] [--steps 30] [--seeds 2]

Plays APP with the offline tester and with the differential tester (APP against
itself: two reference runs beside the candidate) for the same steps and seeds,
and prints the median step time of each (a step: decide → act → settle →
judge, from the trajectory's timestamps) and their ratio.  Target:
differential ≤ 1.5× offline.  Every run counts, including ones that ended early.

    python benchmark/differential_speed.py --duration 20 [--apps memory,calculator,snake]

plays each APP against itself with the differential tester, explore-only
(``--no-script``), for a wall-clock budget, and prints what the budget went to:
run start → first step (the references and the paced check), the steps' span,
last step → run end (stopping every program), and the steps played.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine.play.targetspec import app_folder  # noqa: E402
from app.engine.run.session import RunConfig, Session  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402


def step_times(store: TrajectoryStore, run_id: int | None) -> list[float]:
    if run_id is None:
        return []
    return [s["ended_at"] - s["started_at"] for s in store.steps(run_id)]


def budget(apps: list[str], duration: float, seed: int) -> None:
    """Where a differential run's wall-clock budget goes, per APP (played against itself, explore-only)."""
    print(f"differential, explore-only, --duration {duration:g}, seed {seed}")
    print("| app | steps | start → first step (s) | steps span (s) | last step → end (s) | verdict |")
    print("| --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        store = TrajectoryStore(Path(tmp) / "budget.db")
        for app in apps:
            folder = str(app_folder(app))
            result = Session(RunConfig(target=folder, tester="differential", max_steps=100_000, seed=seed,
                                       duration_s=duration,
                                       tester_options={"reference": folder, "script": False}), store).run()
            steps = store.steps(result.run_id) if result.run_id is not None else []
            run = store.run(result.run_id) if result.run_id is not None else None
            if not steps or run is None:
                print(f"| {app} | 0 | | | | {result.verdict} |")
                continue
            first, last = steps[0]["started_at"], steps[-1]["ended_at"]
            print(f"| {app} | {len(steps)} | {first - run['started_at']:.1f} | {last - first:.1f} | "
                  f"{run['ended_at'] - last:.1f} | {result.verdict} |")
        store.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--app", default="calculator")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--duration", type=float, default=None,
                    help="instead: where a differential run's wall-clock budget of this many seconds goes")
    ap.add_argument("--apps", default="memory,calculator,snake", help="with --duration: the apps, comma-separated")
    args = ap.parse_args()
    if args.duration is not None:
        budget(args.apps.split(","), args.duration, 0)
        return 0
    folder = str(app_folder(args.app))
    times: dict[str, list[float]] = {"offline": [], "differential": []}
    verdicts: dict[str, list[str]] = {"offline": [], "differential": []}
    with tempfile.TemporaryDirectory() as tmp:
        store = TrajectoryStore(Path(tmp) / "speed.db")
        for seed in range(args.seeds):
            for tester in ("offline", "differential"):
                options = {"reference": folder} if tester == "differential" else {}
                result = Session(RunConfig(target=folder, tester=tester, max_steps=args.steps, seed=seed,
                                           tester_options=options), store).run()
                times[tester] += step_times(store, result.run_id)
                verdicts[tester].append(result.verdict)
        store.close()
    print(f"{args.app}, {args.steps} steps × {args.seeds} seeds per tester")
    print("| tester | steps | median step (ms) | p90 (ms) | verdicts |")
    print("| --- | --- | --- | --- | --- |")
    for tester, values in times.items():
        values = sorted(values)
        med = statistics.median(values) * 1000 if values else float("nan")
        p90 = values[int(0.9 * (len(values) - 1))] * 1000 if values else float("nan")
        print(f"| {tester} | {len(values)} | {med:.0f} | {p90:.0f} | {', '.join(verdicts[tester])} |")
    if times["offline"] and times["differential"]:
        ratio = statistics.median(times["differential"]) / statistics.median(times["offline"])
        print(f"differential / offline median step time: {ratio:.2f}× (target ≤ 1.5×)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
