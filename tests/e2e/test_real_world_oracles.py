"""Generic oracles on programs written the ordinary way, each a real program under a private Xvfb.

The programs in tests/targets/ use toolkit defaults — a menu that reads
``mouse.get_pressed()``, an Entry with a blinking caret, buttons that light up
under the pointer, a scene built in 160 ms, a game over that sleeps and quits,
a save file — and nothing in them is arranged for the tester.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine.errors import TargetError
from app.engine.play.targetspec import Timing, load_spec
from app.engine.trace.store import TrajectoryStore

from suite import ROOT, TARGETS, needs_xvfb


def run_cli(target: Path | str, *args: str, db: Path, timeout: float = 240) -> tuple[int, dict, str]:
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(target), *args, "--json", "--db", str(db)],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    summary = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else {}
    return proc.returncode, summary, proc.stderr


def variant(tmp_path: Path, name: str, *, drop: str = "", add: str = "") -> Path:
    """A copy of a test target with its playcoder.toml edited."""
    folder = tmp_path / name
    shutil.copytree(TARGETS / name, folder)
    spec = folder / "playcoder.toml"
    text = spec.read_text()
    if drop:
        assert drop in text
        text = text.replace(drop, "")
    spec.write_text(text + add)
    return folder


def kinds(summary: dict) -> list[str]:
    return [f["kind"] for f in summary["findings"]]


# -- playcoder.toml: [timing] and exit_ok are validated ------------------------------------------------------
def test_timing_and_exit_ok_are_read_and_validated(tmp_path):
    folder = variant(tmp_path, "slow_tk", add='exit_ok = true\n[timing]\nreact_ms = 500\nfreeze_s = 8\n')
    spec = load_spec(folder)
    assert spec.exit_ok is True
    assert spec.timing.react_ms == 500 and spec.timing.freeze_s == 8.0
    assert spec.timing.quiet_ms == Timing().quiet_ms
    for i, (bad, words) in enumerate((('[timing]\nreact_ms = -1\n', "timing.react_ms"),
                                      ('[timing]\nfrozen = 1\n', "unknown timing"), ('exit_ok = "yes"\n', "exit_ok"))):
        folder = variant(tmp_path / f"bad{i}", "slow_tk", add=bad)
        with pytest.raises(TargetError, match=words):
            load_spec(folder)


# -- the mechanisms, each on a real program -------------------------------------------------------------------
@needs_xvfb
def test_a_held_click_reaches_a_menu_that_reads_get_pressed(db_path):
    code, summary, err = run_cli(TARGETS / "menu_pg", "--max-steps", "10", db=db_path)
    assert code == 0, err
    assert summary["verdict"] == "pass", summary
    assert summary["window"] == [360, 300]
    steps = TrajectoryStore(db_path).steps(summary["run_id"])
    on_button = [s for s in steps if s["action"]["action"] == "click"
                 and 100 <= s["action"]["x"] < 260 and 120 <= s["action"]["y"] < 180]
    assert on_button, "the explorer never clicked the START button"
    # the whole scene changes colour when the click lands (a loaded machine may drop a frame now and then)
    landed = [s for s in on_button if s["changed_bbox"] == [0, 0, 360, 300]]
    assert len(landed) * 2 > len(on_button), [s["changed_bbox"] for s in on_button]


@needs_xvfb
def test_dead_keys_behind_a_blinking_caret_are_no_response(db_path):
    code, summary, err = run_cli(TARGETS / "caret_tk", "--max-steps", "30", db=db_path)
    assert code == 0, err
    assert summary["verdict"] == "fail", summary
    assert kinds(summary) == ["no-response"], summary


@needs_xvfb
def test_a_live_entry_with_a_blinking_caret_passes(tmp_path, db_path):
    folder = variant(tmp_path, "caret_tk", drop=', "--dead"')
    code, summary, err = run_cli(folder, "--max-steps", "25", db=db_path)
    assert code == 0, err
    assert summary["verdict"] == "pass", summary


@needs_xvfb
def test_one_dead_declared_key_among_live_ones_is_no_response(tmp_path, db_path):
    dead = variant(tmp_path, "listentry_tk")
    spec = dead / "playcoder.toml"
    spec.write_text(spec.read_text().replace('"main.py"]', '"main.py", "--dead-enter"]'))
    code, summary, err = run_cli(dead, "--max-steps", "40", db=db_path)
    assert code == 0, err
    assert kinds(summary) == ["no-response"], summary
    assert 'press("enter")' in summary["findings"][0]["message"], summary
    code, summary, err = run_cli(TARGETS / "listentry_tk", "--max-steps", "40", db=db_path)
    assert code == 0, err
    assert summary["verdict"] == "pass", summary


@needs_xvfb
def test_a_hover_highlight_is_not_an_answer(db_path):
    code, summary, err = run_cli(TARGETS / "hover_tk", "--max-steps", "30", db=db_path)
    assert code == 0, err
    assert kinds(summary) == ["no-response"], summary


@needs_xvfb
def test_a_slow_scene_change_is_seen_at_the_step_that_caused_it(db_path):
    code, summary, err = run_cli(TARGETS / "slow_tk", "--max-steps", "12", db=db_path)
    assert code == 0, err
    assert summary["verdict"] == "pass", summary
    steps = TrajectoryStore(db_path).steps(summary["run_id"])
    causes = [s for s in steps if s["action"]["action"] == "press" or
              (s["action"]["action"] == "click" and 80 <= s["action"]["y"] < 110)]
    assert causes
    # the label "scene N" (y 28..46) changes at the step of the key or click that asked for it
    seen = [s for s in causes if s["changed_bbox"] and s["changed_bbox"][1] < 50 and s["changed_bbox"][3] <= 50]
    assert len(seen) >= len(causes) // 2, [(s["action"], s["changed_bbox"]) for s in causes]


@needs_xvfb
def test_an_undeclared_end_is_one_exit_finding_not_a_freeze(db_path):
    code, summary, err = run_cli(TARGETS / "gameover_pg", "--max-steps", "30", db=db_path)
    assert code == 0, err
    assert summary["verdict"] == "fail"
    assert kinds(summary) == ["exit"], summary
    assert "exit_ok = true" in summary["findings"][0]["message"]


@needs_xvfb
def test_a_declared_end_restarts_the_program_and_passes(tmp_path, db_path):
    folder = variant(tmp_path, "gameover_pg", add="exit_ok = true\n")
    code, summary, err = run_cli(folder, "--max-steps", "16", db=db_path)
    assert code == 0, err
    assert summary["verdict"] == "pass", summary
    assert summary["episodes"] >= 2
    assert set(kinds(summary)) == {"episode"}
    store = TrajectoryStore(db_path)
    assert store.step_count(summary["run_id"]) == 16
    assert json.loads(store.run(summary["run_id"])["config"])["exit_ok"] is True


@needs_xvfb
def test_the_users_folder_is_never_changed_unless_asked(tmp_path, db_path):
    folder = variant(tmp_path, "save_tk")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    code, summary, err = run_cli(folder, "--max-steps", "6", db=db_path)
    assert code == 0, err
    assert summary["verdict"] == "pass", summary
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    steps = TrajectoryStore(db_path).steps(summary["run_id"])
    assert any(s["changed_bbox"] for s in steps)  # the counter went up, and saved — in the copy


@needs_xvfb
def test_a_window_too_large_for_its_screen_even_grown_is_one_clear_sentence(tmp_path, db_path):
    folder = variant(tmp_path, "slow_tk")
    (folder / "playcoder.toml").write_text((folder / "playcoder.toml").read_text().replace("[300, 200]", "[100, 60]"))
    code, summary, err = run_cli(folder, "--max-steps", "3", db=db_path)
    assert code == 2
    assert summary["status"] == "error"
    assert "does not fit its 100×60 screen even grown" in summary["error"]
    assert "set size = [300, 200]" in summary["error"]
    assert "Traceback" not in err


@needs_xvfb
@pytest.mark.parametrize("declared, place", [("[300, 200]", "+40+0"), ("[200, 150]", "+0+0")],
                         ids=["placed-near-the-edge", "larger-than-declared"])
def test_a_window_past_its_screens_edge_gets_the_screen_grown(tmp_path, db_path, declared, place):
    folder = variant(tmp_path, "slow_tk")
    spec = folder / "playcoder.toml"
    spec.write_text(spec.read_text().replace("[300, 200]", declared))
    main = folder / "main.py"
    main.write_text(main.read_text().replace('"300x200+0+0"', f'"300x200{place}"'))
    code, summary, err = run_cli(folder, "--max-steps", "3", db=db_path)
    assert code == 0, err
    assert summary["status"] != "error", summary
    run = TrajectoryStore(db_path).run(summary["run_id"])
    assert (run["window_width"], run["window_height"]) == (300, 200)
    steps = TrajectoryStore(db_path).steps(summary["run_id"])
    assert steps and steps[-1]["frame_after"]  # captured whole on the grown screen
