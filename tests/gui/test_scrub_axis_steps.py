"""The time axis spans the steps: a differential run that waited for its references before its first step does
not have its steps squeezed against the right edge."""

from __future__ import annotations

import views_support  # noqa: F401  (offscreen Qt)

from app.views.run.scrub_view import ScrubView  # noqa: E402


def test_steps_fill_the_axis_after_a_long_wait_before_the_first_step(qtbot):
    scrub = ScrubView()
    qtbot.addWidget(scrub)
    scrub.resize(800, 40)
    start = 1000.0
    first = start + 60.0  # a minute launching the two reference programs
    steps = [(i, first + i, first + i + 0.5, False) for i in range(10)]
    scrub.set_run(start, first + 10.5, steps, [], None)
    xs = [scrub.x_of(s[1]) for s in steps]
    width = scrub.width()
    assert xs[0] < 0.1 * width and xs[-1] > 0.8 * width, xs
    scrub.set_run(start, first + 10.5, [], [], None)  # no steps yet: the run's own span
    assert scrub.t0 == start
