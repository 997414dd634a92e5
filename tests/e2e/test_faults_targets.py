"""Hostile targets that aim at the engine rather than the machine (the sandbox suite covers escapes).

A window that grows past its screen (a little: the screen follows it; far: one sentence), output floods of binary junk with
megabyte lines and no newline, a program that stops itself: each run ends
with a sentence or a verdict, leaves no process behind, and records
something that exports and imports again.  The targets are written by the test.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine.trace.store import MAX_LOG_LINE_CHARS, TrajectoryStore

ROOT = Path(__file__).resolve().parents[2]
HARNESS = str(ROOT / "tests" / "fault_harness.py")
pytestmark = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb is not installed")

TOML = ('name = "{name}"\nkind = "app"\ncommand = ["python", "main.py"]\nsize = [400, 300]\n'
        '[window]\ntitle = "{title}"\n')
GROWS = '''
import tkinter as tk
root = tk.Tk(); root.title("Grower"); root.geometry("300x200+0+0")
tk.Button(root, text="grow").pack(fill="both", expand=True)
root.after(1500, lambda: root.geometry("1500x1200+0+0"))
root.mainloop()
'''
FLOODS = '''
import os, threading, time, tkinter as tk
def flood():
    junk = bytes(range(256)) * 40
    for i in range(300):
        os.write(1, b"\\x00\\xff\\xfe line " + str(i).encode() + b" " + junk + b"\\n")
        os.write(2, b"x" * 100000)  # megabytes, and never a newline
        time.sleep(0.005)
threading.Thread(target=flood, daemon=True).start()
root = tk.Tk(); root.title("Flood"); root.geometry("300x200+0+0")
tk.Button(root, text="ok").pack(fill="both", expand=True)
root.mainloop()
'''
STOPS = '''
import os, signal, tkinter as tk
root = tk.Tk(); root.title("Stopper"); root.geometry("300x200+0+0")
tk.Button(root, text="ok").pack(fill="both", expand=True)
root.after(1000, lambda: os.kill(os.getpid(), signal.SIGSTOP))
root.mainloop()
'''


def target(tmp: Path, name: str, title: str, source: str) -> Path:
    folder = tmp / name
    folder.mkdir()
    (folder / "main.py").write_text(source)
    (folder / "playcoder.toml").write_text(TOML.format(name=name, title=title))
    return folder


def play(folder: Path, db: Path, steps: int) -> dict[str, object]:
    out = subprocess.run([sys.executable, HARNESS, "--signal", "NONE", "--timeout", "150", "--", sys.executable,
                          "-m", "app", "test", str(folder), "--max-steps", str(steps), "--db", str(db)], cwd=ROOT,
                         capture_output=True, text=True, timeout=180)
    report = dict(json.loads(out.stdout.strip().splitlines()[-1]))
    assert not report["traceback"] and report["orphans"] == [], report
    assert "internal error" not in str(report["stderr"]) + str(report["stdout"])
    return report


def test_a_window_that_grows_past_its_screen_is_one_sentence(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    report = play(target(tmp_path, "grower", "Grower", GROWS), db, 10)
    assert report["code"] == 2
    (line,) = report["stderr_lines"]  # type: ignore[misc]
    assert "beyond its 400×300 screen" in line and "set size = [1500, 1200]" in line, line
    store = TrajectoryStore(db, readonly=True)
    assert [r["status"] for r in store.runs()] == ["error"]
    store.close()


def test_a_window_that_grows_a_little_gets_its_screen_grown(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    report = play(ROOT / "tests" / "targets" / "outgrow_tk", db, 6)
    assert report["code"] == 0, report
    store = TrajectoryStore(db, readonly=True)
    (run,) = store.runs()
    notes = [f["message"] for f in store.findings(run["id"]) if f["kind"] == "screen"]
    store.close()
    assert run["status"] == "completed" and run["verdict"] == "pass", run
    assert notes == ["the program's window grew to 352×260 at (0, 0), past its 320×240 screen; the screen grew to "
                     "352×260 to follow it"], notes


def test_differential_play_grows_every_screen_a_window_outgrows(tmp_path: Path) -> None:
    """The candidate's, both references' and the paced check's windows grow past their screens alike."""
    folder = str(ROOT / "tests" / "targets" / "outgrow_tk")
    out = subprocess.run([sys.executable, "-m", "app", "test", folder, "--tester", "differential", "--reference",
                          folder, "--max-steps", "4", "--json", "--db", str(tmp_path / "runs.db")], cwd=ROOT,
                         capture_output=True, text=True, timeout=180)
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["verdict"] == "pass" and "could not be made" not in summary["reason"], summary


def test_an_output_flood_is_recorded_bounded_and_travels(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    report = play(target(tmp_path, "flood", "Flood", FLOODS), db, 4)
    assert report["code"] == 0, report
    store = TrajectoryStore(db, readonly=True)
    (run,) = store.runs()
    longest = store.conn.execute("SELECT max(length(text)) FROM target_logs").fetchone()[0]
    assert run["status"] == "completed" and MAX_LOG_LINE_CHARS < longest < MAX_LOG_LINE_CHARS + 100
    store.close()
    bundle = tmp_path / "flood.zip"
    for args in (["export", str(run["id"]), "-o", str(bundle), "--db", str(db)],
                 ["import", str(bundle), "--db", str(tmp_path / "other.db")]):
        out = subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0, out.stderr


def test_a_program_that_stops_itself_is_judged_not_waited_for(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    report = play(target(tmp_path, "stopper", "Stopper", STOPS), db, 4)
    assert report["code"] == 0 and "freeze" in str(report["stdout"]), report
