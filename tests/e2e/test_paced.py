"""The paced check: what lockstep hides, seen off the frame gate and off the pinned clocks.

Played on the tests' own programs (tests/targets/pace_pg, zone_tk and their bugs/), not the benchmark's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine.play.targetspec import resolve_target
from app.engine.testers.paced import MIN_MOTION_PER_S, PacedCheck, Pace, judge_pace

ROOT = Path(__file__).resolve().parents[2]
TARGETS = ROOT / "tests" / "targets"


def pace(pictures_per_s: float, motion_per_s: float, draws_per_s: float = 0.0) -> Pace:
    return Pace(2.0, 200, int(pictures_per_s * 2), motion_per_s * 2, None, int(draws_per_s * 2))


def test_pace_within_the_tolerance_is_the_same_and_beyond_it_differs() -> None:
    assert judge_pace(pace(30, 0.06), pace(28, 0.05)) == ""
    assert "pictures per second" in judge_pace(pace(60, 0.06), pace(30, 0.06))
    assert "of the window changing per second" in judge_pace(pace(30, 0.3), pace(30, 0.06))
    assert judge_pace(pace(0, 0.0), pace(0.5, MIN_MOTION_PER_S / 2)) == "", "two still windows: no pace to compare"
    assert judge_pace(pace(20, 0.05), pace(0, 0.0)) != "", "moving where the reference stands still"
    assert "drawing requests" in judge_pace(pace(25, 0.06, 400), pace(25, 0.06, 60)), "a frame rate the capture cannot see"
    assert judge_pace(pace(25, 0.06, 900), pace(25, 0.06, 360)) == "", "neither capped: the rates are the machine's"


def check(candidate: str, reference: str) -> tuple[object, PacedCheck]:
    cand, ref = resolve_target(candidate), resolve_target(reference)
    try:
        paced = PacedCheck(cand.spec, ref.spec, 0, seconds=2.0)
        return paced.run(), paced
    finally:
        for r in (cand, ref):
            r.cleanup()


@pytest.mark.slow
def test_a_game_without_its_frame_cap_or_at_twice_the_frame_rate_is_paced_and_its_reference_is_not() -> None:
    ref = str(TARGETS / "pace_pg")
    same, paced = check(ref, ref)
    assert same is None, same
    assert paced.paces is not None and paced.paces[1].pictures_per_s > 10, "the reference was watched moving"
    for bug in ("uncapped", "fast"):
        found, _ = check(f"{ref}@{bug}", ref)
        assert found is not None and found.kind == "paced", bug
        assert found.evidence["candidate"]["draws_per_s"] > 1.5 * found.evidence["reference"]["draws_per_s"], bug


@pytest.mark.slow
def test_a_still_window_that_reads_the_time_zone_wrongly_differs_off_the_pinned_clock() -> None:
    ref = str(TARGETS / "zone_tk")
    assert check(ref, ref)[0] is None
    found, _ = check(f"{ref}@local-zone", ref)
    assert found is not None and found.kind == "paced" and "time zone" in found.message


def test_a_still_window_differing_only_by_a_caret_is_not_a_paced_difference() -> None:
    """Off the pinned clock a caret blinks on the machine's time and stops blinking where it was: one still
    window shows it and the other not.  A caret is no date; text that differs still is a difference."""
    import numpy as np

    from app.engine.play.observer import Frame

    def frame(draw) -> Frame:
        pixels = np.full((120, 200, 4), 255, dtype=np.uint8)
        draw(pixels)
        return Frame(200, 120, pixels.tobytes(), 0.0)

    def caret(p):
        p[40:70, 16:18, :3] = 0

    def text(p):
        p[40:52, 16:60, :3] = 0

    check = PacedCheck(resolve_target(str(TARGETS / "zone_tk")).spec, resolve_target(str(TARGETS / "zone_tk")).spec, 0)
    plain = Pace(3.0, 60, 0, 0.0, frame(lambda p: None))
    assert check._finding(Pace(3.0, 60, 0, 0.0, frame(caret)), plain, "with no input") is None
    found = check._finding(Pace(3.0, 60, 0, 0.0, frame(text)), plain, "with no input")
    assert found is not None and "still window differs" in found.message


@pytest.mark.slow
def test_differential_play_fails_a_paced_candidate_that_lockstep_alone_passes(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "app", "test", str(TARGETS / "pace_pg") + "@fast", "--tester",
                          "differential", "--no-script", "--max-steps", "3", "--db", str(tmp_path / "r.db"),
                          "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    result = json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])
    assert result["verdict"] == "fail", result
    assert "paced" in json.dumps(result), result


@pytest.mark.slow
def test_a_window_still_taking_its_size_at_start_is_not_a_difference(tmp_path: Path) -> None:
    # The candidate's first look comes before its references start: a window that grows 1.5 s after it
    # opens must be compared at the size all three agree on, not reported as "the window is 120x90".
    target = str(TARGETS / "grow_tk")
    out = subprocess.run([sys.executable, "-m", "app", "test", target, "--reference", target, "--tester",
                          "differential", "--no-script", "--max-steps", "2", "--db", str(tmp_path / "r.db"),
                          "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    result = json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])
    assert result["verdict"] == "pass", result


@pytest.mark.slow
def test_the_paced_check_made_while_the_candidate_starts_stores_its_evidence_frames(tmp_path: Path) -> None:
    # The session asks the differential tester to prepare before it starts the candidate: the paced check runs
    # on a thread of its own meanwhile, names its evidence frames by hash, and begin() stores them.
    from app.engine.run.session import RunConfig, Session
    from app.engine.trace.store import TrajectoryStore

    ref = str(TARGETS / "zone_tk")
    store = TrajectoryStore(tmp_path / "r.db")
    result = Session(RunConfig(target=f"{ref}@local-zone", tester="differential", max_steps=1,
                               tester_options={"reference": ref, "script": False}), store).run()
    paced = [f for f in result.findings if f.kind == "paced"]
    assert result.verdict == "fail" and paced, result
    for key in ("candidate_frame", "reference_frame"):
        assert store.frame(paced[0].evidence[key]) is not None, key
    store.close()


class _Shown:
    """A player as the watch sees it: a display by name, no target to re-measure (watch and count_draws are
    faked: the capture is never called)."""

    target = None

    def __init__(self, name: str) -> None:
        self.display = type("Display", (), {"name": name})()
        self.observer = type("Observer", (), {"capture": staticmethod(lambda: None)})()


def _watched(monkeypatch, candidate_draws: list[float], reference_draws: list[float]) -> PacedCheck:
    """A check whose watches see these drawing rates (per second, one per watch), all else alike."""
    import app.engine.testers.paced as paced
    from concurrent.futures import ThreadPoolExecutor

    rates = {"cand": iter(candidate_draws), "ref": iter(reference_draws)}
    monkeypatch.setattr(paced, "watch", lambda capture, seconds, begin: pace(30, 0.05))
    monkeypatch.setattr(paced, "count_draws", lambda name, seconds, begin: int(next(rates[name]) * 2))
    spec = resolve_target(str(TARGETS / "pace_pg")).spec
    check = PacedCheck(spec, spec, 0)
    with ThreadPoolExecutor(max_workers=4) as pool:
        check.paces = check._watch(pool, (_Shown("cand"), _Shown("ref")), 0.0)  # type: ignore[arg-type]
    return check


def test_a_reference_that_does_not_keep_its_own_pace_is_not_compared_for_pace(monkeypatch) -> None:
    """No frame cap: a reference that draws as fast as the machine lets it shows another rate at every watch.
    What two watches of the reference disagree on is not held against the candidate; a steady one still is."""
    check = _watched(monkeypatch, [140, 160], [90, 400])
    assert check.paces is not None
    assert "drawing requests" in judge_pace(*check.paces)  # 160 against 400: in both watches
    assert "drawing requests" in check.unsteady  # the reference itself: 90, then 400
    assert check._finding(*check.paces, "with no input") is None
    assert "the reference's own pace differed between two watches" in check.note

    check = _watched(monkeypatch, [140, 150], [60, 62])
    assert check.unsteady == ""
    assert check.paces is not None
    found = check._finding(*check.paces, "with no input")
    assert found is not None and found.kind == "paced" and "drawing requests" in found.message
