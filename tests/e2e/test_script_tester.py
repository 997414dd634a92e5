"""The scripted rubric tester: [[script]] parsing, the visual expectations, the judging, and real runs."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app.engine.judge import expectations
from app.engine.play.actions import Finish, Press, Type, Wait
from app.engine.errors import TargetError, UserError
from app.engine.judge.expectations import ExpectationChecker, contrast_ratio, ssim
from app.engine.play.observer import Frame, Observation
from app.engine.judge.oracles import Finding
from app.engine.play.scriptspec import Expectation
from app.engine.trace.store import TrajectoryStore
from app.engine.play.targetspec import list_apps, load_spec, parse_spec
from app.engine.testers import make_tester
from app.engine.testers import base
from app.engine.testers.script import ScriptTester

from suite import ROOT, TARGETS, needs_xvfb

W, H = 64, 56
BG = (240, 240, 240)


def frame(fill=BG, boxes=()) -> Frame:
    """A W x H frame of one colour with (x0, y0, x1, y1, rgb) boxes painted on it."""
    rgb = np.zeros((H, W, 3), np.uint8)
    rgb[:] = fill
    for x0, y0, x1, y1, colour in boxes:
        rgb[y0:y1, x0:x1] = colour
    bgrx = np.zeros((H, W, 4), np.uint8)
    bgrx[:, :, :3] = rgb[:, :, ::-1]
    return Frame(W, H, bgrx.tobytes(), time.time())


def obs(f: Frame) -> Observation:
    return Observation(f, True, 5.0, None, 1)


def spec_with(script: list[dict], tmp_path: Path, criteria=("a", "b")):
    data = {"name": "t", "command": ["python", "main.py"], "size": [W, H],
            "criteria": [{"id": c, "text": c} for c in criteria], "script": script}
    return parse_spec(data, folder=tmp_path, source=tmp_path, bug=None, where="t/playcoder.toml")


# -- parsing ----------------------------------------------------------------------------
SCRIPTED_APPS = {"calculator", "flappy", "tiles2048"}


def test_bundled_apps_have_valid_scripts():
    apps = list_apps()
    assert SCRIPTED_APPS <= {p.name for p in apps}
    for folder in apps:
        spec = load_spec(folder)  # parses and validates every [[script]]
        assert spec.script or folder.name not in SCRIPTED_APPS, f"{folder.name} lost its [[script]]"
        for case in spec.script:
            for exp in case.expect:
                if exp.kind == "similar":
                    assert (folder / exp.params["reference"]).is_file(), (
                        f"{folder.name}/{exp.params['reference']} is missing; record it with "
                        f"`python -m benchmark.record_refs --apps {folder.name}`")


@pytest.mark.parametrize("case, message", [
    ({"criterion": "nope", "steps": [{"action": "wait", "seconds": 0.1}], "expect": [{"kind": "region_changed"}]},
     "criterion must be the id"),
    ({"criterion": "a", "steps": [], "expect": [{"kind": "region_changed"}]}, "steps must be a list"),
    ({"criterion": "a", "steps": [{"action": "fly"}], "expect": [{"kind": "region_changed"}]}, "unknown action"),
    ({"criterion": "a", "steps": [{"action": "finish", "verdict": "pass"}], "expect": [{"kind": "region_changed"}]},
     "may not finish"),
    ({"criterion": "a", "steps": [{"action": "wait", "seconds": 0.1}], "expect": [{"kind": "smell"}]}, "kind must be"),
    ({"criterion": "a", "steps": [{"action": "wait", "seconds": 0.1}], "expect": [{"kind": "region_changed", "after": 1}]},
     "after must be a step index from 0 to 0"),
    ({"criterion": "a", "steps": [{"action": "wait", "seconds": 0.1}],
      "expect": [{"kind": "pixel", "colour": "#ffffff", "at": [1, 1], "region": [0, 0, 2, 2]}]}, "exactly one of"),
    ({"criterion": "a", "steps": [{"action": "wait", "seconds": 0.1}],
      "expect": [{"kind": "pixel", "colour": "white", "at": [1, 1]}]}, "#rrggbb"),
    ({"criterion": "a", "steps": [{"action": "wait", "seconds": 0.1}],
      "expect": [{"kind": "similar", "reference": "../x.png"}]}, "inside the target folder"),
    ({"criterion": "a", "steps": [{"action": "wait", "seconds": 0.1}],
      "expect": [{"kind": "not_similar_colours", "region": [5, 5, 2, 9]}]}, "region must be"),
    ({"criterion": "a", "steps": [{"action": "wait", "seconds": 0.1}],
      "expect": [{"kind": "text", "region": [0, 0, 9, 9]}]}, "text needs contains"),
    ({"criterion": "a", "steps": [{"action": "wait", "seconds": 0.1}], "expect": [{"kind": "region_changed"}],
      "repeat": 3}, "unknown key"),
])
def test_bad_script_cases_are_refused_with_a_clear_message(case, message, tmp_path):
    with pytest.raises(TargetError, match=message) as info:
        spec_with([case], tmp_path)
    assert "t/playcoder.toml: script case 1" in str(info.value)


def test_expectation_defaults_to_the_last_step(tmp_path):
    spec = spec_with([{"criterion": "a", "steps": [{"action": "press", "key": "r"}, {"action": "type", "text": "9"}],
                       "expect": [{"kind": "region_changed"}]}], tmp_path)
    (case,) = spec.script
    assert case.steps == (Press("r"), Type("9")) and case.expect[0].after == 1


def test_unknown_top_level_keys_are_still_refused(tmp_path):
    data = {"name": "t", "command": ["python", "x.py"], "scripts": []}
    with pytest.raises(TargetError, match="unknown key"):
        parse_spec(data, folder=tmp_path, source=tmp_path, bug=None, where="w")


# -- expectations on synthetic frames ---------------------------------------------------
def check(kind: str, before: Frame | None, after: Frame, folder: Path = Path("."), **params):
    return ExpectationChecker(folder).check(Expectation(0, kind, params), before, after)


def test_region_changed():
    a, b = frame(), frame(boxes=[(10, 10, 12, 12, (0, 0, 0))])
    assert check("region_changed", a, b, region=[0, 0, 20, 20]).verdict == "pass"
    assert check("region_changed", a, b, region=[30, 30, 60, 40]).verdict == "fail"
    assert check("region_changed", None, b).verdict == "uncertain"
    assert check("region_changed", a, b, region=[100, 100, 200, 200]).verdict == "uncertain"


def test_pixel_at_and_in_region():
    f = frame(boxes=[(0, 0, 8, 8, (250, 240, 210))])
    ok = check("pixel", None, f, at=[2, 2], colour="#faf0d2", tolerance=0)
    assert ok.verdict == "pass" and ok.measured == "#faf0d2"
    bad = check("pixel", None, f, at=[20, 20], colour="#faf0d2")
    assert bad.verdict == "fail" and bad.measured == "#f0f0f0"
    share = check("pixel", None, f, region=[0, 0, 16, 16], colour="#faf0d2", tolerance=4, min_share=0.25)
    assert share.verdict == "pass" and share.measured == 0.25
    assert check("pixel", None, f, region=[0, 0, 16, 16], colour="#faf0d2", min_share=0.3).verdict == "fail"
    assert check("pixel", None, f, at=[W, 0], colour="#000000").verdict == "uncertain"


def test_similar_to_a_reference_picture(tmp_path):
    glyph = frame(boxes=[(20, 10, 24, 30, (20, 20, 20)), (30, 10, 40, 14, (20, 20, 20))])
    (tmp_path / "refs").mkdir()
    glyph.image().save(tmp_path / "refs" / "glyph.png")
    assert check("similar", None, glyph, tmp_path, reference="refs/glyph.png").measured == 1.0
    minus = frame(boxes=[(20, 10, 24, 30, (20, 20, 20)), (30, 10, 40, 14, (20, 20, 20)), (8, 18, 16, 21, (20, 20, 20))])
    res = check("similar", None, minus, tmp_path, reference="refs/glyph.png", threshold=0.95)
    assert res.verdict == "fail" and res.measured < 0.95
    # outside the changed part the pictures agree
    assert check("similar", None, minus, tmp_path, reference="refs/glyph.png", region=[18, 0, 64, 56]).verdict == "pass"
    # a reference cropped to the region is accepted too
    Image.fromarray(np.asarray(glyph.image())[0:56, 18:64]).save(tmp_path / "refs" / "crop.png")
    assert check("similar", None, glyph, tmp_path, reference="refs/crop.png", region=[18, 0, 64, 56]).verdict == "pass"
    missing = check("similar", None, glyph, tmp_path, reference="refs/none.png")
    assert missing.verdict == "uncertain" and "record_refs" in missing.note
    Image.new("RGB", (10, 10)).save(tmp_path / "refs" / "small.png")
    assert check("similar", None, glyph, tmp_path, reference="refs/small.png").verdict == "uncertain"


def test_differs_is_the_opposite_of_similar(tmp_path):
    """A watch that does not read 00:00: the region must be unlike the picture."""
    zero = frame(boxes=[(20, 10, 24, 30, (20, 20, 20))])
    two = frame(boxes=[(20, 10, 24, 30, (20, 20, 20)), (30, 10, 40, 14, (20, 20, 20)), (30, 20, 40, 24, (20, 20, 20))])
    (tmp_path / "refs").mkdir()
    zero.image().save(tmp_path / "refs" / "zero.png")
    same = check("differs", None, zero, tmp_path, reference="refs/zero.png")
    assert same.verdict == "fail" and same.measured == 1.0 and "need below 0.95" in same.note
    other = check("differs", None, two, tmp_path, reference="refs/zero.png")
    assert other.verdict == "pass" and other.measured < 0.95
    assert check("differs", None, two, tmp_path, reference="refs/none.png").verdict == "uncertain"


def test_ssim_properties():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 255, (30, 40, 3), dtype=np.uint8)
    assert ssim(a, a) == pytest.approx(1.0)
    flat = np.full((30, 40, 3), 128, np.uint8)
    assert ssim(flat, flat) == pytest.approx(1.0)
    assert ssim(a, 255 - a) < 0.0
    with pytest.raises(ValueError):
        ssim(a, a[:10])


def test_contrast_of_the_two_dominant_colours():
    assert contrast_ratio((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast_ratio((119, 110, 101), (119, 110, 101)) == pytest.approx(1.0)
    tile = (237, 224, 200)
    readable = frame(fill=tile, boxes=[(20, 10, 30, 40, (119, 110, 101))])
    res = check("not_similar_colours", None, readable, region=[0, 0, W, H], min_contrast=3.0)
    assert res.verdict == "pass" and res.measured["colours"] == ["#ede0c8", "#776e65"]
    assert res.measured["contrast"] == pytest.approx(3.83, abs=0.01)
    invisible = frame(fill=tile, boxes=[(20, 10, 30, 40, (236, 223, 201))])  # text in the tile's own colour
    res = check("not_similar_colours", None, invisible, region=[0, 0, W, H])
    assert res.verdict == "fail" and res.measured["contrast"] == 1.0 and "invisible" in res.note
    faint = frame(fill=(255, 255, 255), boxes=[(20, 10, 30, 40, (200, 200, 200))])  # 1.67:1
    assert check("not_similar_colours", None, faint, region=[0, 0, W, H], min_contrast=3.0).verdict == "fail"
    speck = frame(fill=tile, boxes=[(20, 10, 22, 12, (0, 0, 0))])  # 4 px: noise, not a second colour
    assert check("not_similar_colours", None, speck, region=[0, 0, W, H]).verdict == "fail"


def test_text_is_uncertain_without_ocr(monkeypatch):
    monkeypatch.setattr(expectations.shutil, "which", lambda name: None)
    res = check("text", None, frame(), region=[0, 0, 10, 10], contains="Score")
    assert res.verdict == "uncertain" and "OCR is not available" in res.note


FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")


@pytest.mark.skipif(expectations.ocr_engine() is None or not FONT.is_file(),
                    reason="needs tesseract, pytesseract and the DejaVu font")
def test_text_read_with_ocr():
    from PIL import ImageDraw, ImageFont

    img = Image.new("RGB", (W * 4, H), (187, 173, 160))
    ImageDraw.Draw(img).text((8, 12), "SCORE 8", font=ImageFont.truetype(str(FONT), 24), fill=(249, 246, 242))
    bgrx = np.zeros((H, W * 4, 4), np.uint8)
    bgrx[:, :, :3] = np.asarray(img)[:, :, ::-1]
    f = Frame(W * 4, H, bgrx.tobytes(), time.time())
    checker = ExpectationChecker(Path("."))
    ok = checker.check(Expectation(0, "text", {"region": [0, 0, W * 4, H], "contains": "score 8"}), None, f)
    assert ok.verdict == "pass" and "SCORE 8" in ok.measured
    assert checker.check(Expectation(0, "text", {"region": [0, 0, W * 4, H], "contains": "SCORE 0"}), None,
                         f).verdict == "fail"


# -- judging, with frames fed by hand ------------------------------------------------------
SCRIPT = [
    {"criterion": "a", "steps": [{"action": "press", "key": "r"}, {"action": "press", "key": "left"}],
     "expect": [{"after": 1, "kind": "region_changed", "region": [0, 0, 32, 48]},
                {"after": 1, "kind": "pixel", "at": [40, 5], "colour": "#000000", "tolerance": 0, "within": 0.3}]},
    {"criterion": "b", "steps": [{"action": "wait", "seconds": 0.1}],
     "expect": [{"kind": "not_similar_colours", "region": [0, 0, W, H]}]},
]


def make_script_tester(script, tmp_path, seed=0):
    spec = spec_with(script, tmp_path, criteria=("a", "b", "c"))
    tester = make_tester("script", {"poll_s": 0.05})
    assert isinstance(tester, ScriptTester)
    tester.begin(base.TesterContext(spec, seed, 30, random.Random(0), (W, H)), obs(frame()))
    return tester


def drive(tester, frames, limit=30):
    """Drive the tester like the session does; ``frames(step, action)`` gives the frame after each action."""
    current = frame()
    for step in range(limit):
        decision = tester.decide(step, obs(current))
        if isinstance(decision.action, Finish):
            return decision, step
        if isinstance(decision.action, Wait):
            time.sleep(decision.action.seconds)
        after = frames(step, decision.action)
        tester.observe(step, current, decision, obs(after), "ok")
        current = after
    return None, limit


def test_criteria_pass_and_fail_with_evidence(tmp_path):
    tester = make_script_tester(SCRIPT, tmp_path)
    changed = frame(boxes=[(5, 5, 20, 20, (0, 0, 0)), (40, 5, 41, 6, (0, 0, 0))])
    decision, steps = drive(tester, lambda step, action: changed if step >= 1 else frame())
    assert steps == 3 and decision.action == Finish("pass", decision.action.reason)
    verdict = tester.verdict([], steps)
    assert verdict.verdict == "pass"
    assert verdict.criteria["a"][0] == "pass" and verdict.criteria["b"][0] == "pass"
    assert verdict.criteria["c"] == ("uncertain", "no script case covers this criterion")
    assert "uncertain: c" in verdict.reason
    ev = [e.to_dict() for e in tester.results()]
    assert ev[0]["step"] == 1 and ev[0]["kind"] == "region_changed" and ev[0]["measured"]["changed_share"] > 0
    assert ev[1]["measured"] == "#000000"


def test_within_polls_then_fails_and_a_generic_oracle_fails_the_run(tmp_path):
    tester = make_script_tester(SCRIPT, tmp_path)
    only_left = frame(boxes=[(5, 5, 10, 10, (0, 0, 0))])
    actions = []

    def frames(step, action):
        actions.append(action)
        return only_left if step >= 1 else frame()

    decision, steps = drive(tester, frames)
    assert any(isinstance(a, Wait) and a.seconds == 0.05 for a in actions[2:]), "the tester should poll with waits"
    verdict = tester.verdict([], steps)
    assert verdict.verdict == "fail"
    status, note = verdict.criteria["a"]
    assert status == "fail" and "pixel (40, 5) is #f0f0f0" in note and "still so 0.3 s after step 2" in note
    crashed = tester.verdict([Finding("crash", "the program exited with code 1", 2, fatal=True)], steps)
    assert crashed.verdict == "fail" and crashed.reason.startswith("crash at step 3")


def test_eventual_success_within_the_time(tmp_path):
    tester = make_script_tester(SCRIPT, tmp_path)
    late = frame(boxes=[(5, 5, 10, 10, (0, 0, 0)), (40, 5, 41, 6, (0, 0, 0))])
    early = frame(boxes=[(5, 5, 10, 10, (0, 0, 0))])
    _, steps = drive(tester, lambda step, action: frame() if step == 0 else (early if step == 1 else late))
    assert tester.verdict([], steps).criteria["a"][0] == "pass"


def test_unreached_steps_and_other_seeds_are_uncertain(tmp_path):
    tester = make_script_tester(SCRIPT, tmp_path)
    drive(tester, lambda step, action: frame(), limit=1)
    verdict = tester.verdict([], 1)
    assert verdict.verdict == "uncertain" and verdict.criteria["a"][0] == "uncertain"  # nothing judged: no pass
    assert "ended before this step" in verdict.criteria["a"][1] and "no criterion was judged" in verdict.reason
    pinned = [dict(SCRIPT[1], seed=7)]
    tester = make_script_tester(pinned, tmp_path, seed=0)
    decision, steps = drive(tester, lambda step, action: frame())
    assert steps == 0 and isinstance(decision.action, Finish) and decision.action.verdict == "uncertain"
    other_seed = tester.verdict([], 0)
    assert other_seed.verdict == "uncertain" and "written for seed 7" in other_seed.criteria["b"][1]
    assert "no scripted case applies to seed 0" in other_seed.reason


def test_every_seed_plays_the_cases_written_for_it_or_for_any_seed(tmp_path):
    """A run picks the cases that apply to its seed; the unpinned ones hold for every seed."""
    script = [dict(SCRIPT[1], criterion="a", seed=3), dict(SCRIPT[1])]
    for seed, played in ((3, {"a", "b"}), (4, {"b"})):
        tester = make_script_tester(script, tmp_path, seed=seed)
        _, steps = drive(tester, lambda step, action: frame(boxes=[(5, 5, 20, 20, (0, 0, 0))]))
        verdict = tester.verdict([], steps)
        judged = {cid for cid, (v, _) in verdict.criteria.items() if v != "uncertain"}
        assert judged == played and verdict.verdict == "pass", (seed, verdict)


def test_a_criterion_rests_on_its_cases_played_for_this_seed(tmp_path):
    """A criterion with a case pinned to another seed and one for every seed is judged by the latter."""
    script = [dict(SCRIPT[1], seed=3), dict(SCRIPT[1])]
    tester = make_script_tester(script, tmp_path, seed=4)
    _, steps = drive(tester, lambda step, action: frame(boxes=[(5, 5, 20, 20, (0, 0, 0))]))
    verdict = tester.verdict([], steps)
    assert verdict.criteria["b"][0] == "pass" and verdict.verdict == "pass"
    assert "written for seed 3" not in verdict.criteria["b"][1]


def test_a_target_without_script_is_a_user_error(tmp_path):
    spec = spec_with([], tmp_path)
    with pytest.raises(UserError, match=r"no \[\[script\]\] section"):
        ScriptTester().begin(base.TesterContext(spec, 0, 5, random.Random(0), (W, H)), obs(frame()))


# -- real runs through the CLI -----------------------------------------------------------------
def run_cli(target: str, db: Path, *extra: str) -> tuple[int, dict, str]:
    proc = subprocess.run([sys.executable, "-m", "app", "test", target, "--tester", "script", "--json",
                           "--db", str(db), *extra], capture_output=True, text=True, timeout=180, cwd=ROOT)
    lines = proc.stdout.strip().splitlines()
    return proc.returncode, json.loads(lines[-1]) if lines else {}, proc.stderr


def criteria_judgments(db: Path, run_id: int) -> dict[str, tuple[str, str]]:
    store = TrajectoryStore(db)
    try:
        return {j["criterion"]: (j["verdict"], j["note"]) for j in store.judgments(run_id) if j["criterion"]}
    finally:
        store.close()


@needs_xvfb
def test_reference_calculator_passes_every_criterion(db_path):
    code, summary, err = run_cli("calculator", db_path)
    assert code == 0, err
    assert summary["verdict"] == "pass", summary
    judged = criteria_judgments(db_path, summary["run_id"])
    assert {k: v for k, (v, _) in judged.items()} == {
        "digits-shown": "pass", "correct-results": "pass", "expression-line": "pass", "clear": "pass"}
    store = TrajectoryStore(db_path)
    last = store.steps(summary["run_id"])[-1]
    store.close()
    assert last["action"]["action"] == "finish" and "checked: PASS" in last["rationale"]


@needs_xvfb
@pytest.mark.parametrize("bug, criterion, measured", [
    ("minus-reversed", "correct-results", "SSIM"),
    ("digits-invisible", "digits-shown", "shows one colour"),
])
def test_logic_and_display_bugs_fail_their_criterion(bug, criterion, measured, db_path):
    """The tests' own adder and its variants (tests/targets/adder_tk): no benchmark bug is pinned."""
    code, summary, err = run_cli(f"{TARGETS / 'adder_tk'}@{bug}", db_path)
    assert code == 0, err
    assert summary["verdict"] == "fail", summary
    verdict, note = criteria_judgments(db_path, summary["run_id"])[criterion]
    assert verdict == "fail" and measured in note and "step" in note


@needs_xvfb
def test_script_tester_on_a_target_without_script_says_what_to_do(db_path):
    code, summary, err = run_cli(str(ROOT / "benchmark" / "targets" / "form800"), db_path)
    assert code == 2
    assert "no [[script]] section" in err and "--tester offline" in err


def test_a_human_take_over_step_is_not_judged_as_a_scripted_step(tmp_path):
    from app.engine.testers.base import Decision

    tester = make_script_tester(SCRIPT, tmp_path)
    first = tester.decide(0, obs(frame()))
    tester.observe(0, frame(), first, obs(frame()), "ok")
    second = tester.decide(1, obs(frame()))
    changed = frame(boxes=[(5, 5, 20, 20, (0, 0, 0)), (40, 5, 41, 6, (0, 0, 0))])
    # the human acts instead of the tester: nothing is measured, and the scripted step stays pending
    tester.observe(1, frame(), Decision(Press("x"), "human take-over"), obs(frame()), "ok")
    assert tester.evidence == {}
    tester.observe(2, frame(), second, obs(changed), "ok")
    assert {ev.verdict for ev in tester.evidence.values()} == {"pass"}
