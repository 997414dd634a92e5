"""RepairView on a database written by a real repair (CLI, Xvfb plays): cycles, diff, validation, frames, keys."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from app.views.model.database import Database  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.repair.diff_html import side_by_side_rows  # noqa: E402
from app.views.repair.repair_view import RepairView  # noqa: E402
from llm_servers import OpenAIServer, Recorded, Reply  # noqa: E402

from suite import ROOT, TARGETS, needs_xvfb  # noqa: E402

WRONG_FIX = ("main.py\n<<<<<<< SEARCH\n    row=0, column=0, columnspan=4, sticky=\"nsew\", padx=4)\n=======\n"
             "    row=0, column=0, columnspan=4, sticky=\"nsew\", padx=6)\n>>>>>>> REPLACE\n")
"""A patch that plays but fixes nothing (it moves the small line): each cycle's retest has pictures to show."""


def _wrong_fixes(rec: Recorded) -> Reply:
    if "Now write the patch" in rec.prompt():
        return Reply(WRONG_FIX, (300, 40))
    return Reply("The small line above the number is cramped; give it more room.", (500, 20))

pytestmark = needs_xvfb


@pytest.fixture(scope="module")
def repaired_db(tmp_path_factory):
    """Two cycles of a real repair: the tests' own tally with its number drawn white on white, found by the rubric
    tester (no benchmark bug is pinned); a local model server proposes a patch that plays and fixes
    nothing, twice."""
    db = tmp_path_factory.mktemp("repair-view") / "repair.db"
    env = dict(os.environ, SDL_AUDIODRIVER="dummy")
    with OpenAIServer() as server:
        server.responder = _wrong_fixes
        proc = subprocess.run([sys.executable, "-m", "app", "repair", f"{TARGETS / 'tally_tk'}@digits-invisible",
                               "--refiner", "llm", "--provider", "compatible", "--model", "fixer", "--base-url",
                               server.base_url, "--max-iterations", "2", "--json", "--db", str(db)],
                              capture_output=True, text=True, timeout=400, cwd=ROOT, env=env)
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(summary["iterations"]) == 2, (summary, proc.stderr)
    return db, summary


def test_repair_view_steps_through_cycles(qtbot, repaired_db):
    db, summary = repaired_db
    store = TrajectoryStore(db, readonly=True)
    view = RepairView(Database(store))
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    qtbot.waitExposed(view)

    assert view.cycle_count() == 2
    assert view.tree.topLevelItemCount() == 1
    assert f"#{summary['session_run']} tally_tk@digits-invisible" in view.tree.topLevelItem(0).text(0)
    first = view.current_cycle()
    assert first is not None and first.iteration == 1
    assert "Iteration 1" in view.header.text()

    # what triggered it: the rubric's failed criterion, and the diagnosis
    assert view.findings.finding_count() >= 1
    shown = [view.findings.item(i).text() for i in range(view.findings.count())]
    assert any("criterion" in t for t in shown)
    assert "Play run" in view.diagnosis.toPlainText()

    # the patch, unified and side by side
    diff = summary["iterations"][0]["diff"]
    added = next(line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++"))
    assert diff and added.strip() in view.diff_browser.toPlainText()  # the cycle's own patch, whichever it is
    view.side_by_side.setChecked(True)
    text = view.diff_browser.toPlainText()
    removed = next(line[1:] for line in diff.splitlines() if line.startswith("-") and not line.startswith("---"))
    added = next(line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++"))
    assert removed.strip() in text and added.strip() in text
    assert any(r.kind == "change" and r.left and r.right for r in side_by_side_rows(diff))
    assert "[syntax] ok" in view.validation.toPlainText()

    # before / after frames at the same step, one slider
    before, after = view.frame_pair()
    assert before is not None and after is not None and not before.isNull() and not after.isNull()
    assert view.step_slider.maximum() >= 5
    view.step_slider.setValue(5)
    assert view.step_label.text() == "step 6"  # idx 5, numbered from 1
    assert view.before_frame.image() is not None

    # Page Down / Page Up walk the cycles and say so
    view.activateWindow()
    qtbot.waitUntil(view.isActiveWindow, timeout=2000)
    with qtbot.waitSignal(view.sig_cycle_selected, timeout=2000) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_PageDown)
    assert view.current_cycle().iteration == 2 and blocker.args == [view.current_cycle().patch_id]
    assert not view.next_button.isEnabled() and view.prev_button.isEnabled()
    qtbot.keyClick(view, Qt.Key.Key_PageUp)
    assert view.current_cycle().iteration == 1
    qtbot.mouseClick(view.next_button, Qt.MouseButton.LeftButton)
    assert view.current_cycle().iteration == 2
    store.close()


def test_repair_view_on_an_empty_database(qtbot, tmp_path):
    store = TrajectoryStore(tmp_path / "empty.db")
    view = RepairView(Database(store))
    qtbot.addWidget(view)
    assert view.cycle_count() == 0 and view.current_cycle() is None
    view.next_cycle()
    view.previous_cycle()
    assert view.frame_pair() == (None, None)
    store.close()
