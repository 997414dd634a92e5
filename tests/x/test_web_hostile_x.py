"""A hostile page stays in its sandbox: no outside address, no host file, no second window, a download and a
thousand workers contained; a renderer that dies is a crash finding, not a silent window."""

from __future__ import annotations

import shutil
import time

import psutil
import pytest

from app.engine.judge.oracles import GenericOracles
from app.engine.play.display import start_xvfb
from app.engine.play.player import Player
from app.engine.play.targetspec import load_spec
from app.engine.play.xwidgets import TargetWindows

from suite import TARGETS, needs_xvfb

needs_chromium = pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")


@needs_xvfb
@needs_chromium
def test_a_hostile_page_is_contained_and_a_dead_renderer_is_a_crash():
    spec = load_spec(TARGETS / "web_hostile")
    display = start_xvfb(spec.size)
    player = Player(spec, display, 0, time.sleep)
    try:
        player.start()
        target = player.target
        page = target.web.inside
        got = {name: page.evaluate(f"window.{name}()", 20.0)
               for name in ("outside", "byName", "passwd", "popup", "download", "workers")}
        assert got["outside"].startswith("refused") and got["byName"].startswith("refused"), got
        assert got["passwd"].startswith("refused"), got
        assert got["popup"] == "blocked", got
        answers = None
        deadline = time.monotonic() + 60  # a thousand busy workers slow a loaded machine's page down, not off
        while answers != 2 and time.monotonic() < deadline:
            answers = page.evaluate("1 + 1", 5.0)
        assert target.alive() and answers == 2, got  # a thousand workers later it still answers
        assert TargetWindows(target).others() == []  # no second window: window.open is blocked
        tree = [psutil.Process(target.pid), *psutil.Process(target.pid).children(recursive=True)]
        assert sum(p.memory_info().rss for p in tree) < 4 * 1024 ** 3
        page.devtools.call("Page.crash", session=page._session, timeout_s=2.0)
        oracles = GenericOracles(target, player.observer)
        deadline = time.monotonic() + 10
        findings = []
        while not findings and time.monotonic() < deadline:
            time.sleep(0.2)
            findings = oracles._page_errors(3)
        assert findings and findings[0].kind == "crash" and findings[0].fatal
        assert "renderer process ended" in findings[0].message
    finally:
        if player.target is not None:
            player.target.shutdown()
        display.close()
