"""`playcoder repair` says "fixed" only for a patch that holds on three seeds: a patch that hides a crash on
the re-test's seed only is "crash suppressed", reverted, and the loop goes on to a real fix.

The program is the tests' own: a Tk tile whose renderer looks up a colour it does not have once the tile
shows two digits (no benchmark bug is pinned).  The patches come from the LLM refiner, answered by a local
server speaking the OpenAI protocol: first one that hides the crash on seed 0 only, then a real fix."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine.repair.records import cycles, repair_sessions
from app.engine.repair.report import write_repair_report
from app.engine.trace.store import TrajectoryStore

from llm_servers import OpenAIServer, Recorded, Reply
from suite import ROOT, needs_xvfb

pytestmark = needs_xvfb

TILE = '''import os
import tkinter as tk

COLORS = {"tile_small": "#eee4da"}
root = tk.Tk()
root.title("Tile")
root.geometry("200x120")
label = tk.Label(root, text="2", bg=COLORS["tile_small"], font=("TkDefaultFont", 20))
label.pack(expand=True, fill="both")


def render(value):
    name = "tile_small" if value < 10 else "tile_medium"
    label.config(text=str(value), bg=COLORS[name])


def tick():
    render(VALUE)
    root.after(300, tick)


VALUE = 16
root.after(200, tick)
root.mainloop()
'''
HIDES_ON_SEED_0 = ('main.py\n<<<<<<< SEARCH\nVALUE = 16\n=======\n'
                   'VALUE = 8 if os.environ.get("PLAYCODER_SEED") == "0" else 16\n>>>>>>> REPLACE\n')
REAL_FIX = ('main.py\n<<<<<<< SEARCH\nCOLORS = {"tile_small": "#eee4da"}\n=======\n'
            'COLORS = {"tile_small": "#eee4da", "tile_medium": "#f2b179"}\n>>>>>>> REPLACE\n')


@pytest.fixture
def tile(tmp_path: Path) -> Path:
    root = tmp_path / "tile"
    root.mkdir()
    (root / "main.py").write_text(TILE)
    (root / "playcoder.toml").write_text('name = "tile"\nkind = "app"\ncommand = ["python", "main.py"]\n'
                                         'size = [200, 120]\ngoal = "Shows a tile"\n[window]\ntitle = "Tile"\n')
    return root


def repair(tile: Path, tmp_path: Path, iterations: int) -> tuple[int, dict, str]:
    patches = [HIDES_ON_SEED_0, REAL_FIX]

    def respond(rec: Recorded) -> Reply:
        if "Now write the patch" in rec.prompt():
            return Reply(patches.pop(0))
        return Reply("render() looks up COLORS['tile_medium'], which is missing, once the tile shows 16.")

    with OpenAIServer() as server:
        server.responder = respond
        proc = subprocess.run(
            [sys.executable, "-m", "app", "repair", str(tile), "--refiner", "llm", "--provider", "compatible",
             "--model", "fixer", "--base-url", server.base_url, "--max-iterations", str(iterations),
             "--max-steps", "6", "--json", "--db", str(tmp_path / "r.db"), "--out", str(tmp_path / "out")],
            capture_output=True, text=True, timeout=400, cwd=ROOT)
    lines = proc.stdout.strip().splitlines()
    return proc.returncode, (json.loads(lines[-1]) if lines else {}), proc.stderr


def test_a_patch_that_hides_a_crash_on_one_seed_is_crash_suppressed_then_a_real_fix_is_fixed(tile, tmp_path):
    code, summary, err = repair(tile, tmp_path, 2)
    its = summary.get("iterations", [])
    assert [i["outcome"] for i in its] == ["crash suppressed", "fixed"], (summary, err[-2000:])
    assert "offline on seed 1" in its[0]["error"] and "hidden on the re-test's seed only" in its[0]["error"]
    assert code == 0 and summary["fixed"] is True and summary["outcome"] == "fixed"
    assert "passes offline on seeds 0, 1, 2" in summary["reason"]
    assert "tile_medium" in (tmp_path / "out" / "main.py").read_text()


def test_a_repair_that_only_hid_the_crash_ends_crash_suppressed_in_the_json_and_the_report(tile, tmp_path):
    code, summary, err = repair(tile, tmp_path, 1)
    assert code == 1 and summary["fixed"] is False and summary["outcome"] == "crash suppressed", (summary, err)
    assert (tmp_path / "out" / "main.py").read_text() == TILE, "the patch that hid the crash is reverted"
    store = TrajectoryStore(tmp_path / "r.db")
    try:
        assert [c.outcome for c in cycles(store, summary["session_run"])] == ["crash suppressed"]
        assert [s.run_id for s in repair_sessions(store)] == [summary["session_run"]]
        report = write_repair_report(store, summary["session_run"], tmp_path / "r.html").read_text()
    finally:
        store.close()
    assert "crash suppressed" in report
