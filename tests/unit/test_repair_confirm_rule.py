"""app/engine/repair/confirm.py: which plays confirm a fix, and what a failed confirmation is called."""

from __future__ import annotations

from app.engine.repair.confirm import (
    CRASH_SUPPRESSED, FIXED, NOT_CONFIRMED, NOT_FIXED, CheckPlay, confirm, plan, session_outcome,
)


def test_a_reference_means_differential_play_on_three_seeds():
    assert plan(["offline"], 4, "/ref") == [("differential", s, {"reference": "/ref"}) for s in (4, 5, 6)]


def test_without_a_reference_the_testers_and_the_offline_tester_play_the_seeds_not_yet_played():
    assert plan(["script"], 0, None) == [("offline", 0, {}), ("script", 1, {}), ("offline", 1, {}),
                                          ("script", 2, {}), ("offline", 2, {})]
    assert plan(["offline"], 7, None) == [("offline", 8, {}), ("offline", 9, {})]


def test_the_first_run_that_does_not_pass_decides_and_a_crash_there_is_a_suppressed_crash():
    played: list[tuple[str, int]] = []

    def crashes_on_seed_2(tester, seed, options):
        played.append((tester, seed))
        if seed == 2:
            return CheckPlay(10 + seed, "fail", "uncaught error", frozenset({"exception"}))
        return CheckPlay(10 + seed, "pass", "fine")

    got = confirm(crashes_on_seed_2, ["offline"], 1, None)
    assert got.state == CRASH_SUPPRESSED and not got.fixed and played == [("offline", 2)]
    assert "offline on seed 2: fail" in got.reason and got.run_ids == [12]
    got = confirm(lambda t, s, o: CheckPlay(None, "fail", "diverged", frozenset({"diverged"})), ["offline"], 0, "/r")
    assert got.state == NOT_FIXED
    got = confirm(lambda t, s, o: CheckPlay(1, "uncertain", "nothing compared"), ["offline"], 0, None)
    assert got.state == NOT_FIXED, "a confirming run that cannot answer does not confirm"
    got = confirm(lambda t, s, o: CheckPlay(1, "pass", "ok"), ["offline"], 0, "/r")
    assert got.fixed and got.reason == "behaves as the reference under differential play on seeds 0, 1, 2"


def test_a_sessions_outcome_is_read_back_from_its_run_row():
    assert session_outcome(True, "pass", "fixed in iteration 1") == FIXED
    assert session_outcome(False, "fail", "crash suppressed: after 6 iterations; ...") == CRASH_SUPPRESSED
    assert session_outcome(False, "fail", "not fixed after 6 iterations") == NOT_FIXED
    assert session_outcome(False, "uncertain", "not confirmed: ...") == NOT_CONFIRMED
