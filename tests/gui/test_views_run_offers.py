"""What the workbench offers for a run comes from what its tester declares, not from tester names in views.

A differential run plays its references with the tester's inputs only, so a
take-over step would reach the candidate alone and every later comparison would
be false: its pause offers no take-over and says why.  Override follows the
run's kind and status, replay its steps; the New run dialog's help, its script
rule and its model box follow the declarations too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from views_support import isolated_settings, make_synthetic_run, paused_live_run, window  # noqa: F401

from PySide6.QtCore import Qt  # noqa: E402

from app.engine.testers.registry import TESTERS as DECLARED, UNKNOWN, abilities  # noqa: E402
from app.engine.testers import TESTERS  # noqa: E402
from app.engine.trace.repair_plays import REPAIR_KIND  # noqa: E402
from app.views.live.live_run import PAUSED, RUNNING, LiveRun  # noqa: E402
from app.views.live.new_run_dialog import NewRunDialog  # noqa: E402
from app.views.model.run_offers import NOT_PAUSED, live_offers, run_offers  # noqa: E402

VIEWS = Path(__file__).resolve().parents[2] / "app" / "views"


def test_every_tester_declares_its_abilities():
    assert set(TESTERS) == set(DECLARED)
    for name in TESTERS:
        can = abilities(name)
        assert can.name == name and can.summary
        assert can.takes_over or can.no_take_over  # a refusal always says why
    assert not abilities("from-a-newer-workbench").takes_over and abilities(None).summary == UNKNOWN.summary


def test_live_offers_follow_state_and_tester():
    assert live_offers("offline", None) == live_offers("offline", "finished") == live_offers("differential", None)
    assert not live_offers("offline", None).pause
    paused = live_offers("offline", PAUSED)
    assert paused.pause and paused.step and paused.stop and paused.take_over and paused.take_over_note == ""
    running = live_offers("llm", RUNNING)
    assert running.pause and not running.take_over and running.take_over_note == NOT_PAUSED
    assert not live_offers("offline", "stopping").stop and not live_offers("offline", "starting").step
    diff = live_offers("differential", PAUSED)
    assert diff.pause and diff.step and not diff.take_over and "reference" in diff.take_over_note


def test_run_offers_follow_kind_status_and_steps():
    assert run_offers(None) == run_offers({}) and not run_offers(None).replay
    done = run_offers({"kind": "test", "status": "completed"}, steps=3)
    assert done.overridable and done.override and done.replay and done.override_note == ""
    running = run_offers({"status": "running", "kind": None}, steps=0)
    assert running.overridable and not running.override and "still playing" in running.override_note
    assert not running.replay
    session = run_offers({"kind": REPAIR_KIND, "status": "completed"})
    assert not session.overridable and not session.override and "repair" in session.override_note


def test_no_view_tests_a_tester_name():
    """Views ask what a tester can do (abilities, run offers), never compare its name."""
    names = set(TESTERS)
    bad = []
    for path in VIEWS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare) and "tester" in ast.unparse(node):
                for side in [node.left, *node.comparators]:
                    if isinstance(side, ast.Constant) and side.value in names:
                        bad.append(f"{path.relative_to(VIEWS)}:{node.lineno}")
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value in names:
                if any(isinstance(t, ast.Name) and t.id.isupper() and t.id.endswith("_TESTER") for t in node.targets):
                    bad.append(f"{path.relative_to(VIEWS)}:{node.lineno}")
    assert bad == []


@pytest.fixture
def live_window(window, tmp_path):
    def start(tester: str):
        return paused_live_run(window, tmp_path / "offers.db", tester)

    made: list[LiveRun] = []
    yield lambda tester: made.append(start(tester)) or made[-1]
    for live in made:
        live.shutdown()


def test_a_paused_differential_run_offers_no_take_over_and_says_why(live_window, window, qtbot):
    live = live_window("differential")
    view, a = window.run_view.live, window.commands
    assert a.pause.isEnabled() and a.step.isEnabled() and a.stop.isEnabled()
    assert not a.take_over.isEnabled() and "reference" in a.take_over.toolTip()
    assert "take-over is off in a differential run" in view.state_text
    sent: list[dict] = []
    view.sig_action_requested.connect(sent.append)
    qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=view.rect().center())
    assert not view.takeover and sent == [] and not view.set_takeover(True)
    a.take_over.trigger()  # disabled: nothing happens
    assert not view.takeover and not a.take_over.isChecked()
    live._set_state(RUNNING)
    assert not a.take_over.isEnabled() and "reference" in a.take_over.toolTip()


def test_a_paused_offline_run_offers_take_over(live_window, window, qtbot):
    live_window("offline")
    view, a = window.run_view.live, window.commands
    assert a.take_over.isEnabled() and "reference" not in a.take_over.toolTip()
    assert "to take over" in view.state_text
    qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=view.rect().center())
    assert view.takeover and a.take_over.isChecked()


def test_replay_is_offered_only_for_a_run_with_steps(window, tmp_path):
    assert window.open_database(tmp_path / "replay.db")
    store = window.model.store
    empty = store.create_run(target="nothing", tester="offline", display="isolated", seed=0, max_steps=1)
    store.finish_run(empty, status="completed", verdict="uncertain", reason="no steps")
    played = make_synthetic_run(store, 4)
    window.browser.refresh()
    window.open_run(empty)
    assert not window.commands.replay.isEnabled()
    window.open_run(played)
    assert window.commands.replay.isEnabled()
    window.set_blinded(True)
    assert not window.commands.replay.isEnabled()
    window.set_blinded(False)
    assert window.commands.replay.isEnabled()


def test_new_run_dialog_reads_the_declarations(qtbot, isolated_settings):  # noqa: F811
    dialog = NewRunDialog()
    qtbot.addWidget(dialog)
    tips = {str(dialog.tester_combo.itemData(i)): dialog.tester_combo.itemData(i, Qt.ItemDataRole.ToolTipRole)
            for i in range(dialog.tester_combo.count())}
    assert tips["differential"] == abilities("differential").summary  # it had no help at all
    dialog.set_tester("llm")
    assert dialog.llm_box.isVisibleTo(dialog)
    dialog.set_tester("offline")
    assert not dialog.llm_box.isVisibleTo(dialog)


def test_new_repair_dialog_reads_the_declarations(qtbot, isolated_settings):  # noqa: F811
    from app.views.repair.new_repair_dialog import NewRepairDialog

    targets = Path(__file__).resolve().parents[1] / "targets"
    dialog = NewRepairDialog()
    qtbot.addWidget(dialog)
    dialog.folder_radio.setChecked(True)
    dialog.folder_edit.setText(str(targets / "tally_tk"))  # has [[script]] cases
    bug = dialog.bug_combo.itemData(dialog.bug_combo.count() - 1)
    dialog.bug_combo.setCurrentIndex(dialog.bug_combo.count() - 1)
    dialog.tester_combo.setCurrentText("script")
    assert dialog.error_label.text() == "" and dialog.request() is not None
    assert dialog.bug_combo.currentData() == bug  # choosing a tester keeps the bug
    assert dialog.tester_combo.toolTip() == abilities("script").summary
    dialog.folder_edit.setText(str(targets / "probe_tk"))  # none: the script tester cannot play it
    assert "[[script]]" in dialog.error_label.text() and dialog.request() is None
    dialog.tester_combo.setCurrentText("offline")
    assert dialog.error_label.text() == "" and dialog.request() is not None
