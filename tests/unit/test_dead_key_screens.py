"""The dead-key oracle counts screens, and a blinking caret does not make a screen new.

A perceptual hash flips on a 2-pixel caret, so a key pressed five times on one screen
while its caret blinked looked like a key dead on five screens (a correct to-do program,
whose Delete acts on a selected row only, was failed that way)."""

from __future__ import annotations

import numpy as np

from app.engine.judge.oracles import GenericOracles, _Input
from app.engine.play.observer import Frame, Observation
from oracle_support import RunningTarget

W, H = 120, 80


def screen(text_rows: int = 0, caret: bool = False) -> Frame:
    """A grey window; ``text_rows`` dark 40x8 'lines of text'; a 2x14 caret at x 100."""
    arr = np.full((H, W, 4), 200, np.uint8)
    for r in range(text_rows):
        arr[8 + 12 * r:16 + 12 * r, 10:50, :3] = 30
    if caret:
        arr[50:64, 100:102, :3] = 0
    return Frame(W, H, arr.tobytes(), 0.0)


def oracles() -> GenericOracles:
    found = GenericOracles(target=None, observer=None, declared_keys=('press("delete")',))  # type: ignore[arg-type]
    found.answering = {"elsewhere": {'press("enter")': 1}}  # other inputs did answer
    found.key_states.note("click(40, 12)")  # a row was picked: where Delete matters
    found.key_states.note('press("delete")')
    return found


def press_delete_on(o: GenericOracles, frames: list[Frame]) -> list:
    out = []
    for step, before in enumerate(frames):
        item = _Input(step, 'press("delete")', float(step), np.zeros((H, W), bool), f"hash-{step}")
        out += o._check_dead_key(step, item, before)
    return out


def test_caret_blinks_are_one_screen():
    frames = [screen(1, caret=step % 2 == 0) for step in range(8)]
    assert press_delete_on(oracles(), frames) == []


def test_five_screens_with_different_content_are_five():
    found = press_delete_on(oracles(), [screen(rows, caret=rows % 2 == 0) for rows in range(5)])
    assert [(f.kind, f.step, f.evidence["screens"]) for f in found] == [("no-response", 4, 5)]


def _play_delete(covered: bool, monkeypatch) -> list:
    o = oracles()
    o.target = RunningTarget()  # type: ignore[assignment]
    monkeypatch.setattr(o, "_check_unresponsive", lambda step: [])  # no repaint probe without a display
    found = []
    for step, rows in enumerate(range(6)):
        before = screen(rows)
        found += o.check_step(step, "press", before, Observation(before, True, 10.0, None, 1),
                              action_key='press("delete")', covered=covered)
    return found


def test_a_key_pressed_while_a_dialog_had_the_keyboard_is_no_evidence(monkeypatch):
    """Keys sent while the program's dialog or popup is open go to it (jotter's About box): those
    presses say nothing about the main window's Delete."""
    assert _play_delete(True, monkeypatch) == []
    assert [f.kind for f in _play_delete(False, monkeypatch)] == ["no-response"]


def test_a_key_that_changed_the_programs_state_is_not_dead():
    """A key that picks a mode (a paint program's shape keys) changes nothing until the next click; the program's
    state digest changed (said from inside), so five silent screens are no evidence against it."""
    o = oracles()
    o.note_state_changed('press("delete")')
    assert press_delete_on(o, [screen(rows) for rows in range(5)]) == []


def test_a_key_is_judged_only_where_keys_of_its_kind_matter():
    o = GenericOracles(target=None, observer=None, declared_keys=('press("enter")',))  # type: ignore[arg-type]
    o.answering = {"elsewhere": {"click(1, 1)": 1}}
    frames = [screen(rows) for rows in range(6)]

    def press_enter() -> list:
        out = []
        for step, before in enumerate(frames):
            o.key_states.note('press("enter")')
            item = _Input(step, 'press("enter")', float(step), np.zeros((H, W), bool), f"hash-{step}")
            out += o._check_dead_key(step, item, before)
        return out

    assert press_enter() == []  # Return on empty entries only: nothing was there to submit
    o.key_states.note('type("milk")')
    o.key_states.note('press("enter")')  # pressed once with text typed: now it may be judged
    found = press_enter()
    assert found and found[0].kind == "no-response" and found[0].step == 0


def test_a_key_that_answered_once_is_not_dead():
    o = oracles()
    o.answering = {"elsewhere": {"click(1, 1)": 1}, "a list with a row": {'press("delete")': 3}}
    assert press_delete_on(o, [screen(rows) for rows in range(6)]) == []
