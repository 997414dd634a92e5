import sqlite3

import pytest

from app.engine.errors import StoreError
from app.engine.trace.store import SCHEMA_VERSION, TrajectoryStore


def _run(store):
    return store.create_run(target="t", tester="offline")


def test_schema_wal_and_version(db_path):
    store = TrajectoryStore(db_path)
    assert store.schema_version == SCHEMA_VERSION
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = set(store.db.table_names())
    assert {"runs", "steps", "frames", "findings", "judgments", "target_logs", "llm_calls", "patches"} <= tables
    store.close()
    assert TrajectoryStore(db_path).schema_version == SCHEMA_VERSION  # reopening migrates nothing


def test_frames_are_content_addressed_and_deduplicated(db_path):
    store = TrajectoryStore(db_path)
    pixels = bytes(range(256)) * 4 * 4  # 16x16 BGRX
    with store.transaction():
        a = store.put_frame(16, 16, pixels)
        b = store.put_frame(16, 16, pixels)
        c = store.put_frame(16, 16, bytes(reversed(pixels)))
    assert a == b != c
    assert store.db["frames"].count == 2
    assert store.frame(a).image().size == (16, 16)


def test_step_and_findings_commit_together(db_path):
    store = TrajectoryStore(db_path)
    run = _run(store)
    store.add_step(run, 0, {"action": {"action": "press", "key": "a"}, "outcome": "ok",
                            "started_at": 1.0, "ended_at": 2.0},
                   [{"step": 0, "kind": "exception", "message": "boom", "evidence": {"log": ["x"]}}])
    with pytest.raises(sqlite3.IntegrityError):  # same idx twice: nothing of the second step lands
        store.add_step(run, 0, {"action": {"action": "press", "key": "b"}, "outcome": "ok",
                                "started_at": 1.0, "ended_at": 2.0},
                       [{"step": 0, "kind": "crash", "message": "never stored"}])
    assert store.step_count(run) == 1
    assert [f["kind"] for f in store.findings(run)] == ["exception"]
    assert store.step(run, 0)["action"] == {"action": "press", "key": "a"}
    # a second connection (the GUI) sees the committed step while the writer is open
    reader = TrajectoryStore(db_path, readonly=True)
    assert reader.step_count(run) == 1


def test_judgments_are_append_only_with_undo(db_path):
    store = TrajectoryStore(db_path)
    run = _run(store)
    store.finish_run(run, status="completed", verdict="fail", reason="crash")
    assert store.effective_verdict(run) == "fail"
    store.add_judgment(run, source="human", author="ann", verdict="pass", note="it was fine")
    assert store.effective_verdict(run) == "pass"
    store.add_judgment(run, source="human", author="bob", verdict="fail")
    store.undo_last_override(run, "bob")
    assert store.effective_verdict(run) == "pass"
    store.undo_last_override(run, "ann")
    assert store.effective_verdict(run) == "fail"
    assert store.undo_last_override(run, "ann") is None
    assert len(store.judgments(run)) == 5  # nothing overwritten
    assert store.run(run)["verdict"] == "fail"


def test_corrupt_foreign_and_newer_files_give_one_sentence(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a readable PlayCoder database"):
        TrajectoryStore(bad)
    foreign = tmp_path / "foreign.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE x (a)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="not a PlayCoder database"):
        TrajectoryStore(foreign)
    newer = tmp_path / "newer.db"
    TrajectoryStore(newer).conn.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError, match="newer PlayCoder"):
        TrajectoryStore(newer)
    with pytest.raises(StoreError, match="does not exist"):
        TrajectoryStore(tmp_path / "missing.db", readonly=True)


def test_unknown_run_is_a_clear_error(db_path):
    with pytest.raises(StoreError, match="no run 42"):
        TrajectoryStore(db_path).run(42)


def test_a_schema_4_database_gains_reference_frames(tmp_path):
    """A file written before reference frames (schema 4) is migrated on opening; its steps read as before."""
    import sqlite_utils

    from app.engine.trace.store import MIGRATIONS

    old = tmp_path / "old.db"
    conn = sqlite3.connect(old)
    db = sqlite_utils.Database(conn)
    for migration in MIGRATIONS[:4]:
        migration(db)
    conn.execute("PRAGMA user_version = 4")
    conn.execute("INSERT INTO runs (target, tester, started_at) VALUES ('t', 'offline', 1.0)")
    conn.execute("INSERT INTO steps (run_id, idx, action, outcome, started_at, ended_at) "
                 "VALUES (1, 0, '{\"action\": \"wait\", \"seconds\": 1}', 'ok', 1.0, 2.0)")
    conn.commit()
    conn.close()

    store = TrajectoryStore(old)
    assert store.schema_version == SCHEMA_VERSION
    assert "frame_reference" in store.db.table("steps").columns_dict
    step = store.step(1, 0)
    assert step["frame_reference"] is None and step["action"] == {"action": "wait", "seconds": 1}
    assert not store.has_reference_frames(1)
    with store.transaction():
        sha = store.put_frame(2, 2, bytes(16))
    store.set_step_reference(1, 0, sha)
    assert store.steps(1)[0]["frame_reference"] == sha and store.has_reference_frames(1)
    with pytest.raises(StoreError, match="no step 7 of run 1"):
        store.set_step_reference(1, 7, sha)
    store.close()


def test_a_database_whose_creation_is_interrupted_is_taken_back(tmp_path, monkeypatch):
    """An interrupt while a new file gets its schema leaves no empty file that reads as another program's."""
    path = tmp_path / "new.db"

    def interrupted(self):
        self.conn.execute("BEGIN IMMEDIATE")
        raise KeyboardInterrupt

    monkeypatch.setattr(TrajectoryStore, "_open_for_writing", interrupted)
    with pytest.raises(KeyboardInterrupt):
        TrajectoryStore(path)
    assert not path.exists()
    monkeypatch.undo()
    store = TrajectoryStore(path)  # and the next run makes it whole
    assert store.runs() == []
    store.close()
