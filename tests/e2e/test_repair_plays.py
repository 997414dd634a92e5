"""A repair's plays are recorded as what they are: linked to their session, labelled, never sampled.

The repair loop plays its program copy through the ordinary Session, which
creates runs with ``store.create_run``; these tests create the rows the same
way (a session row, then plays on its ``target_path``, then ``patches`` rows
as the loop writes them) in a real SQLite file.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

from app.engine.study.validation import candidate_counts
from app.engine.trace import repair_plays
from app.engine.trace.store import TrajectoryStore

from suite import ROOT

COPY = "/tmp/playcoder-repair-x/tally_tk"


def _play(store: TrajectoryStore, tester: str = "offline", verdict: str = "fail", path: str = COPY) -> int:
    run_id = store.create_run(target="tally_tk", target_path=path, bug=None, target_rev="abc", tester=tester)
    store.add_step(run_id, 0, {"action": {"action": "wait", "seconds": 0.1}, "outcome": "ok",
                               "started_at": 1.0, "ended_at": 1.1}, [])
    store.finish_run(run_id, status="completed", verdict=verdict)
    return run_id


def _cycle(store: TrajectoryStore, session: int, iteration: int, retest: int | None) -> None:
    with store.transaction():
        store.db.table("patches").insert({"run_id": session, "iteration": iteration, "retest_run": retest,
                                          "diff": "", "files": "{}", "validation": "{}", "at": 0.0})


def _repair(store: TrajectoryStore, *, rubric: bool) -> tuple[int, list[int]]:
    """A session as the loop records it: the buggy copy's play, a cycle with no patch, two re-tests."""
    session = store.create_run(kind="repair", target="tally_tk@minus-flipped", target_path=COPY,
                               tester="offline", config={"refiner": "offline"})
    plays = [_play(store)] + ([_play(store, "script")] if rubric else [])
    _cycle(store, session, 1, None)  # no patch: no re-test
    plays.append(_play(store))  # iteration 2's re-test, recorded before its cycle row
    plays += [_play(store, "script")] if rubric else []
    _cycle(store, session, 2, plays[-1 - int(rubric)])
    plays.append(_play(store, verdict="pass"))
    plays += [_play(store, "script", "pass")] if rubric else []
    _cycle(store, session, 3, plays[-1 - int(rubric)])
    store.finish_run(session, status="completed", verdict="pass")
    return session, plays


def test_plays_are_linked_labelled_and_never_sampled(db_path):
    store = TrajectoryStore(db_path)
    clean = _play(store, path="/somewhere/tally_tk")
    session, plays = _repair(store, rubric=True)
    assert [(rid, p.iteration) for rid, p in store.repair_plays(session)] == \
        list(zip(plays, [0, 0, 2, 2, 3, 3]))
    for rid in plays:
        run = store.run(rid)
        assert run["kind"] == repair_plays.REPAIR_PLAY_KIND
        assert run["target"] == "tally_tk@minus-flipped" and run["bug"] == "minus-flipped"
        assert store.repair_play(rid).session_run == session
    assert store.repair_play(clean) is None and store.run(clean)["kind"] == "test"
    assert store.repair_play(plays[0]).variant == "the buggy copy"
    assert store.repair_play(plays[-1]).variant == "the patch of iteration 3"
    listed = {r["id"]: r for r in store.run_list()}
    assert listed[plays[2]]["repair_run"] == session and listed[plays[2]]["repair_iteration"] == 2
    assert listed[clean]["repair_run"] is None and listed[session]["repair_run"] is None
    # The sampler draws only the clean run: the plays are not runs of the app.
    assert candidate_counts(store)["fail"] == 1 and candidate_counts(store)["pass"] == 0
    store.close()


def test_runs_json_shows_the_kind_and_the_link(db_path):
    store = TrajectoryStore(db_path)
    session, plays = _repair(store, rubric=False)
    store.close()
    out = subprocess.run([sys.executable, "-m", "app", "runs", "--json", "--db", str(db_path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True).stdout
    rows = {r["id"]: r for r in json.loads(out.strip().splitlines()[-1])}
    assert [(rows[p]["kind"], rows[p]["repair_run"], rows[p]["repair_iteration"]) for p in plays] == \
        [("repair-play", session, 0), ("repair-play", session, 2), ("repair-play", session, 3)]
    assert rows[session]["kind"] == "repair" and rows[session]["repair_run"] is None


def test_a_database_from_before_the_link_is_linked_when_opened(db_path):
    store = TrajectoryStore(db_path)
    session, plays = _repair(store, rubric=True)
    store.close()
    conn = sqlite3.connect(db_path)  # as schema 5 left it: plain test runs of the clean app
    conn.execute("DROP TABLE repair_plays")
    conn.execute("UPDATE runs SET kind = 'test', target = 'tally_tk', bug = NULL WHERE kind = 'repair-play'")
    conn.execute("PRAGMA user_version = 5")
    conn.commit()
    conn.close()
    store = TrajectoryStore(db_path)
    assert [(rid, p.iteration) for rid, p in store.repair_plays(session)] == list(zip(plays, [0, 0, 2, 2, 3, 3]))
    assert store.run(plays[0])["bug"] == "minus-flipped"
    store.close()


def test_a_play_after_the_session_ended_is_a_run_of_its_own(db_path):
    store = TrajectoryStore(db_path)
    session, _ = _repair(store, rubric=False)
    later = _play(store)
    assert store.repair_play(later) is None and store.run(later)["kind"] == "test"
    assert len(store.repair_plays(session)) == 3
    store.close()
