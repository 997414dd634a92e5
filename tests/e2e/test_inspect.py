"""`playcoder inspect`: a real Tk and a real pygame program on a private Xvfb — the window's real size, the
controls with their texts, the keys the code reads, saved state, and a starter toml that `playcoder test` plays."""

from __future__ import annotations

import json
import shutil
import tomllib

from app import cli
from app.engine.play.targetspec import load_spec

from suite import APPS, TARGETS, needs_xvfb

pytestmark = needs_xvfb

SAVER = '''import json, os, tkinter as tk
BEST = "highscore.txt"
best = open(BEST).read() if os.path.exists(BEST) else "0"
json.dump({"runs": 1}, open("progress.json", "w"))
root = tk.Tk()
root.geometry("300x200+0+0")
tk.Label(root, text="Best " + best).pack()
tk.Button(root, text="Play", command=root.destroy).pack()
root.bind("<space>", lambda e: None)
root.mainloop()
'''


def inspected(capsys, *args: str) -> dict:
    assert cli.main(["inspect", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_a_tk_program_its_size_controls_keys_and_saved_state(tmp_path, capsys):
    folder = tmp_path / "saver"
    folder.mkdir()
    (folder / "main.py").write_text(SAVER)
    (folder / "highscore.txt").write_text("12")
    before = sorted(p.name for p in folder.iterdir())
    got = inspected(capsys, str(folder), "--write")
    assert got["window"] == [300, 200]
    texts = [w["text"] for w in got["widgets"]]
    assert "Play" in texts and "Best 12" in texts
    assert all(len(w["box"]) == 4 for w in got["widgets"])
    assert got["keys"] == ["space"]
    assert got["saved_state"] == ["highscore.txt", "progress.json"]  # named in code / written while it ran
    assert sorted(p.name for p in folder.iterdir()) == sorted([*before, "playcoder.toml"])  # only the toml
    assert not (folder / "progress.json").exists()
    spec = load_spec(folder)
    assert spec.size == (300, 200) and spec.keys == ("space",) and spec.command == ("python", "main.py")


def test_the_calculator_controls_come_with_their_texts(capsys):
    got = inspected(capsys, str(TARGETS / "calc_tk"))
    texts = {w["text"] for w in got["widgets"]}
    assert set("0123456789+-*/=C") <= texts  # every button of the 17 with its label
    w, h = got["window"]
    assert all(0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h for x0, y0, x1, y1 in (b["box"] for b in got["widgets"]))
    assert tomllib.loads(got["toml"])["size"] == got["window"]


def test_a_pygame_game_its_keys_and_a_toml_that_plays(tmp_path, capsys):
    folder = tmp_path / "snake"
    folder.mkdir()
    for name in ("main.py", "snake_logic.py"):
        shutil.copy(APPS / "snake" / name, folder / name)
    got = inspected(capsys, str(folder), "--write")
    assert got["window"] == [400, 440]
    assert {"up", "down", "left", "right"} <= set(got["keys"])
    assert tomllib.loads(got["toml"])["kind"] == "game"
    written = (folder / "playcoder.toml").read_text()
    assert written == got["toml"]
    assert cli.main(["test", str(folder), "--max-steps", "3", "--film-fps", "0", "--json",
                     "--db", str(tmp_path / "runs.db")]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["window"] == [400, 440] and summary["steps"] >= 1


def test_write_never_replaces_an_existing_toml(tmp_path, capsys):
    folder = tmp_path / "snake"
    shutil.copytree(APPS / "snake", folder)
    mine = (folder / "playcoder.toml").read_text()
    assert cli.main(["inspect", str(folder), "--write"]) == 0
    assert "exists already; left as it is" in capsys.readouterr().out
    assert (folder / "playcoder.toml").read_text() == mine


def test_a_declared_key_the_code_never_reads_is_noted(tmp_path, capsys):
    """A rubric trap of wrapping an outside program: a key in ``keys`` the program does not answer is held to
    answering (a dead key is a no-response).  Keys a text field reads by itself are not noted."""
    folder = tmp_path / "snake"
    shutil.copytree(APPS / "snake", folder)
    toml = folder / "playcoder.toml"
    toml.write_text(toml.read_text().replace("keys = [", 'keys = ["escape", ', 1))
    assert cli.main(["inspect", str(folder), "--json"]) == 0
    found = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert len(found["notes"]) == 1 and "declares escape, which the program's code was not seen reading" \
        in found["notes"][0]
    from app.engine.run.inspection import unread_keys
    from app.engine.testers.explore.keys_from_code import ReadInputs
    assert unread_keys(["a", "enter", "f1"], ReadInputs(keys=["F1"], text=True)) == []
    assert unread_keys(["space"], ReadInputs()) == []  # no key seen at all: nothing can be said


def test_a_program_that_is_not_python_gets_its_controls_from_the_x_tree(tmp_path, capsys):
    folder = tmp_path / "tcl"
    folder.mkdir()
    (folder / "main.tcl").write_text('wm geometry . 260x120+0+0\nbutton .b -text "Start" -font {Helvetica 14}\n'
                                     'label .l -text "Ready" -font {Helvetica 14}\npack .b .l -pady 10\n')
    if shutil.which("wish") is None:
        return  # Tk's own shell is not installed: nothing to play
    got = inspected(capsys, str(folder), "--command", "wish main.tcl")
    assert got["window"] == [260, 120] and got["widget_source"] == "x"
    assert len(got["widgets"]) == 2
    if shutil.which("tesseract"):
        assert [w["text"] for w in got["widgets"]] == ["Start", "Ready"]


def test_a_qt_program_its_controls_from_inside(capsys):
    got = inspected(capsys, str(TARGETS / "inside_qt"))
    assert got["widget_source"] == "inside" and got["window"] == [320, 240]
    kinds = {(w["kind"], w["text"]) for w in got["widgets"]}
    assert ("button", "Press") in kinds and ("label", "ready") in kinds
    assert "ctrl+n" in got["keys"]
