"""How long a return costs: a recorded prefix of inputs replayed after a restart, as the explorer's returns do.

    python benchmark/replay_speed.py [--target benchmark/apps/calculator] [--steps 30] [--seeds 2]
                                     [--settle inside,pixels] [--film-fps N]

First records a run of the offline explorer (``--steps`` steps, no returns of
its own) and keeps the inputs it sent since the program started, with the
picture it ended on.  Then it plays that prefix back through the path a return
takes: a real :class:`~app.engine.run.session.Session` whose tester asks for a
restart (the session's restart hook: the program stopped and started again,
its first picture settled and checked), then hands out the prefix input by
input through :class:`~app.engine.testers.explore.returns.Returner`, each one a
session step (act, settle, oracles, recorded), and finally compares the end
picture with the recorded one.  It prints the restart and the replay
separately, the replay's median step and how its settle time splits into the
program's and the engine's share.  Target: a 30-step prefix of a Tk
app replays in <= 2 s (the replay, the restart apart).

``--settle pixels`` measures the same with ``PLAYCODER_SETTLE=pixels`` (what a
program the engine cannot ask gets).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine.judge.oracles import Finding  # noqa: E402
from app.engine.judge.verdict import Evidence, decide  # noqa: E402
from app.engine.play.actions import Finish  # noqa: E402
from app.engine.play.idle_settle import SETTLE_ENV  # noqa: E402
from app.engine.play.observer import Frame, Observation  # noqa: E402
from app.engine.run.session import RunConfig, Session  # noqa: E402
from app.engine.testers.base import Decision, TesterBase, TesterContext, Verdict  # noqa: E402
from app.engine.testers.explore.archive import Cell, Step, picture_key  # noqa: E402
from app.engine.testers.explore.explorer import Explorer  # noqa: E402
from app.engine.testers.explore.returns import Returner  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 2.0
"""A 30-step prefix of a Tk app replays in this long at most."""


class ReturnOnly(TesterBase):
    """A tester that only returns: asks for a restart, replays the cell's prefix, then finishes."""

    name = "replay"

    def __init__(self, cell: Cell) -> None:
        self.cell = cell
        self.returner = Returner()
        self.ctx: TesterContext | None = None
        self.asked_at = self.restarted_at = self.arrived_at = 0.0
        self.returned: bool | None = None

    def begin(self, ctx: TesterContext, first: Observation) -> None:
        self.ctx = ctx
        self.returner.ask(self.cell)

    def wants_restart(self) -> bool:
        wants = self.returner.wants_restart()
        if wants:
            self.asked_at = time.perf_counter()
        return wants

    def restarted(self, obs: Observation) -> None:
        self.restarted_at = time.perf_counter()
        self.returner.restarted()

    def decide(self, step: int, obs: Observation) -> Decision:
        player = self.ctx.player if self.ctx is not None else None
        nxt = self.returner.next_input(player)  # type: ignore[arg-type]
        if nxt is None:
            return Decision(Finish("pass", "the prefix is replayed"), "the prefix is replayed")
        action, i, n = nxt
        return Decision(action, f"replay input {i}/{n}")

    def observe(self, step: int, before: Frame, decision: Decision, after: Observation, outcome: str) -> None:
        ret = self.returner.pending
        if self.returner.replaying and ret is not None and not ret.steps:
            self.arrived_at = time.perf_counter()
            self.returned = self.returner.arrive(after.frame) is not None

    def verdict(self, findings: list[Finding], steps: int) -> Verdict:
        return decide(Evidence(findings, steps, judges_criteria=False))


class Recorder(Explorer):
    """The offline explorer, without returns of its own, keeping the last picture it saw."""

    def __init__(self) -> None:
        super().__init__(go_explore=False)
        self.last: Frame | None = None

    def observe(self, step: int, before: Frame, decision: Decision, after: Observation, outcome: str) -> None:
        super().observe(step, before, decision, after, outcome)
        self.last = after.frame


def record(target: str, steps: int, seed: int, store: TrajectoryStore, film_fps: int | None) -> Cell:
    """The explorer's inputs since the program started, and the picture they ended on."""
    explorer = Recorder()
    session = Session(RunConfig(target=target, max_steps=steps, seed=seed, film_fps=film_fps), store,
                      tester=explorer)
    result = session.run()
    if result.status != "completed" or result.run_id is None:
        raise SystemExit(f"recording {target} failed: {result.error or result.reason}")
    if explorer.last is None or not explorer.prefix:
        raise SystemExit(f"recording {target} sent no input; nothing to replay")
    prefix: tuple[Step, ...] = tuple(explorer.prefix)
    return Cell("end", prefix, picture_key(explorer.last), len(prefix))


def replay(target: str, cell: Cell, seed: int, store: TrajectoryStore, film_fps: int | None) -> dict[str, Any]:
    tester = ReturnOnly(cell)
    result = Session(RunConfig(target=target, max_steps=len(cell.prefix) + 1, seed=seed, film_fps=film_fps), store,
                     tester=tester).run()
    if result.status != "completed" or result.run_id is None or not tester.arrived_at:
        raise SystemExit(f"replaying {target} failed: {result.error or result.reason}")
    rows = [s for s in store.steps(result.run_id) if s["action"].get("action") != "finish"]
    return {"restart_s": tester.restarted_at - tester.asked_at, "replay_s": tester.arrived_at - tester.restarted_at,
            "inputs": len(rows), "returned": tester.returned,
            "step_ms": statistics.median((s["ended_at"] - s["started_at"]) * 1000 for s in rows),
            "settle_ms": statistics.median(s["settle_ms"] for s in rows),
            "busy_ms": statistics.median(s["busy_ms"] or 0.0 for s in rows),
            "waited_ms": statistics.median(s["waited_ms"] or 0.0 for s in rows),
            "act_ms": statistics.median(s["act_ms"] for s in rows),
            "other_ms": statistics.median((s["ended_at"] - s["started_at"]) * 1000 - s["act_ms"] - s["settle_ms"]
                                          for s in rows)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default=str(ROOT / "benchmark" / "apps" / "calculator"))
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--settle", default="inside,pixels")
    ap.add_argument("--film-fps", type=int, default=None, help="the runs' film (default: the session's)")
    args = ap.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        store = TrajectoryStore(Path(tmp) / "replay.db")
        for settle in [s for s in args.settle.split(",") if s]:
            os.environ[SETTLE_ENV] = "pixels" if settle == "pixels" else "auto"
            got = []
            for seed in range(args.seeds):
                cell = record(args.target, args.steps, seed, store, args.film_fps)
                got.append(replay(args.target, cell, seed, store, args.film_fps))
            print(f"settled from {settle} ({Path(args.target).name}, {args.steps}-step recording x {args.seeds} seeds):")
            for seed, g in enumerate(got):
                print(f"  seed {seed}: restart {g['restart_s']:.2f} s; replay of {g['inputs']} inputs "
                      f"{g['replay_s']:.2f} s (step median {g['step_ms']:.0f} ms: act {g['act_ms']:.0f}, settle "
                      f"{g['settle_ms']:.0f} = program busy {g['busy_ms']:.0f} + engine waited "
                      f"{g['waited_ms']:.0f}, the rest {g['other_ms']:.0f}: oracles, record); same end picture: {'yes' if g['returned'] else 'no'}")
            if settle != "pixels":
                worst = max(g["replay_s"] * 30 / max(1, g["inputs"]) for g in got)
                good = worst <= TARGET_S
                ok = ok and good
                print(f"30-input replay from inside, worst seed (scaled to 30 inputs): {worst:.2f} s  "
                      f"[target <= {TARGET_S:g} s: {'OK' if good else 'MISS'}]")
        store.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
