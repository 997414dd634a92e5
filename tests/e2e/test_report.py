"""The HTML report of a real engine run: one file, self-contained, every step anchored, all text escaped."""

from __future__ import annotations

import base64
import html
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app.engine.trace.report import MAX_FRAME_WIDTH, write_html_report
from app.engine.trace.store import TrajectoryStore

ROOT = Path(__file__).resolve().parents[2]
PAYLOAD = '<script>alert("pwned")</script>'

@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A real probe_tk run, plus a finding, a hostile rationale and a human override."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed")
    db = tmp_path_factory.mktemp("report") / "runs.db"
    out = subprocess.run(
        [sys.executable, "-m", "app", "test", "tests/targets/probe_tk", "--json", "--db", str(db), "--max-steps", "5"],
        check=True, cwd=ROOT, capture_output=True, text=True, timeout=180,
    )
    run_id = int(json.loads(out.stdout.strip().splitlines()[-1])["run_id"])
    store = TrajectoryStore(db)
    store.add_finding(run_id, {"step": 1, "kind": "freeze", "message": "no <b>change</b> & no log",
                               "evidence": {"log": ["</pre><img src=x onerror=alert(1)>"]}})
    with store.transaction():
        store.conn.execute("UPDATE steps SET rationale = ? WHERE run_id = ? AND idx = 0", [PAYLOAD, run_id])
    store.add_judgment(run_id, source="human", author="ann <ann@example.org>", verdict="fail", note="wrong label")
    store.close()
    return db, run_id


@pytest.fixture(scope="module")
def report(run: tuple[Path, int], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    db, run_id = run
    store = TrajectoryStore(db, readonly=True)
    path = write_html_report(store, run_id, tmp_path_factory.mktemp("out") / "sub" / "run.html")
    store.close()
    return path, path.read_text(encoding="utf-8")


def test_report_is_one_self_contained_file(report):
    path, text = report
    assert [p.name for p in path.parent.iterdir()] == ["run.html"]
    assert text.startswith("<!doctype html>") and text.rstrip().endswith("</html>")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:|//|file:)""", text, re.I)
    assert "<link" not in text and "@import" not in text and "<iframe" not in text
    assert "http://" not in text and "https://" not in text


def test_every_step_is_anchored_and_every_frame_embedded_once(run, report):
    db, run_id = run
    _, text = report
    store = TrajectoryStore(db, readonly=True)
    steps = store.steps(run_id)
    assert len(steps) == 5
    for step in steps:
        assert f'id="step-{step["idx"]}"' in text
        for key in ("frame_before", "frame_after"):
            assert f"f{step[key][:16]}" in text
    distinct = {s[k] for s in steps for k in ("frame_before", "frame_after")}
    assert text.count("data:image/png;base64,") == len(distinct)
    uris = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", text)
    for uri in uris:
        Image.open(io.BytesIO(base64.b64decode(uri))).verify()
    store.close()


def test_text_from_the_database_is_escaped(report):
    _, text = report
    assert PAYLOAD not in text
    assert html.escape(PAYLOAD) in text
    assert "<img src=x" not in text and "<b>change</b>" not in text
    assert "ann &lt;ann@example.org&gt;" in text
    assert text.count("<script>") == 1  # the report's own key handling, nothing else


def test_header_verdict_findings_and_overlays(run, report):
    db, run_id = run
    _, text = report
    assert 'class="verdict v-fail"' in text
    assert "Overridden by ann" in text and "the tester said pass" in text
    assert '<a href="#step-1">step 2</a>' in text  # the finding at idx 1 is step 2 for people
    assert "probe_tk" in text and "offline" in text
    store = TrajectoryStore(db, readonly=True)
    for step in store.steps(run_id):
        action = step["action"]
        if action["action"] == "click":
            assert f'<circle cx="{float(action["x"])}" cy="{float(action["y"])}"' in text
        if step["changed_bbox"]:
            assert f'<rect x="{float(step["changed_bbox"][0]) - 2}"' in text
    store.close()
    assert not re.search(r"""=[^"'\s>]+/>""", text), "an unquoted attribute swallows the '/' of '/>'"


def test_logs_are_attached_to_their_steps(run, report):
    db, run_id = run
    _, text = report
    store = TrajectoryStore(db, readonly=True)
    lines = store.logs(run_id)
    store.close()
    assert lines, "the probe logs every key it receives"
    for line in lines:
        assert html.escape(line["text"]) in text
    sections = re.split(r'<section class=step id="step-', text)
    assert any("key Return" in s for s in sections[1:])


def test_wide_frames_are_downscaled(tmp_path):
    store = TrajectoryStore(tmp_path / "wide.db")
    run_id = store.create_run(target="wide", tester="offline")
    before = store.put_image(Image.new("RGB", (1920, 1080), (30, 60, 90)))
    after = store.put_image(Image.new("RGB", (1920, 1080), (200, 60, 90)))
    store.add_step(run_id, 0, {"action": {"action": "drag", "x": 10, "y": 10, "x2": 1800, "y2": 900},
                               "outcome": "ok", "rationale": "wide", "frame_before": before, "frame_after": after,
                               "changed_bbox": [0, 0, 1920, 1080], "started_at": 1.0, "ended_at": 2.0})
    store.finish_run(run_id, status="completed", verdict="pass")
    text = write_html_report(store, run_id, tmp_path / "wide.html").read_text()
    uris = re.findall(r"data:image/jpeg;base64,([A-Za-z0-9+/=]+)", text)
    assert len(uris) == 2
    assert Image.open(io.BytesIO(base64.b64decode(uris[0]))).width == MAX_FRAME_WIDTH
    assert 'viewBox="0 0 1920 1080"' in text and 'x2="1800"' in text
    store.close()


def test_a_differential_run_shows_candidate_reference_and_difference_at_every_step(tmp_path):
    """Steps with a reference frame get a third row: candidate | reference | difference, each picture once."""
    from app.engine.trace.difference import DIFF_COLOR

    store = TrajectoryStore(tmp_path / "diff.db")
    run_id = store.create_run(target="calculator", bug="wrong-subtraction", tester="differential")
    blank = Image.new("RGB", (120, 80), (20, 30, 50))
    wrong = blank.copy()
    wrong.paste((240, 240, 240), (30, 20, 60, 40))  # the candidate shows a digit the reference does not
    shas = {name: store.put_image(img) for name, img in (("blank", blank), ("wrong", wrong))}
    for idx, (after, reference) in enumerate((("blank", "blank"), ("wrong", "blank"))):
        store.add_step(run_id, idx, {"action": {"action": "click", "x": 5, "y": 5}, "outcome": "ok",
                                     "frame_before": shas["blank"], "frame_after": shas[after],
                                     "started_at": 1.0 + idx, "ended_at": 1.5 + idx})
        store.set_step_reference(run_id, idx, shas[reference])
    store.add_step(run_id, 2, {"action": {"action": "click", "x": 5, "y": 5}, "outcome": "ok",  # a take-over
                               "frame_before": shas["wrong"], "frame_after": shas["wrong"], "actor": "human",
                               "started_at": 3.0, "ended_at": 3.5})
    store.finish_run(run_id, status="completed", verdict="fail", reason="diverged")
    text = write_html_report(store, run_id, tmp_path / "diff.html").read_text()
    store.close()

    sections = re.split(r'<section class=step id="step-', text)[1:]
    assert len(sections) == 3
    for section in sections[:2]:
        triple = re.search(r"<div class=triple>(.*?)</div>\n", section, re.S)
        assert triple is not None
        assert re.findall(r"<figcaption>([^<]+)</figcaption>", triple.group(1)) == ["candidate", "reference",
                                                                                   "difference"]
    assert "<div class=triple>" not in sections[2]  # the reference did not play a take-over
    # Each difference picture is embedded once: two pairs, two pictures (plus the two frames).
    uris = re.findall(r"\.f(diff\w+|\w{16})\{background-image:url\(\"data:image/png;base64,([A-Za-z0-9+/=]+)",
                      text)
    diffs = {key: Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB") for key, data in uris
             if key.startswith("diff")}
    assert len(uris) == 4 and len(diffs) == 2
    same = diffs[f"diff{shas['blank'][:8]}{shas['blank'][:8]}"]
    assert DIFF_COLOR not in {same.getpixel((x, y)) for x in range(0, 120, 7) for y in range(0, 80, 7)}
    marked = np.array(diffs[f"diff{shas['wrong'][:8]}{shas['blank'][:8]}"])
    red = np.all(marked == DIFF_COLOR, axis=2)
    assert red[20:40, 30:60].all() and red.sum() == 30 * 20  # exactly the differing region
