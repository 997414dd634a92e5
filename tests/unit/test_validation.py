"""Validation sets, per-annotator order, labels, promotion and the blinded run, on a real SQLite file."""

from __future__ import annotations

import hashlib
import random

import pytest

from app.engine.study import validation
from app.engine.errors import UserError
from app.engine.trace.store import TrajectoryStore


def add_one_step(store: TrajectoryStore, run: int) -> None:
    """Only runs with steps are drawn into a set."""
    store.add_step(run, 0, {"action": {"action": "wait", "seconds": 0.1}, "outcome": "ok", "started_at": 1.0,
                            "ended_at": 1.1})


def make_runs(store: TrajectoryStore, passes: int, fails: int, **extra: object) -> dict[int, str]:
    """Completed runs with tester verdicts; returns run id -> verdict."""
    made = {}
    for i in range(passes + fails):
        verdict = "pass" if i < passes else "fail"
        run = store.create_run(target="flappy@pipe-gap", tester="offline", **extra)
        add_one_step(store, run)
        store.finish_run(run, status="completed", verdict=verdict, reason=f"tester says {verdict} #{i}")
        made[run] = verdict
    return made


@pytest.fixture
def store(db_path):
    s = TrajectoryStore(db_path)
    yield s
    s.close()


def test_sample_draws_by_tester_verdict_seeded_and_frozen(store):
    made = make_runs(store, 30, 25)
    running = store.create_run(target="x", tester="offline")  # never finished: not a candidate
    errored = store.create_run(target="x", tester="offline")
    store.finish_run(errored, status="error", verdict="fail", reason="crash")
    vset = validation.sample_set(store, "s1", successes=10, failures=8, seed=7)
    units = validation.units(store, vset)
    assert len(units) == 18 and vset.size == 18
    assert sum(u.tester == "pass" for u in units) == 10
    assert all(made[u.run_id] == u.tester for u in units)
    assert {running, errored}.isdisjoint(u.run_id for u in units)
    # the same seed draws the same runs, as random.Random(seed).sample over ids does
    rng = random.Random(7)
    good = sorted(r for r, v in made.items() if v == "pass")
    bad = sorted(r for r, v in made.items() if v == "fail")
    expected = set(rng.sample(good, 10)) | set(rng.sample(bad, 8))
    assert {u.run_id for u in units} == expected
    again = validation.sample_set(store, "s2", successes=10, failures=8, seed=7)
    assert {u.run_id for u in validation.units(store, again)} == expected
    other = validation.sample_set(store, "s3", successes=10, failures=8, seed=8)
    assert {u.run_id for u in validation.units(store, other)} != expected
    # frozen: a later override does not move an item to the other group
    store.add_judgment(units[0].run_id, source="human", author="lead", verdict="fail" if units[0].tester == "pass" else "pass")
    assert validation.units(store, vset)[0].tester == units[0].tester


def test_sample_refuses_too_few_and_duplicate_names(store):
    make_runs(store, 37, 120)
    with pytest.raises(UserError) as exc:
        validation.sample_set(store, "big", successes=100, failures=100, seed=1)
    assert str(exc.value) == (
        "Only 37 runs have the tester verdict pass; at least 100 are needed — record more runs or lower --successes."
    )
    with pytest.raises(UserError, match="Only 120 runs have the tester verdict fail; at least 121 .* --failures"):
        validation.sample_set(store, "big", successes=1, failures=121, seed=1)
    assert validation.list_sets(store) == []  # nothing half-written
    validation.sample_set(store, "ok", successes=5, failures=5, seed=1)
    with pytest.raises(UserError, match="named 'ok' already exists; choose another --name"):
        validation.sample_set(store, "ok", successes=5, failures=5, seed=2)
    with pytest.raises(UserError, match="no validation set named 'nope'"):
        validation.get_set(store, "nope")


def test_sample_can_restrict_to_one_tester(store):
    make_runs(store, 5, 5)
    llm: dict[int, str] = {}
    for i in range(4):
        run = store.create_run(target="t", tester="llm")
        add_one_step(store, run)
        store.finish_run(run, status="completed", verdict="pass" if i < 2 else "fail")
        llm[run] = "x"
    vset = validation.sample_set(store, "llm", successes=2, failures=2, seed=0, tester="llm")
    assert {u.run_id for u in validation.units(store, vset)} == set(llm)


def test_item_ids_do_not_reveal_the_group(store):
    make_runs(store, 50, 50)
    vset = validation.sample_set(store, "s", successes=50, failures=50, seed=3)
    rows = store.conn.execute(
        "SELECT tester_verdict FROM validation_items WHERE set_id = ? ORDER BY id", [vset.id]
    ).fetchall()
    first_half = [r[0] for r in rows[:50]]
    assert 0 < first_half.count("pass") < 50


def test_annotator_order_is_own_stable_and_uses_sha256(store):
    make_runs(store, 20, 20)
    vset = validation.sample_set(store, "s", successes=20, failures=20, seed=11)
    alice = validation.annotator_order(store, vset, "alice")
    bob = validation.annotator_order(store, vset, "bob")
    assert sorted(i.run_id for i in alice) == sorted(i.run_id for i in bob)
    assert [i.run_id for i in alice] != [i.run_id for i in bob]
    assert alice == validation.annotator_order(store, vset, "alice")
    # stable across processes and Python versions: a fixed function of (seed, name)
    assert validation.order_seed(11, "alice") == int.from_bytes(
        hashlib.sha256(b"11\x00alice").digest()[:8], "big")
    items = sorted(alice, key=lambda i: i.item_id)
    random.Random(validation.order_seed(11, "alice")).shuffle(items)
    assert items == alice
    assert not hasattr(alice[0], "tester_verdict")


def test_labels_upsert_resume_progress_and_blindness_between_annotators(store):
    make_runs(store, 6, 6)
    vset = validation.sample_set(store, "s", successes=6, failures=6, seed=2)
    order = validation.annotator_order(store, vset, "alice")
    assert validation.resume_index(order, {}) == 0
    validation.set_label(store, vset, "alice", order[0].run_id, "pass", "looks fine")
    validation.set_label(store, vset, "alice", order[1].run_id, "unsure")
    validation.set_label(store, vset, "bob", order[2].run_id, "fail")
    labels = validation.labels_of(store, vset, "alice")
    assert set(labels) == {order[0].run_id, order[1].run_id}  # bob's label is not alice's business
    assert validation.resume_index(order, labels) == 2
    assert validation.progress(store, vset, "alice") == (2, 12)
    relabel = validation.set_label(store, vset, "alice", order[0].run_id, "fail", "missed the crash")
    assert (relabel.label, relabel.note) == ("fail", "missed the crash")
    assert store.conn.execute("SELECT count(*) FROM annotations").fetchone()[0] == 3
    assert validation.progress(store, vset, "alice") == (2, 12)
    # labels are not overrides
    assert store.effective_verdict(order[0].run_id) == store.run(order[0].run_id)["verdict"]
    with pytest.raises(UserError, match="'maybe' is not pass, fail or unsure"):
        validation.set_label(store, vset, "alice", order[0].run_id, "maybe")
    with pytest.raises(UserError, match="is not in validation set 's'"):
        validation.set_label(store, vset, "alice", 99999, "pass")
    with pytest.raises(UserError, match="annotator name"):
        validation.set_label(store, vset, "  ", order[0].run_id, "pass")
    every = {order[i].run_id: "pass" for i in range(12)}
    for run in every:
        validation.set_label(store, vset, "alice", run, "pass")
    assert validation.resume_index(order, validation.labels_of(store, vset, "alice")) == 0


def test_promotion_appends_a_human_judgment_only_on_request(store):
    made = make_runs(store, 3, 3)
    vset = validation.sample_set(store, "s", successes=3, failures=3, seed=5)
    run = next(r for r, v in made.items() if v == "pass")
    validation.set_label(store, vset, "alice", run, "fail", "the score never changes")
    assert store.effective_verdict(run) == "pass"
    with pytest.raises(UserError, match="bob has not labelled run"):
        validation.promote(store, vset, "bob", run)
    judgment = validation.promote(store, vset, "alice", run)
    assert store.effective_verdict(run) == "fail"
    row = store.judgments(run)[-1]
    assert row["id"] == judgment and row["source"] == "human" and row["author"] == "alice"
    assert row["note"] == "promoted from validation set s: the score never changes"
    assert validation.labels_of(store, vset, "alice")[run].promoted_judgment == judgment
    with pytest.raises(UserError, match="already promoted"):
        validation.promote(store, vset, "alice", run)
    # same label with a new note keeps the promotion; a changed label forgets it (the judgment stays)
    validation.set_label(store, vset, "alice", run, "fail", "note edited")
    assert validation.labels_of(store, vset, "alice")[run].promoted_judgment == judgment
    validation.set_label(store, vset, "alice", run, "unsure")
    assert validation.labels_of(store, vset, "alice")[run].promoted_judgment is None
    assert store.effective_verdict(run) == "fail"
    with pytest.raises(UserError, match="An 'unsure' label cannot be promoted"):
        validation.promote(store, vset, "alice", run)
    assert len(store.judgments(run)) == 2


def test_blinded_run_hides_verdict_reason_findings_and_bug(store):
    from PIL import Image

    run = store.create_run(target="flappy@pipe-gap", tester="offline", bug="pipe-gap")
    sha = store.put_image(Image.new("RGB", (8, 8), (200, 10, 10)))
    store.add_step(run, 0, {"action": {"action": "click", "x": 3, "y": 4}, "outcome": "ok",
                            "rationale": "SECRET_RATIONALE", "frame_before": sha, "frame_after": sha,
                            "started_at": 1.0, "ended_at": 2.0},
                   [{"step": 0, "kind": "crash", "message": "SECRET_FINDING"}])
    store.add_step(run, 1, {"action": {"action": "finish", "verdict": "fail", "reason": "SECRET_REASON"},
                            "outcome": "finish", "started_at": 2.0, "ended_at": 3.0})
    store.add_logs(run, [("stderr", 2.5, "Traceback: boom")])
    store.finish_run(run, status="completed", verdict="fail", reason="SECRET_REASON")
    blind = validation.blinded_run(store, run)
    text = repr(blind)
    for secret in ("SECRET", "pipe-gap", "verdict"):
        assert secret not in text
    assert [s.caption for s in blind.steps] == ["click(3, 4)", "finish()"]
    assert blind.target == "flappy" and blind.steps[0].frame_before == sha
    assert blind.logs[0][2] == "Traceback: boom"
