"""Differential play off the frame gate: the programs' Python clocks stand still between steps, but a Qt or Tk
timer shows the engine's latest time only at its next tick.  A program one tick behind when it was looked at is
no divergence, and its catching up is not learnt as noise (its digits stay compared)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from app.engine.play.inside import InsideWidget
from app.engine.play.observer import Frame, Observation
from app.engine.testers.differential import DifferentialTester
from app.engine.testers.widget_texts import shown

W, H = 120, 80


def picture(box_x: int) -> Frame:
    """A dark window with a light 20x20 block at ``box_x`` (a digit that moved on)."""
    pixels = np.zeros((H, W, 4), np.uint8)
    pixels[30:50, box_x:box_x + 20, :3] = 230
    return Frame(W, H, pixels.tobytes(), 0.0)


class Showing:
    """An observer whose program shows ``frame`` from now on."""

    def __init__(self, frame: Frame) -> None:
        self.frame = frame
        self.frames = [frame]

    def capture(self) -> Frame:
        return self.frame


def make_tester(candidate: Frame, settled_refs: Frame, refs_now: Frame) -> DifferentialTester:
    tester = DifferentialTester(paced=False)
    player = SimpleNamespace(observer=Showing(candidate), target=None)
    tester._candidate = lambda: player  # type: ignore[method-assign]
    tester._in_lockstep = lambda: False  # type: ignore[method-assign]
    tester.players = [SimpleNamespace(observer=Showing(settled_refs)) for _ in range(2)]
    tester.ref_obs = [Observation(settled_refs, True, 5.0, None, 2) for _ in range(2)]
    for p in tester.players:
        p.observer.frame = refs_now  # the references' timers tick after their look
    tester.noise = np.zeros((H, W), bool)
    return tester


def test_references_looked_at_one_tick_behind_agree_once_they_caught_up_and_nothing_is_noise():
    old, new = picture(20), picture(70)
    tester = make_tester(candidate=new, settled_refs=old, refs_now=new)
    tester._judge_pixels(7, Observation(new, True, 5.0, None, 2))
    assert tester.diverged is None
    assert 7 in tester.agreed and tester.caught_up == 1
    assert not tester.noise.any()  # the clock's digits are still compared at the next step
    assert all(o.frame is new for o in tester.ref_obs) and tester.reference_frames[7] is new
    tester.pool.shutdown()


def test_a_candidate_that_stays_different_still_diverges():
    old, wrong = picture(20), picture(70)
    tester = make_tester(candidate=wrong, settled_refs=old, refs_now=old)
    tester._judge_pixels(3, Observation(wrong, True, 5.0, None, 2))
    assert tester.diverged is not None and tester.diverged.step == 3
    tester.pool.shutdown()


def label(text: str) -> InsideWidget:
    return InsideWidget("label", "QLabel", text, True, True, (0, 0, 90, 30), False)


def test_a_widget_text_that_catches_up_between_two_looks_is_not_learnt_as_noise():
    tester = DifferentialTester(paced=False)
    looks = iter([[shown([label("00:06.5")])] * 2, [shown([label("00:07.0")])] * 2])  # asked twice only
    tester._reference_widgets = lambda: next(looks)  # type: ignore[method-assign]
    tester._widgets_of = lambda player: shown([label("00:07.0")])  # type: ignore[method-assign]
    tester._candidate = lambda: None  # type: ignore[method-assign]
    tester._judge_widgets(4, picture(0))
    assert tester.diverged is None and tester.caught_up == 1
    assert not tester.widget_noise
    tester.pool.shutdown()


def test_a_widget_text_that_the_references_change_by_themselves_is_still_noise():
    tester = DifferentialTester(paced=False)
    calls = []

    def reference_widgets():  # the first look shows tick 1, every later one tick 2
        calls.append(1)
        return [shown([label("tick 1" if len(calls) == 1 else "tick 2")])] * 2

    tester._reference_widgets = reference_widgets  # type: ignore[method-assign]
    tester._widgets_of = lambda player: shown([label("tock")])  # type: ignore[method-assign]
    tester._candidate = lambda: None  # type: ignore[method-assign]
    tester._judge_widgets(4, picture(0))
    assert tester.diverged is None
    assert tester.widget_noise == {("label", "QLabel", (), 0)}
    tester.pool.shutdown()
