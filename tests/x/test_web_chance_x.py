"""A page's chances come from the run's seed: Math.random and crypto.getRandomValues give the same picture in
two starts with the same seed, and another picture with another seed."""

from __future__ import annotations

import shutil
import time

import pytest

from app.engine.play.display import start_xvfb
from app.engine.play.player import Player
from app.engine.play.targetspec import load_spec

from suite import TARGETS, needs_xvfb

needs_chromium = pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
DRAWN = ("document.getElementById('drawn').textContent + ' ' + document.getElementById('board').toDataURL()"
         " + ' ' + Math.random() + ' ' + crypto.randomUUID()")


def drawn(seed: int) -> str:
    spec = load_spec(TARGETS / "web_chance")
    display = start_xvfb(spec.size)
    player = Player(spec, display, seed, time.sleep)
    try:
        player.start()
        inside = player.target.inside
        result = inside.devtools.call("Runtime.evaluate", {"expression": DRAWN, "returnByValue": True},
                                      session=inside._session)
        return str(result["result"]["value"])
    finally:
        if player.target is not None:
            player.target.shutdown()
        display.close()


@needs_xvfb
@needs_chromium
def test_the_same_seed_draws_the_same_chances_and_another_seed_others():
    first, again, other = drawn(7), drawn(7), drawn(8)
    assert first.startswith("3 tiles, ") and "data:image/png" in first
    assert first == again
    assert other != first and other.split()[2] != first.split()[2]  # crypto's bytes differ too
