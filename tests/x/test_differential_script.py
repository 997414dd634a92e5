"""Differential play: the reference's rubric steps first, and a scene change is never taken for noise."""

from __future__ import annotations

import numpy as np

from app.engine.testers.differential import DifferentialTester
from app.engine.trace.store import TrajectoryStore

from suite import TARGETS, needs_xvfb
from test_differential import run_cli


def test_a_change_over_a_quarter_of_the_window_is_a_scene_not_noise():
    """Masked, a first screen drawn while the reference is watched would hide every later difference."""
    tester = DifferentialTester()
    tester.noise = np.zeros((40, 40), dtype=bool)
    whole = np.ones((40, 40), dtype=bool)
    tester._add_noise(whole)
    assert not tester.noise.any()
    caret = np.zeros((40, 40), dtype=bool)
    caret[10:20, 5:7] = True
    tester._add_noise(caret)
    assert tester.noise.sum() == 20


@needs_xvfb
def test_the_rubric_steps_are_played_first_and_reach_the_bug(db_path):
    """Seed 0's exploration never types two subtractions and '='; the test adder's [[script]] does (9-3-1)."""
    code, summary, err = run_cli(f"{TARGETS / 'adder_tk'}@minus-reversed", "--max-steps", "12", "--seed", "0",
                                 db=db_path)
    assert code == 0, err
    assert [f["kind"] for f in summary["findings"]] == ["diverged"], summary
    steps = TrajectoryStore(db_path).steps(summary["run_id"])
    assert all("scripted case" in s["rationale"] for s in steps)


@needs_xvfb
def test_a_game_that_draws_its_first_screen_late_is_still_compared(db_path):
    """tests/targets/late_pg repaints its whole window (loading screen, then board) while the reference is first
    watched: that is no noise.  The tests' own game: no benchmark bug is pinned."""
    code, summary, err = run_cli(f"{TARGETS / 'late_pg'}@grow-adds-one", "--max-steps", "10", "--seed", "0",
                                 db=db_path)
    assert code == 0, err
    assert summary["verdict"] == "fail" and [f["kind"] for f in summary["findings"]] == ["diverged"], summary
