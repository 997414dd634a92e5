"""A correct Tk to-do list whose Return adds only non-empty text (its entry has no focus at start) and whose
Delete needs a selected row is not called dead by the offline tester: its keys are judged where they matter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from suite import ROOT, needs_xvfb

TODO = '''import tkinter as tk
root = tk.Tk()
root.title("Todo")
root.geometry("320x260+0+0")
entry = tk.Entry(root)
entry.pack(fill="x", padx=6, pady=6)
rows = tk.Listbox(root)
rows.pack(fill="both", expand=True, padx=6)
count = tk.Label(root, text="0 tasks")
count.pack()
def add(event=None):
    text = entry.get().strip()
    if text:
        rows.insert("end", text)
        entry.delete(0, "end")
        count.config(text=f"{rows.size()} tasks")
def remove(event=None):
    for index in reversed(rows.curselection()):
        rows.delete(index)
    count.config(text=f"{rows.size()} tasks")
entry.bind("<Return>", add)
rows.bind("<Delete>", remove)
root.mainloop()
'''
TOML = '''name = "todo"
kind = "app"
command = ["python", "main.py"]
size = [320, 260]
keys = ["enter", "delete"]
'''


@needs_xvfb
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_keys_that_answer_only_in_some_states_are_not_dead(tmp_path: Path, seed: int) -> None:
    folder = tmp_path / "todo"
    folder.mkdir()
    (folder / "main.py").write_text(TODO)
    (folder / "playcoder.toml").write_text(TOML)
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(folder), "--max-steps", "40", "--seed", str(seed),
                           "--json", "--film-fps", "0", "--db", str(tmp_path / "runs.db")],
                          capture_output=True, text=True, timeout=400, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["verdict"] == "pass", summary
