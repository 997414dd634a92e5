"""Stopped clock while the tester thinks: a slow tester plays the same game as a fast one."""

from __future__ import annotations

import re
import time

import pytest

from app.engine.play.observer import Observation
from app.engine.run.session import RunConfig, Session
from app.engine.testers.base import Decision
from app.engine.testers.offline import OfflineExplorer
from app.engine.trace.store import TrajectoryStore

from suite import TARGETS, needs_xvfb

THINK_S = 0.8
STEPS = 5


class SlowTester(OfflineExplorer):
    """The offline explorer with a model's latency (and no taps: a tap's own second of play is
    acting, not thinking, and would blur what this measures)."""

    def begin(self, ctx, first) -> None:
        super().begin(ctx, first)
        self.burst = None

    def decide(self, step: int, obs: Observation) -> Decision:
        time.sleep(THINK_S)
        return super().decide(step, obs)


def frames_per_step(db_path, freeze: bool) -> tuple[float, dict]:
    store = TrajectoryStore(db_path)
    result = Session(RunConfig(target=str(TARGETS / "counter_pg"), max_steps=STEPS, freeze_while_thinking=freeze,
                               slice_ms=100), store, tester=SlowTester()).run()
    assert result.status == "completed", result.error
    counts = [int(m.group(1)) for line in store.logs(result.run_id)
              if (m := re.match(r"frame (\d+)", line["text"]))]
    steps = store.steps(result.run_id)
    first, last = steps[0]["started_at"], steps[-1]["ended_at"]
    during = [c for line, c in zip([l for l in store.logs(result.run_id) if l["text"].startswith("frame")], counts)
              if first <= line["t"] <= last]
    return (max(during) - min(during)) / STEPS, result.summary(str(db_path))


@needs_xvfb
@pytest.mark.parametrize("freeze", [True, False])
def test_the_game_advances_by_its_slice_not_by_the_thinking_time(tmp_path, freeze):
    per_step, summary = frames_per_step(tmp_path / "runs.db", freeze)
    assert summary["captured_frames"] > 0 and summary["duration_s"] > 0
    if freeze:
        # 100 ms of a 30 fps game, plus the time to act and look: far less than the 0.8 s of thinking
        assert per_step <= 12, per_step
    else:
        assert per_step >= THINK_S * 30 * 0.7, per_step
