"""Differential play: the comparison survives what is not behaviour, and catches what is."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from app.engine.errors import TargetError
from app.engine.judge import expectations
from app.engine.judge.compare import box_mask, changed_text, compare, grow
from app.engine.play.actions import Finish
from app.engine.play.observer import Frame, Observation
from app.engine.play.targetspec import load_spec
from app.engine.testers.differential import DifferentialTester
from app.engine.trace.store import TrajectoryStore

from suite import APPS, ROOT, TARGETS, needs_xvfb

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def frame_of(image: Image.Image) -> Frame:
    rgb = np.asarray(image.convert("RGB"))
    bgrx = np.dstack([rgb[:, :, 2], rgb[:, :, 1], rgb[:, :, 0], np.full(rgb.shape[:2], 255, np.uint8)])
    return Frame(image.width, image.height, bgrx.tobytes(), 0.0)


def display(text: str, *, caret: bool = False, shift: float = 0.0) -> Frame:
    image = Image.new("RGB", (240, 120), (20, 30, 50))
    draw = ImageDraw.Draw(image)
    draw.text((60 + shift, 30), text, font=ImageFont.truetype(FONT, 36), fill=(240, 240, 240))
    if caret:
        draw.line([(200, 30), (200, 70)], fill=(240, 240, 240), width=2)
    return frame_of(image)


def test_the_same_screen_with_subpixel_text_does_not_diverge():
    assert compare(display("42", shift=0.4), [display("42")]) is None


def test_a_different_number_diverges_where_it_differs():
    found = compare(display("-5"), [display("5")])
    assert found is not None and found.pixels >= 30
    x0, y0, x1, y1 = found.bbox
    assert 40 <= x0 < 120 and 20 <= y0 < 80


def counter(text: str, *, shift: float = 0.0, caret: bool = False) -> Frame:
    """A footer like todo's: '3 left' in 11 px grey on a light background (one-pixel strokes)."""
    image = Image.new("RGB", (160, 40), (238, 241, 245))
    draw = ImageDraw.Draw(image)
    draw.text((10 + shift, 10), text, font=ImageFont.truetype(FONT, 11), fill=(90, 96, 112))
    if caret:
        draw.line([(70, 10), (70, 24)], fill=(20, 20, 20), width=1)
    return frame_of(image)


@pytest.mark.skipif(expectations.ocr_engine() is None, reason="needs tesseract and pytesseract")
def test_small_text_that_reads_differently_diverges_and_small_text_drawn_aside_does_not():
    assert compare(counter("3 left"), [counter("4 left")]) is None  # one-pixel strokes: below the blob rule
    found = changed_text(counter("3 left"), counter("4 left"))
    assert found is not None and "'3 left'" in found.reason and "'4 left'" in found.reason
    assert found.bbox[0] < 20 and 10 <= found.bbox[1] < 25
    for shift in (0.3, 0.5, 0.7):
        assert changed_text(counter("3 left", shift=shift), counter("3 left")) is None
    assert changed_text(counter("Call mum", caret=True), counter("Call mum")) is None  # a caret is never read
    running = np.zeros((40, 160), dtype=bool)
    running[12:22, 30:40] = True  # beside it, something that changes by itself (a clock's digits)
    assert changed_text(counter("3 left"), counter("4 left"), running) is None


def test_a_blinking_caret_is_noise_once_seen():
    noisy = np.zeros((120, 240), dtype=bool)
    noisy[30:71, 199:202] = True
    assert compare(display("42", caret=True), [display("42")], grow(noisy)) is None


def test_the_nearest_reference_frame_counts():
    assert compare(display("7"), [display("6"), display("7")]) is None


def test_declared_regions_and_sizes():
    ignore = box_mask((120, 240), [[0, 0, 240, 120]])
    assert compare(display("1"), [display("2")], ignore) is None
    small = frame_of(Image.new("RGB", (100, 100)))
    found = compare(small, [display("2")])
    assert found is not None and "100×100" in found.reason


def test_differential_ignore_is_validated(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "playcoder.toml").write_text('name = "t"\ncommand = ["python", "main.py"]\n'
                                           '[differential]\nignore = [[0, 0, 50, 20]]\n')
    assert load_spec(folder).nondeterministic == ((0, 0, 50, 20),)
    (folder / "playcoder.toml").write_text('name = "t"\ncommand = ["python", "main.py"]\n'
                                           '[differential]\nignore = [[50, 0, 10, 20]]\n')
    with pytest.raises(TargetError, match="differential.ignore"):
        load_spec(folder)


def test_the_reference_frame_is_written_once_the_session_recorded_the_step(db_path):
    """observe() runs before the session commits its step: the frame waits for step_recorded(), the finish too."""
    store = TrajectoryStore(db_path)
    run_id = store.create_run(target="calculator", tester="differential")
    tester = DifferentialTester()
    tester.attach(store, run_id)
    tester.ctx = object()  # type: ignore[assignment]  # begin() ran (it needs real programs)
    tester.ref_obs = [Observation(display("6"), True, 0.0, None, 1)]
    tester.reference_frames[0] = display("5")
    tester.unreproducible = "the reference ended"
    assert isinstance(tester.decide(1, tester.ref_obs[0]).action, Finish)
    for idx in (0, 1):
        store.add_step(run_id, idx, {"action": {"action": "press", "key": "5"}, "outcome": "ok",
                                     "started_at": 1.0, "ended_at": 2.0})
        tester.step_recorded(idx)
    tester.step_recorded(2)  # a take-over the reference did not play: nothing to write
    refs = [store.frame(s["frame_reference"]) for s in store.steps(run_id)]
    assert [r.image().size for r in refs if r is not None] == [(240, 120), (240, 120)]
    assert refs[0].sha256 != refs[1].sha256 and not tester.reference_frames  # type: ignore[union-attr]
    tester.close()
    store.close()


def run_cli(*args: str, db, timeout: float = 300) -> tuple[int, dict, str]:
    proc = subprocess.run([sys.executable, "-m", "app", "test", *args, "--tester", "differential", "--json",
                           "--db", str(db)], capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    summary = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else {}
    return proc.returncode, summary, proc.stderr


@needs_xvfb
def test_a_reference_against_itself_does_not_diverge(db_path):
    code, summary, err = run_cli("calculator", "--reference", str(APPS / "calculator"), "--max-steps", "12",
                                 db=db_path)
    assert code == 0, err
    assert summary["verdict"] == "pass", summary
    assert "behaved as the reference did" in summary["reason"]


@needs_xvfb
def test_a_game_that_ends_by_design_is_compared_episode_after_episode(tmp_path, db_path):
    # A game written the ordinary way: it notes get_ticks() before its first frame, sleeps on its
    # GAME OVER screen and quits with code 0; declared exit_ok, each end starts the next episode.
    game = tmp_path / "gameover"
    shutil.copytree(ROOT / "tests" / "targets" / "gameover_pg", game)
    with open(game / "playcoder.toml", "a") as f:
        f.write("exit_ok = true\n")
    code, summary, err = run_cli(str(game), "--reference", str(game), "--max-steps", "30", db=db_path,
                                 timeout=400)
    assert code == 0, err
    assert summary["verdict"] == "pass", summary
    assert summary["episodes"] >= 2, summary
    assert "in lockstep" in summary["reason"]


@needs_xvfb
def test_a_logic_bug_diverges_with_both_frames_as_evidence(db_path):
    # The tests' own adder (tests/targets/adder_tk), explore-only; seed 1: the explorer's 40 steps include a
    # subtraction followed by '=' (not every seed's do).  No benchmark bug is pinned here.
    code, summary, err = run_cli(f"{TARGETS / 'adder_tk'}@minus-reversed", "--no-script", "--max-steps", "40",
                                 "--seed", "1", db=db_path)
    assert code == 0, err
    assert summary["verdict"] == "fail", summary
    assert [f["kind"] for f in summary["findings"]] == ["diverged"]
    finding = TrajectoryStore(db_path).findings(summary["run_id"])[0]
    evidence = finding["evidence"] if isinstance(finding["evidence"], dict) else json.loads(finding["evidence"])
    store = TrajectoryStore(db_path)
    assert store.frame(evidence["reference_frame"]) is not None
    assert store.frame(evidence["candidate_frame"]) is not None
    assert evidence["bbox"][1] < 45  # in the display, at the top of the adder
    steps = store.steps(summary["run_id"])  # every step keeps what the reference showed after it
    assert steps and all(s["frame_reference"] and store.frame(s["frame_reference"]) is not None for s in steps)
    assert steps[-1]["frame_reference"] != steps[-1]["frame_after"]  # the diverging step shows both
    # The divergence's evidence travels with the run: another database shows both frames.
    from app.engine.trace.bundle import export_bundle
    from app.engine.trace.bundle_import import import_bundle

    other = TrajectoryStore(db_path.parent / "other.db")
    run = import_bundle(other, export_bundle(store, summary["run_id"], db_path.parent / "run.zip"))
    moved = other.findings(run)[0]["evidence"]
    moved = moved if isinstance(moved, dict) else json.loads(moved)
    assert other.frame(moved["reference_frame"]) is not None and other.frame(moved["candidate_frame"]) is not None


@needs_xvfb
def test_a_second_click_on_what_answered_finds_a_card_matched_with_itself(db_path):
    # The tests' own memory game (tests/targets/pairs_tk, no script): the explorer's choices alone must reach
    # the bug.  No benchmark bug is pinned here.
    code, summary, err = run_cli(f"{TARGETS / 'pairs_tk'}@same-card-match", "--max-steps", "20", "--seed", "1",
                                 db=db_path)
    assert code == 0, err
    assert summary["verdict"] == "fail", summary
    steps = TrajectoryStore(db_path).steps(summary["run_id"])
    last = steps[-1]
    assert last["rationale"].find("the same click again") >= 0, [s["rationale"] for s in steps]
    assert last["action"] == steps[-2]["action"]


@needs_xvfb
def test_a_folder_without_a_reference_is_one_clear_sentence(tmp_path, db_path):
    code, summary, err = run_cli(str(APPS / "calculator"), "--max-steps", "3", db=db_path)
    assert code == 2
    assert "needs --reference REF_DIR" in (summary.get("error") or err)
    assert "Traceback" not in err
