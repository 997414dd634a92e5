"""Every action type reaches a real Tk target through XTEST; out-of-window actions are refused."""

from __future__ import annotations

import time

import pytest

from app.engine.play.actions import Click, DoubleClick, Drag, Finish, Hotkey, Press, RightClick, Scroll, Tap, Type, Wait
from app.engine.play.executor import make_executor
from app.engine.play.observer import VisualObserver, changed_bbox
from app.engine.play.target import TargetProcess
from app.engine.play.targetspec import load_spec

from suite import TARGETS, needs_xvfb

pytestmark = needs_xvfb


def _started(xvfb, name: str):
    """One of the tests' own targets with its window up, an executor on it, and its geometry."""
    target = TargetProcess(load_spec(TARGETS / name), xvfb)
    win = target.wait_for_window()

    def geometry():
        w = target.window
        return (w.x, w.y, w.width, w.height)

    return target, make_executor(xvfb.name, True, win.id, geometry, xvfb.size), geometry


@pytest.fixture
def probe(xvfb):
    target, executor, geometry = _started(xvfb, "probe_tk")
    observer = VisualObserver(xvfb.name, geometry)
    observer.settle()
    yield target, executor, observer
    executor.close()
    observer.close()
    target.shutdown()


def _wait_for(target, text, timeout=3.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = [t for _, _, t in target.lines()]
        if any(text in line for line in lines):
            return lines
        time.sleep(0.02)
    raise AssertionError(f"{text!r} not in {lines}")


@pytest.mark.parametrize("action, expected", [
    (Click(100, 50), "click 1 100 50"),
    (RightClick(30, 40), "click 3 30 40"),
    (DoubleClick(60, 70), "double 1 60 70"),
    (Scroll(10, 10, "up", 2), "scroll up"),
    (Scroll(10, 10, "down", 1), "scroll down"),
    (Press("a"), "key a"),
    (Press("enter"), "key Return"),
    (Press("F5"), "key F5"),
    (Press("asterisk"), "key asterisk"),  # a shifted symbol arrives as itself, not as the '8' under it
    (Press("plus"), "key plus"),
    (Hotkey(("ctrl", "s")), "key s ctrl"),
])
def test_action_reaches_target(probe, action, expected):
    target, executor, _ = probe
    result = executor.execute(action)
    assert result.outcome == "ok"
    _wait_for(target, expected)


def test_a_tap_presses_the_key_each_time(probe):
    target, executor, _ = probe
    assert executor.execute(Tap("a", 4)).outcome == "ok"
    deadline = time.monotonic() + 5
    def taps():
        return sum(t.startswith("key a ") for _, _, t in target.lines())
    while time.monotonic() < deadline and taps() < 4:
        time.sleep(0.02)
    time.sleep(0.2)
    assert taps() == 4


def test_type_text_with_shift_and_unicode(probe):
    target, executor, _ = probe
    assert executor.execute(Type("Hi!é")).outcome == "ok"
    lines = _wait_for(target, "key eacute")
    keys = [line.split()[1] for line in lines if line.startswith("key") and "Shift" not in line]
    assert keys[-4:] == ["H", "i", "exclam", "eacute"]


def test_drag_moves_with_button_held(probe):
    target, executor, _ = probe
    executor.execute(Drag(20, 20, 220, 120))
    lines = _wait_for(target, "release 1 220 120")
    drags = [line for line in lines if line.startswith("drag")]
    assert len(drags) >= 5 and drags[-1] == "drag 220 120"


def test_wait_and_finish_do_nothing_to_the_window(probe):
    target, executor, _ = probe
    assert executor.execute(Wait(0.05)).outcome == "ok"
    assert executor.execute(Finish("pass", "done")).outcome == "finish"


@pytest.mark.parametrize("action", [Click(400, 10), Click(-1, 5), Drag(10, 10, 10, 300),
                                    Scroll(999, 1, "down", 1), DoubleClick(5, 1000)])
def test_outside_the_window_is_refused_and_recorded(probe, action):
    target, executor, observer = probe
    before = observer.capture()
    result = executor.execute(action)
    assert result.outcome == "refused" and "outside the 400×300 window" in result.message
    assert executor.history.entries[-1] == (action, "refused")
    time.sleep(0.1)
    assert changed_bbox(before, observer.capture()) is None
    assert not any(t.startswith(("click", "double", "drag")) for _, _, t in target.lines())


def test_unknown_key_is_refused(probe):
    _, executor, _ = probe
    result = executor.execute(Press("notakey"))
    assert result.outcome == "refused" and "unknown key" in result.message


def test_keys_typed_after_one_closed_the_dialog_go_to_the_window_now_on_top(xvfb):
    """A space closes the dialog the text went to; the X focus then falls to the root until Tk gives it back,
    sooner in one run than another.  Focused again before each character, the rest reaches the Entry whole."""
    target, executor, _ = _started(xvfb, "typeclose_tk")
    try:
        _wait_for(target, "ready")
        executor.execute(Press("F1"))
        _wait_for(target, "dialog open")
        time.sleep(0.3)
        assert executor.execute(Type("ab cdefghijklmnop")).outcome == "ok"
        time.sleep(0.3)
        executor.execute(Press("enter"))
        _wait_for(target, "entry holds")
        assert "entry holds 'cdefghijklmnop'" in [t for _, _, t in target.lines()]
    finally:
        executor.close()
        target.shutdown()
