"""A game on a timer (a Tk or turtle game that settles from inside at once) shows its motion only between steps:
once it has stopped by itself and stands still, inputs that change nothing are an end screen, not dead input."""

from __future__ import annotations

from test_no_response_spent import oracles, screen, step


def test_a_timer_game_that_stopped_by_itself_is_an_end_screen(monkeypatch):
    o, found = oracles(monkeypatch), []
    for n in range(4):  # each step settles at once; the ball moves while the tester thinks
        found += step(o, n, 'press("w")', screen(ball=10 * n), screen(ball=10 * n))
        o.note_idle(screen(ball=10 * n), screen(ball=10 * n + 10))
    for n in range(4, 40):  # the ball went out: the game stopped, keys move a paddle it no longer draws
        found += step(o, n, ('press("w")', 'press("s")', 'press("i")', 'press("k")')[n % 4], screen(ball=40),
                      screen(ball=40))
    assert found == []


def test_an_input_answered_after_the_motion_makes_dead_input_count_again(monkeypatch):
    """It moved by itself, then an input answered (the game is not over): later silence is judged."""
    o, found = oracles(monkeypatch), []
    o.note_idle(screen(ball=10), screen(ball=20))
    found += step(o, 0, "click(60, 40)", screen(0, ball=20), screen(1, ball=20))
    for n in range(1, 40):
        found += step(o, n, ('press("w")', 'press("s")', 'press("i")', 'click(30, 20)')[n % 4], screen(1, ball=20),
                      screen(1, ball=20))
    assert found and found[0].kind == "no-response"  # (fatal: a run would end there)


def _trail(n: int):
    """The grey window with a trail of ``n`` 3x3 squares drawn one per tick (a light cycle's path)."""
    import numpy as np

    from app.engine.play.observer import Frame
    from test_no_response_spent import H, W

    arr = np.full((H, W, 4), 200, np.uint8)
    for i in range(n):
        arr[40:43, 10 + 3 * i:13 + 3 * i, :3] = 0
    return Frame(W, H, arr.tobytes(), 0.0)


def test_a_trail_drawn_a_few_pixels_a_tick_is_motion(monkeypatch):
    """Each tick adds a 3x3 square (under a caret's size); together they are the game moving by itself."""
    o, found = oracles(monkeypatch), []
    for n in range(8):
        found += step(o, n, 'press("a")', _trail(n), _trail(n))
        o.note_idle(_trail(n), _trail(n + 1))
    for n in range(8, 40):
        found += step(o, n, ('press("a")', 'press("d")', 'press("j")', 'press("l")')[n % 4], _trail(8), _trail(8))
    assert found == []


def test_a_game_whose_timer_stopped_is_an_end_screen_though_its_ticks_fell_inside_steps(monkeypatch):
    """Steps 30 ms apart, a tick every 50 ms: each tick's motion showed inside a step, as that step's 'answer',
    never between steps.  Its repeating timer then stopped (a light cycle crashed) and nothing answers."""
    o, found = oracles(monkeypatch), []
    for n in range(8):
        before, after = (_trail(n), _trail(n + 1)) if n % 2 else (_trail(n), _trail(n))
        found += step(o, n, ('press("a")', 'press("d")')[n % 2], before, after, ticking=True)
    for n in range(8, 40):
        found += step(o, n, ('press("a")', 'press("d")', 'press("j")', 'press("l")')[n % 4], _trail(8), _trail(8))
    assert found == []


def test_dead_input_while_the_timer_still_ticks_is_judged(monkeypatch):
    """The same game whose timer keeps ticking while nothing answers: its timer did not stop, so dead input is
    judged as before (what it changes by itself now is learnt and set aside)."""
    import itertools

    import app.engine.judge.oracles as module

    clock = itertools.count(0.0, 0.5)  # slow steps: a ticking program is given time to answer
    monkeypatch.setattr(module.time, "monotonic", lambda: next(clock))
    o, found = oracles(monkeypatch), []
    for n in range(40):
        found += step(o, n, ('press("a")', 'press("d")', 'press("j")', 'press("l")')[n % 4], _trail(8), _trail(8),
                      ticking=True)
    assert found and {f.kind for f in found} == {"no-response"}, found
