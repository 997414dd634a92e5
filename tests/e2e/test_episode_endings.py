"""Episodes that end on the same picture although each was played differently: the game ignores input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from app.engine.judge.episodes import EpisodeEndings
from app.engine.play.observer import Frame
from suite import ROOT, TARGETS, needs_xvfb


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


def test_inputs_sent_on_the_ending_picture_are_not_play():
    """A game whose player dies before steering (a snake that hits the wall at once): what is pressed on its
    game-over screen could not change how the episode ended, so those episodes are hardly played."""
    endings = EpisodeEndings()
    for step, keys in enumerate([["down", "up", "p"], ["left", "p", "up"], ["right", "down", "left"]]):
        endings.note_input('press("enter")', picture(1))  # the start screen: the game begins
        endings.note_frame(picture(2))
        endings.note_frame(picture(9))  # it is over before the next input: GAME OVER
        for key in keys:  # pressed on the game-over screen, which waits and exits
            endings.note_input(f'press("{key}")', picture(9))
            endings.note_frame(picture(9))
        endings.note_frame(picture(0))
        assert endings.end(step) == [], "one input reached play: the episodes say nothing about dead input"


def test_inputs_sent_in_play_before_the_same_ending_still_count():
    endings = EpisodeEndings()
    found = []
    for step, keys in enumerate([["down", "up"], ["left", "p"], ["right", "down"]]):
        endings.note_input('press("enter")', picture(1))
        for i, key in enumerate(keys):  # steering while the game runs, each episode its own way
            endings.note_input(f'press("{key}")', picture(20 + 10 * step + i))
            endings.note_frame(picture(21 + 10 * step + i))
        endings.note_frame(picture(9))
        found = endings.end(step)
    assert [f.kind for f in found] == ["no-response"], "played three ways, ended alike: the input is dead"


@pytest.mark.slow
@needs_xvfb
def test_a_game_lost_before_anyone_can_steer_is_no_dead_input(tmp_path):
    """tests/targets/shortlife_pg: the block hits the wall in a third of a second and GAME OVER stays 3 s, so the
    explorer's keys land on the game-over screen and every episode ends on the same picture; its arrows work."""
    db = tmp_path / "runs.db"
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(TARGETS / "shortlife_pg"), "--tester", "offline",
                           "--max-steps", "24", "--json", "--db", str(db)],
                          capture_output=True, text=True, timeout=400, cwd=ROOT)
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["episodes"] >= 3, summary
    assert not [f for f in summary["findings"] if "same picture" in f["message"]], summary["findings"]
