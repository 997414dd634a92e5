"""Differential play learns noise only from the references: what the candidate changes by itself, where the
reference stands still, is a difference to report, never something to mask."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from suite import ROOT, needs_xvfb

PROGRAM = '''import itertools, tkinter as tk
root = tk.Tk()
root.title("Score")
root.geometry("240x120+0+0")
label = tk.Label(root, text="Score : 0", font=("DejaVu Sans", 16))
label.pack(pady=10)
count = itertools.count(1)
tk.Button(root, text="Go", command=lambda: None).pack()
TICKING = {ticking}
started = []
def tick():
    label.config(text=f"Score : {{next(count) % 7 + 1}}")
    root.after(150, tick)
def start(event):  # the candidate's space starts a counter that never stops; the reference's does nothing
    if TICKING and not started:
        started.append(1)
        tick()
root.bind("<space>", start)
root.mainloop()
'''
TOML = 'name = "{name}"\nkind = "app"\ncommand = ["python", "main.py"]\nsize = [240, 120]\nkeys = ["space"]\n'


def _program(folder: Path, ticking: bool) -> Path:
    folder.mkdir()
    (folder / "main.py").write_text(PROGRAM.format(ticking=ticking))
    (folder / "playcoder.toml").write_text(TOML.format(name=folder.name))
    return folder


@needs_xvfb
def test_what_only_the_candidate_changes_by_itself_is_reported(tmp_path: Path) -> None:
    reference = _program(tmp_path / "steady", ticking=False)
    candidate = _program(tmp_path / "ticking", ticking=True)
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(candidate), "--reference", str(reference),
                           "--tester", "differential", "--max-steps", "6", "--json", "--film-fps", "0",
                           "--db", str(tmp_path / "runs.db")], capture_output=True, text=True, timeout=300, cwd=ROOT)
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert proc.returncode == 0, proc.stderr
    assert summary["verdict"] == "fail", summary
    diverged = [f for f in summary["findings"] if f["kind"] == "diverged"]
    assert diverged and diverged[0]["step"] is not None, summary  # a step's screens differed, not only the start
