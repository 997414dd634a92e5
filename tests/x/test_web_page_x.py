"""A web page in its browser window: widgets with boxes from the DOM, X clicks and keys reach the page, the
loop's idle answer, console output in the program's log, and every browser process gone after shutdown."""

from __future__ import annotations

import shutil
import time

import psutil
import pytest

from app.engine.play.actions import Click, Press
from app.engine.play.display import start_xvfb
from app.engine.play.player import Player
from app.engine.play.targetspec import load_spec

from suite import TARGETS, needs_xvfb

needs_chromium = pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")


def count_shown(player: Player) -> str:
    inside = player.target.inside
    result = inside.devtools.call("Runtime.evaluate", {"expression": "document.getElementById('count').textContent",
                                                       "returnByValue": True}, session=inside._session)
    return result["result"]["value"]


@needs_xvfb
@needs_chromium
def test_widgets_real_input_idle_and_console_of_a_page():
    spec = load_spec(TARGETS / "web_counter")
    display = start_xvfb(spec.size)
    player = Player(spec, display, 3, time.sleep)
    try:
        player.start()
        assert player.settle_source == "inside"
        target = player.target
        widgets = {w.text: w for w in target.inside.widgets()}
        assert set(widgets) == {"Add one", "Reset"}
        x0, y0, x1, y1 = widgets["Add one"].box
        assert widgets["Add one"].kind == "button" and 30 <= x0 < x1 <= 250 and 100 <= y0 < y1 <= 300
        player.executor.execute(Click((x0 + x1) // 2, (y0 + y1) // 2))
        player.observer.settle(player.observer.capture())
        player.executor.execute(Press("up"))
        player.observer.settle(player.observer.capture())
        assert count_shown(player) == "2"
        idle = target.inside.idle(2.0)
        assert idle is not None and idle.idle and idle.next_timer_ms is None
        inside = target.inside
        inside.devtools.call("Runtime.evaluate", {"expression": "console.error('out of cheese')"},
                             session=inside._session)
        deadline = time.monotonic() + 5
        while not any("out of cheese" in text for _, _, text in target.lines()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ("stderr", "console.error: out of cheese") in [(s, t) for s, _, t in target.lines()]
        tree = [target.pid, *(p.pid for p in psutil.Process(target.pid).children(recursive=True))]
        assert len(tree) >= 4  # the launcher, the browser and its helpers: all in the sandbox's tree
    finally:
        if player.target is not None:
            player.target.shutdown()
        display.close()
    assert not any(psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE for pid in tree)
