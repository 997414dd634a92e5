"""Inputs another window of the program had are no evidence of dead input (judge/covered.py).

A modal dialog stacked under another of the program's windows (a file dialog opened from an
editor window that sits above it) takes every key and click while nothing the picture shows
answers them; the offline tester called such a program unresponsive."""

from __future__ import annotations

import time

import numpy as np
import pytest
from Xlib import X

from app.engine.judge.covered import covered, out_of_sight
from app.engine.judge.oracles import GenericOracles
from app.engine.play.actions import Click
from app.engine.play.executor import make_executor
from app.engine.play.observer import Frame, Observation
from app.engine.play.target import TargetProcess
from app.engine.play.targetspec import Timing, load_spec
from app.engine.play.xwidgets import TargetWindows, TopLevel
from suite import TARGETS, needs_xvfb
from oracle_support import RunningTarget

MAIN = TopLevel(1, 0, 0, 700, 740, "main")
EDITOR = TopLevel(2, 0, 0, 667, 740, "dialog", "editor")
SAVE = TopLevel(3, 108, 246, 436, 262, "dialog", "Save As")
MENU = TopLevel(4, 10, 30, 200, 300, "popup")


def test_a_dialog_under_another_window_of_the_program_is_out_of_sight():
    assert out_of_sight([MAIN, SAVE, EDITOR]) == SAVE
    assert out_of_sight([SAVE, MAIN]) == SAVE
    assert covered(False, [MAIN, SAVE, EDITOR]) and covered(False, [SAVE, MAIN])
    # Which of two overlapping dialogs is modal cannot be told from outside: the lower one may be.
    assert out_of_sight([MAIN, EDITOR, SAVE]) == EDITOR


def test_a_dialog_in_sight_covers_only_declared_keys():
    for tops in ([MAIN, SAVE], [MAIN, EDITOR], [MAIN, SAVE, MENU]):
        assert out_of_sight(tops) is None
        assert not covered(False, tops) and covered(True, tops)
    assert not covered(True, [MAIN]) and not covered(False, [MAIN]) and not covered(False, [])


def test_a_dialog_partly_off_the_main_window_is_out_of_sight():
    assert out_of_sight([MAIN, TopLevel(5, 600, 100, 200, 100, "dialog")]) is not None


W, H = 120, 80


def _play(covered_inputs: bool, monkeypatch) -> list:
    """Twenty different inputs on a still window."""
    o = GenericOracles(target=RunningTarget(), observer=None, timing=Timing(no_response_s=0.0))  # type: ignore[arg-type]
    monkeypatch.setattr(o, "_check_unresponsive", lambda step: [])  # no repaint probe without a display
    monkeypatch.setattr(o, "learn_idle", lambda frame, duration_s: 0.0)
    monkeypatch.setattr(o, "_loop_alive", lambda: True)
    arr = np.full((H, W, 4), 200, np.uint8)
    arr[60:70, 10:50, :3] = 30  # a line of text: not a blank window
    still = Frame(W, H, arr.tobytes(), 0.0)
    found: list = []
    for step in range(20):
        found += o.check_step(step, "click", still, Observation(still, True, 10.0, None, 1),
                              action_key=f"click({step}, 5)", covered=covered_inputs)
    return found


def test_inputs_a_hidden_dialog_had_are_no_evidence_of_dead_input(monkeypatch):
    assert [f.kind for f in _play(False, monkeypatch)] == ["no-response"]
    assert _play(True, monkeypatch) == []


@pytest.mark.xvfb
@needs_xvfb
def test_a_modal_dialog_lowered_under_the_main_window_covers_every_input(xvfb):
    """On a real Tk program: its modal dialog in sight covers only declared keys; lowered under the main
    window (as stacking left idle-shell's Save As under an editor), it covers every input."""
    target = TargetProcess(load_spec(TARGETS / "modal_tk"), xvfb)
    try:
        target.wait_for_window()
        time.sleep(0.4)
        target.refresh_geometry()
        windows = TargetWindows(target)
        win = target.window
        assert win is not None
        opener = max(windows.widgets(), key=lambda w: w.y0)  # "Leaderboard", packed last
        executor = make_executor(xvfb.name, True, win.id, lambda: (win.x, win.y, win.width, win.height), xvfb.size)
        try:
            executor.execute(Click(*opener.center))
        finally:
            executor.close()
        deadline = time.monotonic() + 3.0
        while not windows.others() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        tops = windows.toplevels()
        assert [t.kind for t in tops] == ["main", "dialog"]
        assert not covered(False, tops) and covered(True, tops)
        conn = target.xconn()
        conn.create_resource_object("window", win.id).configure(stack_mode=X.Above)
        conn.sync()
        time.sleep(0.1)
        tops = windows.toplevels()
        assert [t.kind for t in tops] == ["dialog", "main"]
        assert covered(False, tops)
    finally:
        target.shutdown()
