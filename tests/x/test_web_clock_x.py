"""A canvas game on the held clock (a web page's frame gate) shows the same frames for the same inputs, on an
idle machine and under load: its time, timers, animation frames and Math.random are all the engine's."""

from __future__ import annotations

import hashlib
import shutil
import signal
import subprocess
import sys
import time

import pytest

from app.engine.play.actions import Press
from app.engine.play.display import start_xvfb
from app.engine.play.player import Player
from app.engine.play.targetspec import load_spec

from suite import TARGETS, needs_xvfb

needs_chromium = pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
INPUTS = (None, Press("up"), None, Press("left"), None)


def frames_seen() -> tuple[list[str], int]:
    spec = load_spec(TARGETS / "web_canvas")
    display = start_xvfb(spec.size)
    player = Player(spec, display, 1, time.sleep, gated=True)
    try:
        player.start()
        assert player.lockstep
        hashes = []
        for action in INPUTS:
            if action is not None:
                player.executor.execute(action)
            seen = player.look(None, 0.5)
            hashes.append(hashlib.sha1(seen.frame.array().tobytes()).hexdigest())
        return hashes, player.frames
    finally:
        if player.target is not None:
            player.target.shutdown()
        display.close()


@needs_xvfb
@needs_chromium
def test_the_same_inputs_give_the_same_frames_idle_and_under_load():
    quiet, played = frames_seen()
    assert len(set(quiet)) == len(quiet)  # the game moved between looks
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(3)]
    try:
        loaded, played_loaded = frames_seen()
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    assert loaded == quiet and played_loaded == played


@needs_xvfb
@needs_chromium
def _standing(player: Player, within_s: float = 1.0):
    """The picture once two captures 50 ms apart agree (the compositor shows the last frame drawn)."""
    first = player.observer.capture()
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = player.observer.capture()
        if now.same_as(first):
            break
        first = now
    return first


def test_a_page_stopped_while_the_tester_thinks_stands_still_and_its_time_does_not_jump():
    spec = load_spec(TARGETS / "web_canvas")
    display = start_xvfb(spec.size)
    player = Player(spec, display, 1, time.sleep)
    try:
        player.start()
        target = player.target
        clock = "performance.now()"
        target.signal_program(signal.SIGSTOP)
        stopped_at = target.web.inside.evaluate(clock, 2.0)
        first = _standing(player)  # a frame drawn just before the stop may still reach the screen
        time.sleep(1.0)
        assert player.observer.capture().same_as(first)  # nothing moves while the tester thinks
        assert target.web.inside.evaluate(clock, 2.0) == stopped_at
        target.signal_program(signal.SIGCONT)
        time.sleep(0.3)
        assert not player.observer.capture().same_as(first)  # it runs again...
        assert target.web.inside.evaluate(clock, 2.0) - stopped_at < 900  # ...without the second it stood
    finally:
        if player.target is not None:
            player.target.shutdown()
        display.close()
