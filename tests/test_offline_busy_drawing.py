"""The freeze oracle from inside: a loop that is away but keeps drawing new pictures runs (busy, not frozen);
one that drew once and then hung is frozen (tests/test_idle_settle.py holds that case)."""

from __future__ import annotations

import time
from pathlib import Path

from app.engine.judge.oracles import GenericOracles
from app.engine.play.actions import Click
from app.engine.play.display import start_xvfb
from app.engine.play.player import Player
from app.engine.play.targetspec import load_spec

FLASH_TK = Path(__file__).resolve().parent / "targets" / "flash_tk"


def test_a_handler_that_keeps_drawing_longer_than_freeze_s_is_no_freeze() -> None:
    spec = load_spec(FLASH_TK)
    display = start_xvfb(spec.size)
    player = Player(spec, display, 0, time.sleep)
    try:
        player.start()
        assert player.target is not None and player.observer is not None and player.executor is not None
        assert player.target.inside.wait_hello(5.0)
        oracles = GenericOracles(player.target, player.observer, timing=spec.timing)
        before = player.settle(1.0, 0.08)
        player.executor.execute(Click(150, 160))  # "Go": 4 s of flashes, freeze_s is 1.5 s
        after = player.observer.settle(before.frame, cap_s=0.5, quiet_s=0.08)
        assert after.how == "inside" and after.busy
        t0 = time.monotonic()
        findings = oracles.check_step(0, "click", before.frame, after)
        assert not [f for f in findings if f.kind == "freeze"], findings
        assert time.monotonic() - t0 >= 2.0  # it waited for the loop, and the loop came back
        assert player.target.alive()
    finally:
        player.stop()
        display.close()
