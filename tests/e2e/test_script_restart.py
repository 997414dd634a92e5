"""[[script]] cases run one after another in one run; ``restart = true`` starts a case on a fresh program."""

from __future__ import annotations

import json
from pathlib import Path

from app import cli

from suite import needs_xvfb

pytestmark = needs_xvfb

BAR = '''import tkinter as tk
root = tk.Tk()
root.geometry("200x60+0+0")
canvas = tk.Canvas(root, width=200, height=60, bg="#ffffff", highlightthickness=0)
canvas.pack()
count = [0]
def more(event):
    count[0] += 1
    canvas.create_rectangle(0, 0, 20 * count[0], 60, fill="#ff0000", outline="")
root.bind("<space>", more)
root.mainloop()
'''
CASES = '''
[[script]]
criterion = "grows"
steps = [{action = "press", key = "space"}, {action = "press", key = "space"}]
expect = [{kind = "pixel", at = [30, 30], colour = "#ff0000"}]

[[script]]
criterion = "fresh"
%s
steps = [{action = "press", key = "space"}]
expect = [{kind = "pixel", at = [30, 30], colour = "#ffffff"}, {kind = "pixel", at = [10, 30], colour = "#ff0000"}]
'''


def verdict(tmp_path: Path, capsys, restart: bool) -> dict:
    folder = tmp_path / ("restart" if restart else "one-run")
    folder.mkdir()
    (folder / "main.py").write_text(BAR)
    (folder / "playcoder.toml").write_text(
        'name = "bar"\ncommand = ["python", "main.py"]\nsize = [200, 60]\n'
        '[[criteria]]\nid = "grows"\ntext = "space grows the bar"\n'
        '[[criteria]]\nid = "fresh"\ntext = "a fresh start has an empty bar"\n'
        + CASES % ("restart = true" if restart else ""))
    cli.main(["test", str(folder), "--tester", "script", "--film-fps", "0", "--json", "--db", str(tmp_path / "r.db")])
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_cases_share_one_run_unless_a_case_restarts(tmp_path, capsys):
    shared = verdict(tmp_path, capsys, restart=False)
    assert shared["verdict"] == "fail" and "fresh" in shared["reason"]  # the bar kept growing from case 1
    fresh = verdict(tmp_path, capsys, restart=True)
    assert fresh["verdict"] == "pass", fresh["reason"]
