"""Web pages played end to end through the CLI: Chromium in the sandbox, X input, inside knowledge from the
DevTools protocol (crash with script and line, freeze from inside, coverage of the page's own scripts)."""

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
def test_a_counter_page_plays_with_the_offline_tester(tmp_path):
    result = play("web_counter", tmp_path, "--max-steps", "15")
    assert result["verdict"] == "pass", result
    assert result["window"] == [639, 479]
    assert result["coverage"]["total"] >= 6 and result["coverage"]["lines"] >= 6


@needs_xvfb
@needs_chromium
def test_an_uncaught_exception_is_a_crash_naming_its_script_and_line(tmp_path):
    result = play("web_crash", tmp_path, "--max-steps", "6")
    assert result["verdict"] == "fail"
    crashes = [f for f in result["findings"] if f["kind"] == "crash"]
    assert crashes and "app.js:5" in crashes[0]["message"] and "TypeError" in crashes[0]["message"]


@needs_xvfb
@needs_chromium
def test_a_spinning_main_thread_is_a_freeze_known_from_inside(tmp_path):
    result = play("web_freeze", tmp_path, "--max-steps", "6")
    assert result["verdict"] == "fail"
    assert result["findings"][-1]["kind"] == "freeze"
    assert "asked from inside" in result["findings"][-1]["message"]


@needs_xvfb
@needs_chromium
def test_a_page_on_a_server_of_its_own_plays_once_its_url_answers(tmp_path):
    result = play("web_server", tmp_path, "--max-steps", "6")
    assert result["verdict"] == "pass", result
    assert result["coverage"]["lines"] >= 6


@needs_xvfb
@needs_chromium
def test_inspect_lists_a_pages_controls_and_writes_a_toml_that_plays(tmp_path):
    folder = tmp_path / "counter"
    folder.mkdir()
    for name in ("index.html", "counter.js"):
        shutil.copy(TARGETS / "web_counter" / name, folder / name)
    proc = subprocess.run([sys.executable, "-m", "app", "inspect", str(folder), "--json", "--write"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    found = json.loads(proc.stdout[proc.stdout.index("{"):])
    assert found["widget_source"] == "inside"
    assert {(w["kind"], w["text"]) for w in found["widgets"]} == {("button", "Add one"), ("button", "Reset")}
    assert 'web = "index.html"' in found["toml"] and {"up", "r"} <= set(found["keys"])
    played = subprocess.run([sys.executable, "-m", "app", "test", str(folder), "--json", "--max-steps", "5", "--db",
                             str(tmp_path / "runs.db")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert json.loads(played.stdout.strip().splitlines()[-1])["verdict"] == "pass", played.stderr
