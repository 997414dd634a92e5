"""Blank is one colour that stays: a window that shows one colour for a moment (a surface re-created for a
fullscreen toggle, a scene change) and then draws again is no blank render; one that stays so is."""

from __future__ import annotations

import numpy as np

from app.engine.judge.oracles import BLANK_CONFIRM_S, GenericOracles
from app.engine.play.observer import Frame
from oracle_support import RunningTarget

W, H = 120, 80


def black() -> Frame:
    return Frame(W, H, bytes(W * H * 4), 0.0)


def drawn() -> Frame:
    arr = np.zeros((H, W, 4), np.uint8)
    arr[10:40, 10:60, :3] = 200
    return Frame(W, H, arr.tobytes(), 0.0)


class _Screens:
    """An observer whose captures follow a list of frames (the last one for ever)."""

    def __init__(self, *frames: Frame) -> None:
        self.frames = list(frames)
        self.captured = 0

    def capture(self) -> Frame:
        self.captured += 1
        return self.frames[min(self.captured - 1, len(self.frames) - 1)]


def _oracles(observer: _Screens, slept: list[float]) -> GenericOracles:
    return GenericOracles(target=RunningTarget(), observer=observer, sleep=slept.append)  # type: ignore[arg-type]


def test_one_colour_for_a_moment_is_no_blank() -> None:
    slept: list[float] = []
    o = _oracles(_Screens(black(), black(), drawn()), slept)
    assert o._common(black(), 0) == []
    assert o._common(black(), 1) == []  # the third look shows a picture again
    assert o._blank_streak == 0


def test_one_colour_that_stays_is_blank() -> None:
    slept: list[float] = []
    o = _oracles(_Screens(black()), slept)
    assert o._common(black(), 0) == []
    findings = o._common(black(), 1)
    assert [f.kind for f in findings] == ["blank"] and findings[0].fatal
    assert sum(slept) >= BLANK_CONFIRM_S - 1e-6  # it looked for the whole confirmation time
