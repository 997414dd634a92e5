"""Episodes that end on the same picture although each was played differently: the game ignores input."""

from __future__ import annotations

from app.engine.judge.episodes import EpisodeEndings
from app.engine.play.observer import Frame


def picture(shade: int) -> Frame:
    """A 8x8 picture: a shaded top half over a white bottom half (0: a uniform black window)."""
    top = bytes([shade % 256, shade // 256, 40, 0]) * 32
    return Frame(8, 8, top + (top if shade == 0 else bytes([255, 255, 255, 0]) * 32), 0.0)


def play(endings: EpisodeEndings, inputs: list[str], last: Frame, step: int) -> list:
    for i, action in enumerate(inputs):
        endings.note_input(action)
        endings.note_frame(picture(100 + 10 * step + i))  # play goes through pictures of its own
    endings.note_frame(last)
    endings.note_frame(picture(0))  # the closing window's black is in every ending: never counted
    return endings.end(step)


def test_three_episodes_played_differently_that_end_alike_are_dead_input():
    endings = EpisodeEndings()
    assert play(endings, ['press("enter")', 'press("down")', 'press("left")'], picture(9), 5) == []
    assert play(endings, ['press("enter")', 'press("up")', 'press("up")'], picture(9), 11) == []
    found = play(endings, ['press("enter")', 'press("right")', 'press("p")', 'press("down")'], picture(9), 18)
    assert [(f.kind, f.step, f.fatal) for f in found] == [("no-response", 18, True)]
    assert "same picture" in found[0].message and found[0].evidence["episodes"] == 3
    assert play(endings, ['press("enter")', 'press("left")', 'press("p")'], picture(9), 25) == []  # said once


def test_endings_that_differ_or_the_same_play_say_nothing():
    endings = EpisodeEndings()
    for step, shade in enumerate([1, 2, 1]):
        assert play(endings, ['press("enter")', 'press("down")', f'press("{shade}")'], picture(shade), step) == []
    same_inputs = EpisodeEndings()
    for step in range(4):  # the same inputs may well end the same way: that is determinism, not dead input
        assert play(same_inputs, ['press("enter")', 'press("down")', 'press("up")'], picture(3), step) == []


def test_an_episode_hardly_played_breaks_the_series():
    endings = EpisodeEndings()
    assert play(endings, ['press("enter")', 'press("down")', 'press("left")'], picture(5), 1) == []
    assert play(endings, ['press("enter")'], picture(5), 2) == []  # one input: proves nothing
    assert play(endings, ['press("enter")', 'press("up")', 'press("left")'], picture(5), 3) == []
    assert play(endings, ['press("enter")', 'press("right")', 'press("up")'], picture(5), 4) == []
    assert play(endings, ['press("enter")', 'press("p")', 'press("up")'], picture(5), 5) != []
