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
