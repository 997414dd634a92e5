"""The late crash, played for real: `bench detect --long` runs the tests' own late_pg@late-crash for its declared
45 s (``python -m app test … --duration 45`` under a private Xvfb) and the offline tester catches the crash that
comes twenty seconds after the start, well past what --max-steps would have played.  The benchmark's own long-run
bugs are measured by the benchmark, not pinned here."""

from __future__ import annotations

import pytest

from app.engine.bench import detect
from app.engine.trace.store import TrajectoryStore

from suite import TARGETS, needs_xvfb

MAX_STEPS = 10
"""What the run would be bounded by without --long; the late crash comes tens of steps later."""


@pytest.mark.slow
@pytest.mark.xvfb
@needs_xvfb
@pytest.mark.timeout(400)
def test_the_late_crash_is_caught_when_played_for_its_duration(db_path):
    planned = [j for j in detect.plan([TARGETS / "late_pg"], 1, 0, False, {"crash"}, long=True)
               if j.bug is not None and j.bug.id == "late-crash"]
    assert [j.duration_s for j in planned] == [45.0]

    [row] = detect.run(planned, tester="offline", max_steps=MAX_STEPS, db=db_path, parallel=1)

    assert row.verdict == "fail", row
    assert row.reason.startswith("crash at step") and "IndexError" in row.reason, row.reason
    assert row.steps > MAX_STEPS, "bounded by the duration, not by --max-steps"
    # The crash comes after 600 frames of play (twenty seconds of game time).  The explorer plays a game on
    # the frame gate (exact returns), where game time is the engine's: the frames come no slower than the
    # wall clock's, so the crash lands within the run's 45 s, at most a little later (the run's end).
    assert 10 < row.seconds < 45 + 30, "the crash comes late in the run, not at its start"
    store = TrajectoryStore(db_path)
    try:
        run = store.run(row.run_id)
        assert run["bug"] == "late-crash" and run["verdict"] == "fail"
        [crash] = [f for f in store.findings(row.run_id) if f["kind"] == "crash"]
        assert any("IndexError" in line for line in crash["evidence"]["log"])
    finally:
        store.close()
