"""A page's sound, chances and endless loops: music that starts with the page is no crash, a page that draws
random numbers shows the same picture in every run with the same seed (so a reference matches itself), and a
key handler that never returns is a freeze that keeps the lines it ran."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from suite import ROOT, TARGETS, needs_xvfb

needs_chromium = pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")


def play(target: str, tmp_path, *extra: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(TARGETS / target), "--json", "--db",
                           str(tmp_path / "runs.db"), *extra], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@needs_xvfb
@needs_chromium
def test_music_that_starts_with_the_page_is_no_crash(tmp_path):
    result = play("web_audio", tmp_path, "--max-steps", "4")
    assert result["verdict"] == "pass", result
    assert not [f for f in result["findings"] if f["kind"] == "crash"]
    assert result["coverage"]["lines"] >= 12


@needs_xvfb
@needs_chromium
def test_a_page_that_draws_by_chance_matches_itself_under_differential_play(tmp_path):
    folder = str(TARGETS / "web_chance")
    result = play("web_chance", tmp_path, "--tester", "differential", "--reference", folder, "--no-script",
                  "--max-steps", "6", "--seed", "3")
    assert result["verdict"] == "pass", result
    assert not [f for f in result["findings"] if f["kind"] in ("diverged", "paced")]


@needs_xvfb
@needs_chromium
def test_a_key_handler_that_loops_forever_keeps_the_lines_it_ran(tmp_path):
    result = play("web_keyloop", tmp_path, "--max-steps", "6")
    assert result["verdict"] == "fail" and result["findings"][-1]["kind"] == "freeze", result
    assert result["coverage"] == {"lines": 5, "total": 6}  # all but the line after the endless loop


@needs_xvfb
@needs_chromium
def test_a_script_its_own_server_builds_is_covered_by_its_url_path(tmp_path):
    result = play("web_built", tmp_path, "--max-steps", "6")
    assert result["verdict"] == "pass", result
    assert result["coverage"]["total"] >= 9 and result["coverage"]["lines"] >= 8, result["coverage"]
    assert not (TARGETS / "web_built" / "dist").exists()  # built where the program ran, not in the folder
