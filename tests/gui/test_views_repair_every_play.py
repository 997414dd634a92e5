"""The repair window shows every play of a cycle's program version, the failing one first.

A repair of a calculator whose buggy copy passed its offline play and failed its script play: Before showed the
passing play and the failing one could not be reached."""

from __future__ import annotations

from views_support import isolated_settings, make_synthetic_run, synthetic_frames  # noqa: F401

from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.model.database import Database  # noqa: E402
from app.views.repair.cycle_frames_view import CycleFramesView  # noqa: E402

COPY = "/tmp/playcoder-repair-views/calc_tk"


def _play(store: TrajectoryStore, tester: str, verdict: str) -> int:
    run_id = store.create_run(target="calc_tk", target_path=COPY, tester=tester, window_width=640,
                              window_height=480)
    sha = store.put_image(synthetic_frames(1)[0])
    store.add_step(run_id, 0, {"action": {"action": "click", "x": 5, "y": 5}, "outcome": "ok", "frame_before": sha,
                               "frame_after": sha, "started_at": 1.0, "ended_at": 1.1}, [])
    store.finish_run(run_id, status="completed", verdict=verdict)
    return run_id


def test_before_lists_every_play_and_shows_the_failing_one_first(qtbot, tmp_path):
    store = TrajectoryStore(tmp_path / "plays.db")
    make_synthetic_run(store, 2, target="calc_tk", distinct_frames=2)
    session = store.create_run(kind="repair", target="calc_tk@op-crash", target_path=COPY,
                               tester="offline", config={"refiner": "offline", "max_iterations": 1})
    before = _play(store, "offline", "pass")  # the session's own tester plays the buggy copy: it passes
    failing = _play(store, "script", "fail")  # the target's script cases play the same copy
    with store.transaction():
        store.db.table("patches").insert({"run_id": session, "iteration": 1, "retest_run": None, "diff": "",
                                          "files": '{"outcome": "fixed"}', "validation": "{}", "at": 0.0})
    after = _play(store, "offline", "pass")
    store.db.execute("UPDATE patches SET retest_run = ? WHERE run_id = ?", [after, session])
    assert store.repair_play(failing).iteration == store.repair_play(before).iteration
    view = CycleFramesView(Database(store))
    qtbot.addWidget(view)
    view.show_runs(before, after, 0)
    listed = [view.before_pick.itemData(i) for i in range(view.before_pick.count())]
    assert listed == [failing, before] and view._runs == (failing, after)
    assert "script · fail" in view.before_pick.itemText(0) and view.before_pick.isVisibleTo(view)
    view.before_pick.setCurrentIndex(1)
    view.before_pick.activated.emit(1)
    assert view._runs == (before, after)
    store.close()
