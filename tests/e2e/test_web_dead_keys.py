"""A page whose key handler stops answering is ``no-response``, though the offline explorer restarts it to
return to earlier states (each fresh page answers a few keys again) — and the same page whose keys keep
answering passes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from suite import ROOT, TARGETS, needs_xvfb

needs_chromium = pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")


def offline(folder, tmp_path) -> dict:
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(folder), "--max-steps", "40", "--seed", "1",
                           "--json", "--db", str(tmp_path / "r.db")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@needs_xvfb
@needs_chromium
def test_a_key_handler_that_stops_answering_is_no_response(tmp_path):
    result = offline(TARGETS / "web_deadkeys", tmp_path)
    kinds = [f["kind"] for f in result["findings"]]
    assert result["verdict"] == "fail", result
    assert "no-response" in kinds, kinds
    restarts = kinds.index("no-response")
    assert "restart" in kinds[:restarts]  # the silence was seen across the tester's restarts


@needs_xvfb
@needs_chromium
def test_the_same_page_whose_keys_keep_answering_passes(tmp_path):
    folder = tmp_path / "livekeys"
    shutil.copytree(TARGETS / "web_deadkeys", folder)
    js = folder / "keys.js"
    js.write_text(js.read_text().replace("if (presses > 3) { return; }", ""))
    result = offline(folder, tmp_path)
    assert not [f for f in result["findings"] if f["kind"] == "no-response"], result["findings"]
    assert result["verdict"] == "pass", result
