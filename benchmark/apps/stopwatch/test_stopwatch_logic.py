# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests for stopwatch_logic (pure stopwatch logic, no GUI)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pytest  # noqa: E402

from stopwatch_logic import Stopwatch, action_for_key, format_time  # noqa: E402


@pytest.mark.parametrize("seconds, text", [
    (0, "00:00.0"),
    (0.05, "00:00.0"),
    (0.1, "00:00.1"),
    (1.26, "00:01.2"),
    (9.99, "00:09.9"),
    (59.99, "00:59.9"),
    (60, "01:00.0"),
    (75.3, "01:15.3"),
    (599.9, "09:59.9"),
    (3600, "60:00.0"),
    (6000.5, "100:00.5"),
    (-3, "00:00.0"),
])
def test_format_time(seconds, text):
    assert format_time(seconds) == text


def test_starts_stopped_at_zero():
    sw = Stopwatch()
    assert not sw.running
    assert sw.elapsed(100.0) == 0.0
    assert sw.laps == []


def test_runs_while_started():
    sw = Stopwatch()
    sw.start(10.0)
    assert sw.running
    assert sw.elapsed(12.5) == pytest.approx(2.5)
    sw.stop(13.0)
    assert not sw.running
    assert sw.elapsed(50.0) == pytest.approx(3.0), "a stopped watch holds its time"


def test_resume_continues_from_the_stopped_time():
    sw = Stopwatch()
    sw.toggle(0.0)
    sw.toggle(2.0)
    sw.toggle(10.0)
    assert sw.elapsed(11.5) == pytest.approx(3.5)
    sw.toggle(12.0)
    assert sw.elapsed(99.0) == pytest.approx(4.0)


def test_toggle_returns_state():
    sw = Stopwatch()
    assert sw.toggle(1.0) is True
    assert sw.toggle(2.0) is False


def test_start_twice_keeps_the_first_start():
    sw = Stopwatch()
    sw.start(1.0)
    sw.start(5.0)
    assert sw.elapsed(6.0) == pytest.approx(5.0)


def test_laps_record_split_and_total():
    sw = Stopwatch()
    sw.start(0.0)
    first = sw.lap(2.0)
    second = sw.lap(5.5)
    assert (first.number, first.split, first.total) == (1, pytest.approx(2.0), pytest.approx(2.0))
    assert (second.number, second.split, second.total) == (2, pytest.approx(3.5), pytest.approx(5.5))
    assert sw.rows() == [second.row(), first.row()], "newest lap first"
    assert first.row() == "Lap 1     00:02.0   00:02.0"


def test_lap_ignored_when_stopped():
    sw = Stopwatch()
    assert sw.lap(1.0) is None
    sw.start(0.0)
    sw.stop(1.0)
    assert sw.lap(2.0) is None
    assert sw.laps == []


def test_lap_after_resume_uses_watch_time():
    sw = Stopwatch()
    sw.start(0.0)
    sw.lap(1.0)
    sw.stop(2.0)
    sw.start(100.0)
    lap = sw.lap(101.0)
    assert lap.total == pytest.approx(3.0)
    assert lap.split == pytest.approx(2.0)


def test_reset_clears_time_and_laps():
    sw = Stopwatch()
    sw.start(0.0)
    sw.lap(1.0)
    sw.reset()
    assert not sw.running
    assert sw.elapsed(10.0) == 0.0
    assert sw.laps == [] and sw.rows() == []
    sw.start(20.0)
    assert sw.elapsed(21.0) == pytest.approx(1.0)
    assert sw.lap(22.0).number == 1


@pytest.mark.parametrize("text, action", [
    (" ", "toggle"), ("l", "lap"), ("L", "lap"), ("r", "reset"), ("R", "reset"), ("x", None), ("", None),
])
def test_action_for_key(text, action):
    assert action_for_key(text) == action
