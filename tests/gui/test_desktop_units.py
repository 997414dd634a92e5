"""Issue 15 without a display: pixel conversion, the engine's own pause (RunControl.hold), placement, events."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from app.engine.errors import RunStopped
from app.engine.play.composite import WindowUnreadable, to_bgrx
from app.engine.play.control import RunControl
from app.engine.play.events import ControlChanged, WindowMoved, event_from_json, event_to_json


# -- pixels ---------------------------------------------------------------------------------
def test_to_bgrx_zeroes_the_fourth_byte_and_handles_byte_order():
    argb_lsb = bytes([10, 20, 30, 255, 1, 2, 3, 128])  # B G R A, two pixels
    assert to_bgrx(argb_lsb, 2, 1, 32, 32, 32) == bytes([10, 20, 30, 0, 1, 2, 3, 0])
    argb_msb = bytes([255, 30, 20, 10])  # A R G B
    assert to_bgrx(argb_msb, 1, 1, 32, 32, 32, msb_first=True) == bytes([10, 20, 30, 0])


def test_to_bgrx_skips_row_padding_and_expands_16_bit_pixels():
    # RGB565, 3 pixels a row padded to 8 bytes: white, pure red, pure blue
    row = np.array([0xFFFF, 0xF800, 0x001F], dtype="<u2").tobytes() + b"\0\0"
    out = np.frombuffer(to_bgrx(row * 2, 3, 2, 16, 16, 32), dtype=np.uint8).reshape(2, 3, 4)
    assert out[1, 0].tolist() == [255, 255, 255, 0]
    assert out[0, 1].tolist() == [0, 0, 255, 0]
    assert out[0, 2].tolist() == [255, 0, 0, 0]


def test_to_bgrx_refuses_what_it_cannot_convert():
    with pytest.raises(WindowUnreadable, match="8 bits deep"):
        to_bgrx(bytes(4), 4, 1, 8, 8, 32)
    with pytest.raises(WindowUnreadable, match="bytes"):
        to_bgrx(bytes(4), 4, 1, 24, 32, 32)


# -- the engine's own pause ---------------------------------------------------------------------
def _recording_control() -> tuple[RunControl, list[tuple[str, str]]]:
    control = RunControl()
    heard: list[tuple[str, str]] = []
    control.on_change(lambda state: heard.append((state, control.reason)))
    return control, heard


def test_hold_pauses_with_its_reason_and_goes_on_by_itself_when_ready():
    control, heard = _recording_control()
    ready = threading.Event()
    threading.Timer(0.2, ready.set).start()
    control.hold("The target is covered.", ready.is_set, poll_s=0.02)
    assert heard == [("paused", "The target is covered."), ("running", "")]
    assert not control.paused and control.reason == ""


def test_hold_ends_when_the_user_resumes_or_steps_and_raises_when_stopped():
    control, heard = _recording_control()
    threading.Timer(0.1, control.resume).start()
    control.hold("hidden", lambda: False, poll_s=0.02)
    assert heard[-1] == ("running", "")

    control.step()  # stepping: one action, then paused again
    assert control.checkpoint() is None
    threading.Timer(0.1, control.step).start()
    control.hold("hidden", lambda: False, poll_s=0.02)
    assert control.paused  # the step goes on, and the run pauses after it
    control.step_done()
    assert heard[-1] == ("paused", "")

    threading.Timer(0.1, control.stop).start()
    with pytest.raises(RunStopped):
        control.hold("hidden", lambda: False, poll_s=0.02)


def test_a_user_pause_during_a_hold_is_kept_when_the_cause_goes():
    control, _ = _recording_control()
    ready = threading.Event()

    def user() -> None:
        time.sleep(0.05)
        control.pause()
        ready.set()
        time.sleep(0.15)
        control.resume()

    threading.Thread(target=user).start()
    started = time.monotonic()
    control.hold("covered", ready.is_set, poll_s=0.02)
    assert time.monotonic() - started >= 0.15  # waited for the user's resume, not for ready()


# -- events ---------------------------------------------------------------------------------
def test_window_moved_and_the_pause_reason_travel_as_json():
    moved = WindowMoved(3, 0x400001, 10, 20, 400, 300)
    assert event_from_json(event_to_json(moved)) == moved
    changed = ControlChanged(3, "paused", "The target window is minimised.")
    assert event_from_json(event_to_json(changed)) == changed
    assert event_from_json('{"event":"ControlChanged","run_id":3,"state":"running"}').reason == ""


# -- placement --------------------------------------------------------------------------------
def test_placement_puts_the_target_beside_the_workbench_or_says_why_not():
    from app.views.live.desktop_placement import WORKBENCH_MIN_WIDTH, plan_placement

    screen = (0, 0, 1920, 1080)
    # apart already: nothing moves
    assert plan_placement(screen, (0, 0, 1000, 800), (1100, 0, 400, 300)).target is None
    # room on the right
    p = plan_placement(screen, (0, 0, 1000, 800), (100, 100, 400, 300))
    assert p.workbench is None and p.target == (1000, 0)
    # room on the left only
    p = plan_placement(screen, (900, 100, 1000, 800), (1000, 200, 400, 300))
    assert p.workbench is None and p.target == (500, 100)
    # a maximised workbench is narrowed
    p = plan_placement(screen, (0, 0, 1920, 1080), (10, 10, 800, 600))
    assert p.workbench == (0, 0, 1120, 1080) and p.target == (1120, 0) and not p.message
    # too small a screen: one sentence, nothing moves
    p = plan_placement((0, 0, 1024, 768), (0, 0, 1024, 768), (0, 0, 1024 - WORKBENCH_MIN_WIDTH + 1, 500))
    assert p.workbench is None and p.target is None and "no room" in p.message
