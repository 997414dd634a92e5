"""``similar_to_reference``: a rubric compares with the reference program played live beside the run,
so it needs no committed or recorded picture."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from app.engine.judge.expectations import ExpectationChecker
from app.engine.play.observer import Frame
from app.engine.play.scriptspec import Expectation
from app.engine.play.targetspec import resolve_target

from suite import ROOT, TARGETS, needs_xvfb

CASE = '''
[[criteria]]
id = "live-subtraction"
text = "9-4-1= shows what the reference shows"

[[script]]
criterion = "live-subtraction"
steps = [{action = "press", key = "escape"}, {action = "type", text = "9-4-1"}, {action = "press", key = "enter"}]
expect = [{after = 2, kind = "similar_to_reference", region = [4, 4, 260, 45]}]
'''


def frame(box: tuple[int, int, int, int] | None = None) -> Frame:
    arr = np.full((40, 60, 4), 230, np.uint8)
    if box is not None:
        x0, y0, x1, y1 = box
        arr[y0:y1, x0:x1, :3] = 20
    return Frame(60, 40, arr.tobytes(), time.time())


def test_the_check_compares_with_the_reference_frame_it_is_given():
    checker = ExpectationChecker(Path("."))
    exp = Expectation(0, "similar_to_reference", {"region": [0, 0, 60, 40]})
    glyph = frame((10, 10, 14, 30))
    assert checker.check(exp, None, glyph, frame((10, 10, 14, 30))).verdict == "pass"
    other = checker.check(exp, None, glyph, frame((30, 10, 50, 14)))
    assert other.verdict == "fail" and "played live" in other.note
    assert checker.check(exp, None, glyph, None).verdict == "uncertain"


def with_case(folder: Path, to: Path) -> Path:
    shutil.copytree(folder, to, ignore=shutil.ignore_patterns("bugs", "__pycache__"))
    spec = to / "playcoder.toml"
    spec.write_text(spec.read_text() + CASE)
    return to


def run(target: Path, reference: Path, db: Path) -> dict:
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(target), "--tester", "script", "--reference",
                           str(reference), "--json", "--db", str(db)], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@needs_xvfb
def test_a_wrong_result_differs_from_the_live_reference(tmp_path, db_path):
    good = with_case(TARGETS / "adder_tk", tmp_path / "good")  # the tests' own adder: no benchmark bug pinned
    variant = resolve_target(f"{TARGETS / 'adder_tk'}@minus-reversed")
    try:
        bad = with_case(variant.spec.folder, tmp_path / "bad")
    finally:
        variant.cleanup()
    summary = run(bad, good, db_path)
    assert summary["verdict"] == "fail", summary
    failed = summary["reason"].split("criteria failed: ", 1)[1]
    assert "live-subtraction (" in failed and "reference program's frame" in failed, summary["reason"]
    summary = run(good, good, db_path)
    assert summary["verdict"] == "pass" and "live-subtraction" in summary["reason"], summary
