"""`playcoder rubric check` flags each rubric trap on the tests' own programs, played in Xvfb.

tests/targets/rubric_tk has one sound case and one case per trap; tests/targets/rubric_runner_pg is a
real-time game scripted without the frame gate (its case fails on the program as it is), and clean with it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from app import cli

from suite import TARGETS, needs_xvfb


def check(capsys, folder: Path, *extra: str) -> tuple[int, dict, str]:
    code = cli.main(["rubric", "check", str(folder), "--seeds", "1", "--json", *extra])
    out = capsys.readouterr().out.strip().splitlines()
    return code, json.loads(out[-1]), "\n".join(out[:-1])


def kinds(report: dict) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for f in report["findings"]:
        out.setdefault(f["case"], set()).add(f["kind"])
    return out


@needs_xvfb
@pytest.mark.slow
def test_each_trap_is_flagged_and_the_sound_case_is_not(capsys):
    code, report, lines = check(capsys, TARGETS / "rubric_tk")
    assert code == 1
    found = kinds(report)
    assert 1 not in found, lines                                  # press space, the bar turns red: sound
    assert found[2] == {"trap", "fails"}, lines                   # a 20 % share of black over a text label
    assert {"trap", "weak"} <= found[3], lines                    # "95 % white" holds on a blank window
    assert any("blank window" in f["message"] for f in report["findings"] if f["case"] == 3)
    assert {"trap", "weak"} <= found[4], lines                    # region_changed after a wait: holds without input
    assert any("inputs are not sent" in f["message"] for f in report["findings"] if f["case"] == 4)
    assert {"fails", "order"} <= found[5], lines                  # assumes a fresh start, runs after case 4
    assert len(lines.splitlines()) == len(report["findings"])     # one line per finding
    assert [r["control"] for r in report["runs"]] == ["program", "no input", "each case on a fresh start"]


@needs_xvfb
@pytest.mark.slow
def test_a_real_time_game_fails_without_the_frame_gate_and_is_clean_with_it(capsys, tmp_path):
    code, report, lines = check(capsys, TARGETS / "rubric_runner_pg")
    assert code == 1
    (finding,) = report["findings"]
    assert finding["kind"] == "fails" and "frame_gate = true" in finding["message"], lines
    gated = tmp_path / "runner"
    shutil.copytree(TARGETS / "rubric_runner_pg", gated)
    toml = gated / "playcoder.toml"
    toml.write_text(toml.read_text().replace('keys = ["space"]', 'keys = ["space"]\nframe_gate = true'))
    code, report, lines = check(capsys, gated)
    assert code == 0 and report["findings"] == [], lines


def test_bad_input_ends_in_one_sentence(capsys, tmp_path):
    assert cli.main(["rubric", "check", str(tmp_path / "nowhere")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    (tmp_path / "playcoder.toml").write_text('name = "x"\ncommand = ["python", "main.py"]\n')
    assert cli.main(["rubric", "check", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no [[script]] case" in err and len(err.strip().splitlines()) == 1
    assert cli.main(["rubric", "check", str(TARGETS / "rubric_tk"), "--seeds", "0"]) == 2
    assert "--seeds" in capsys.readouterr().err


@needs_xvfb
def test_a_program_that_does_not_start_is_one_run_finding_per_seed(capsys, tmp_path):
    (tmp_path / "main.py").write_text("raise SystemExit(3)\n")
    (tmp_path / "playcoder.toml").write_text(
        'name = "dead"\ncommand = ["python", "main.py"]\nsize = [100, 100]\nstartup_timeout = 5\n'
        '[[criteria]]\nid = "c"\ntext = "x"\n'
        '[[script]]\ncriterion = "c"\nsteps = [{action = "press", key = "space"}]\n'
        'expect = [{kind = "region_changed"}]\n')
    code, report, lines = check(capsys, tmp_path)
    assert code == 1 and [r["control"] for r in report["runs"]] == ["program"], lines
    (finding,) = report["findings"]
    assert finding["kind"] == "run" and "crash at start" in finding["message"], lines
