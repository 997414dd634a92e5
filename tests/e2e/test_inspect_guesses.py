"""`playcoder inspect` writes a toml that plays as written: quit keys left out of `keys`, a quoted --command
path with a space, an entry that is the file run as a script, and each guess saying what it rests on."""

from __future__ import annotations

import json
import tomllib

from app import cli
from app.engine.run.inspection import _spec, guess_command, split_command, starter_toml

from suite import needs_xvfb

QUITTER = '''import tkinter as tk
import helpers
root = tk.Tk()
root.geometry("240x120+0+0")
label = tk.Label(root, text="0")
label.pack()
root.bind("<space>", lambda e: label.config(text=helpers.bump(label.cget("text"))))
root.bind("<Escape>", lambda e: root.destroy())
if __name__ == "__main__":
    root.mainloop()
'''


@needs_xvfb
def test_quit_keys_are_left_out_and_a_quoted_path_with_a_space_starts(tmp_path, capsys):
    folder = tmp_path / "my app"
    folder.mkdir()
    (folder / "my game.py").write_text(QUITTER)
    (folder / "helpers.py").write_text("def bump(text):\n    return str(int(text) + 1)\n")
    assert cli.main(["inspect", str(folder), "--command", "python 'my game.py'", "--json", "--write"]) == 0
    got = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert got["keys"] == ["space"] and got["quit_keys"] == ["escape"]
    toml = tomllib.loads(got["toml"])
    assert toml["command"] == ["python", "my game.py"] and toml["keys"] == ["space"]
    assert "they end the program: escape" in got["toml"]
    assert cli.main(["test", str(folder), "--max-steps", "4", "--film-fps", "0", "--json",
                     "--db", str(tmp_path / "runs.db")]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["steps"] >= 1 and "exit" not in summary["reason"]


def test_the_entry_is_the_file_run_as_a_script_and_the_guess_says_why(tmp_path):
    (tmp_path / "game.py").write_text("class Board:\n    pass\n")
    (tmp_path / "start.py").write_text("import game\nif __name__ == '__main__':\n    print(game.Board())\n")
    assert guess_command(tmp_path) == ["python", "start.py"]
    (tmp_path / "requirements.txt").write_text("# nothing beyond the standard library\n")
    spec = _spec(tmp_path, tmp_path, None)
    assert spec.requirements == "requirements.txt"

    class Found:  # what inspect saw, as starter_toml reads it
        window, keys, quit_keys, exited, saved_state = (200, 100), ["space"], [], None, []

    Found.spec = spec  # type: ignore[attr-defined]
    text = starter_toml(Found(), tmp_path)  # type: ignore[arg-type]
    toml = tomllib.loads(text)
    assert toml["requirements"] == "requirements.txt" and toml["kind"] == "app"
    assert 'the only file with `if __name__ == "__main__"`' in text
    (tmp_path / "sprites").mkdir()
    (tmp_path / "sprites" / "draw.py").write_text("import pygame\n")
    text = starter_toml(Found(), tmp_path)  # type: ignore[arg-type]
    assert tomllib.loads(text)["kind"] == "game" and "sprites/draw.py imports a game library" in text


def test_a_command_with_open_quotes_is_one_sentence():
    import pytest

    from app.engine.errors import TargetError

    with pytest.raises(TargetError, match="close its quotes"):
        split_command("python 'my game.py")
