"""Rubric traps and saved state are pointed out when a target loads: each warning on an example that has the
trap, none on the same case written well, and a real run that says them once on stderr and keeps them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app import cli
from app.engine.play import scriptlint
from app.engine.play.scriptlint import lint_script, target_warnings
from app.engine.play.targetspec import parse_spec
from app.engine.trace.store import TrajectoryStore

from suite import needs_xvfb


def spec_with(case: dict, folder: Path) -> object:
    data = {"name": "t", "command": ["python", "main.py"], "criteria": [{"id": "c", "text": "t"}],
            "script": [{"criterion": "c", **case}]}
    return parse_spec(data, folder=folder, source=folder, bug=None, where="test")


PRESS_WAIT = [{"action": "press", "key": "space"}, {"action": "wait", "seconds": 0.5}]


def test_region_changed_after_a_wait_compares_two_equal_pictures(tmp_path):
    trap = spec_with({"steps": PRESS_WAIT, "expect": [{"after": 1, "kind": "region_changed"}]}, tmp_path)
    [warning] = lint_script(trap)
    assert "region_changed after step 1, a wait" in warning and "point after at the input" in warning
    good = spec_with({"steps": PRESS_WAIT, "expect": [{"after": 0, "kind": "region_changed", "within": 1}]}, tmp_path)
    assert lint_script(good) == []
    moving = spec_with({"steps": PRESS_WAIT, "expect": [{"after": 1, "kind": "region_changed",
                                                          "note": "the clock runs by itself"}]}, tmp_path)
    assert lint_script(moving) == []  # the author says what changes by itself


def test_a_colour_share_over_a_text_label(tmp_path):
    label = [40, 10, 200, 30]
    trap = spec_with({"steps": PRESS_WAIT, "expect": [
        {"kind": "pixel", "region": label, "colour": "#000000", "min_share": 0.2}]}, tmp_path)
    [warning] = lint_script(trap)
    assert "anti-aliased letters" in warning and 'kind = "text"' in warning
    for fine in ({"min_share": 0.03, "tolerance": 60},  # a few per cent with a wide tolerance: sound for text
                 {"min_share": 0.5},                    # a bar behind the text
                 {"min_share": 0.1, "region": [2, 182, 638, 198]}):  # a row, not a label
        params = {"kind": "pixel", "region": label, "colour": "#000000", **fine}
        assert lint_script(spec_with({"steps": PRESS_WAIT, "expect": [params]}, tmp_path)) == []


def test_a_mostly_white_entry_passes_with_a_word_left(tmp_path):
    entry = [12, 50, 400, 70]
    trap = spec_with({"steps": PRESS_WAIT, "expect": [
        {"kind": "pixel", "region": entry, "colour": "#ffffff", "min_share": 0.95}]}, tmp_path)
    [warning] = lint_script(trap)
    assert "passes with a word left in the box" in warning and "min_share = 0.99" in warning
    strict = spec_with({"steps": PRESS_WAIT, "expect": [
        {"kind": "pixel", "region": entry, "colour": "#ffffff", "min_share": 0.99}]}, tmp_path)
    assert lint_script(strict) == []


def test_saved_state_in_the_folder_is_one_sentence(tmp_path):
    (tmp_path / "main.py").write_text('best = open("best.txt").read()\n\ndef save():\n    open("best.txt", "w").write(best)\n')
    (tmp_path / "board.json").write_text("{}")
    (tmp_path / "best.txt").write_text("12")
    (tmp_path / "notes.txt").write_text("not named by the code")
    [warning] = target_warnings(spec_with({"steps": PRESS_WAIT, "expect": [{"after": 0, "kind": "region_changed"}]},
                                          tmp_path))
    assert "holds saved state (best.txt, board.json)" in warning and "scratch copy" in warning


def test_a_file_a_program_only_reads_is_not_saved_state(tmp_path):
    """A settings file the program needs in order to start is read, never rewritten: no warning on every run."""
    (tmp_path / "main.py").write_text('import json\nsettings = json.load(open("config.json"))\n'
                                      'best = open("best.txt", mode="r").read()\n')
    (tmp_path / "config.json").write_text('{"speed": 3}')
    (tmp_path / "best.txt").write_text("12")
    assert target_warnings(spec_with({"steps": PRESS_WAIT, "expect": [{"after": 0, "kind": "region_changed"}]},
                                     tmp_path)) == []


@needs_xvfb
def test_a_run_says_its_warnings_once_and_keeps_them(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(scriptlint, "_said", set())
    folder = tmp_path / "saver"
    folder.mkdir()
    (folder / "main.py").write_text('import tkinter as tk\nroot = tk.Tk()\nroot.geometry("200x100+0+0")\n'
                                    'tk.Label(root, text="hi").pack()\nroot.mainloop()\n'
                                    'def save():\n    open("scores.json", "w").write("[4]")\n')
    (folder / "scores.json").write_text("[3]")
    (folder / "playcoder.toml").write_text('name = "saver"\ncommand = ["python", "main.py"]\nsize = [200, 100]\n')
    db = tmp_path / "runs.db"
    for _ in range(2):
        assert cli.main(["test", str(folder), "--max-steps", "1", "--film-fps", "0", "--json", "--db", str(db)]) == 0
    err = capsys.readouterr().err
    assert err.count("holds saved state (scores.json)") == 1
    store = TrajectoryStore(db)
    try:
        config = store.run(1)["config"]
        warnings = (json.loads(config) if isinstance(config, str) else config)["warnings"]
    finally:
        store.close()
    assert len(warnings) == 1 and "scores.json" in warnings[0]


def test_the_bundled_rubrics_are_quiet_where_they_are_sound():
    from app.engine.play.targetspec import list_apps, load_spec

    noisy = {p.name for p in list_apps() if target_warnings(load_spec(p))}
    assert noisy <= {"jotter"}, noisy  # jotter's "95 % white" checks are the trap itself


@pytest.fixture(autouse=True)
def _fresh_said(monkeypatch):
    monkeypatch.setattr(scriptlint, "_said", set())
