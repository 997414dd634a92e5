"""Differential play: an exception the reference prints too, at the same inputs, is shared, not the candidate's
failure (a to-do program's own IndexError made every differential run of an identical copy fail)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from suite import ROOT, needs_xvfb

TARGET = ROOT / "tests" / "targets" / "shared_exc_tk"


def play(candidate: Path, db: Path) -> dict:
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(candidate), "--reference", str(TARGET),
                           "--tester", "differential", "--max-steps", "6", "--json", "--db", str(db)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@needs_xvfb
def test_an_identical_copy_that_prints_the_references_exception_passes(tmp_path, db_path):
    # 'd' pops from an empty list: Tk prints an IndexError and the program goes on, in all three runs.
    copy = tmp_path / "copy"
    shutil.copytree(TARGET, copy)
    summary = play(copy, db_path)
    assert [f["kind"] for f in summary["findings"]] == ["exception"], summary
    assert summary["verdict"] == "pass", summary
    assert "the reference shows too after the same inputs (shared" in summary["reason"]


@needs_xvfb
def test_an_exception_only_the_candidate_prints_still_fails(tmp_path, db_path):
    candidate = tmp_path / "candidate"
    shutil.copytree(TARGET, candidate)
    main = candidate / "main.py"
    main.write_text(main.read_text().replace("    items.pop(0)  #", "    {}['missing']  #"))
    summary = play(candidate, db_path)
    assert summary["verdict"] == "fail", summary
    assert "KeyError" in summary["reason"], summary


@needs_xvfb
def test_inputs_the_reference_does_not_answer_either_are_a_shared_no_response(tmp_path, db_path):
    # A finished game: nothing answers any more, in the reference as in the copy (every freegames
    # reference failed against itself with no-response once its round was over).
    still = tmp_path / "still"
    still.mkdir()
    (still / "main.py").write_text("import tkinter as tk\nroot = tk.Tk()\nroot.geometry('300x200')\n"
                                   "tk.Label(root, text='GAME OVER', font=('DejaVu Sans', 20)).pack(pady=70)\n"
                                   "root.mainloop()\n")
    (still / "playcoder.toml").write_text('name = "still"\ncommand = ["python", "main.py"]\nsize = [300, 200]\n'
                                          'keys = ["space", "left"]\n')
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(still), "--reference", str(still),
                           "--tester", "differential", "--max-steps", "20", "--json", "--db", str(db_path)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert [f["kind"] for f in summary["findings"]] == ["no-response"], summary
    assert summary["verdict"] == "pass", summary
    assert "(shared, not the candidate's): no-response" in summary["reason"]
