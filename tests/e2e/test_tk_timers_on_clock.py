"""Tk timers on the engine's clock in lockstep play: a Tk animation moves by the engine's steps, so a candidate
and its references show the same moment of it (Tk games on ``ontimer`` diverged from themselves)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time

import pytest

from app.engine.play.actions import Press
from app.engine.play.display import ISOLATED, open_display
from app.engine.play.player import Player
from app.engine.play.targetspec import load_spec

from suite import ROOT, TARGETS, needs_xvfb

pytestmark = needs_xvfb
TICKER = TARGETS / "ticker_tk"
ANIMATE = TARGETS / "animate_tk"


def _ticks(player: Player) -> int | None:
    assert player.target is not None
    widgets = player.target.inside.widgets() or []
    texts = [w.text for w in widgets if w.kind == "label" and w.text.startswith("ticks ")]
    return int(texts[0].split()[1]) if texts else None


def _until_ticks(player: Player, want: int, timeout: float = 5.0) -> int | None:
    deadline = time.monotonic() + timeout
    seen = None
    while time.monotonic() < deadline:
        seen = _ticks(player)
        if seen == want:
            return seen
        time.sleep(0.05)
    return seen


@pytest.fixture
def played():
    made: list[tuple[Player, object]] = []

    def start(steps_clock: bool, target=TICKER) -> Player:
        spec = load_spec(target)
        display = open_display(ISOLATED, spec.size)
        player = Player(spec, display, 0, time.sleep, gated=True, steps_clock=steps_clock)
        made.append((player, display))
        player.start()
        return player

    yield start
    for player, display in made:
        player.stop()
        display.close()  # type: ignore[attr-defined]


def test_timers_fire_as_the_engine_moves_its_clock_on_and_not_before(played):
    player = played(True)
    assert _until_ticks(player, 0) == 0
    time.sleep(0.4)  # ten ticks of wall time: none fires, the engine's time stands
    assert _ticks(player) == 0
    player.advance_clock(0.2)
    assert _until_ticks(player, 5) == 5  # 40 ms timers up to 0.2 s: exactly five, each rescheduling the next
    time.sleep(0.3)
    assert _ticks(player) == 5
    player.advance_clock(0.4)
    assert _until_ticks(player, 15) == 15
    report = player.target.inside.idle(2.0)  # type: ignore[union-attr]
    # The next tick is due at the engine's next step: it holds no step, and may answer an input then.
    assert report is not None and report.idle and report.repeating
    assert report.next_timer_ms is not None and report.next_timer_ms <= 40.0


def test_without_the_steps_clock_a_tk_program_keeps_the_machines_timers(played):
    player = played(False)
    deadline = time.monotonic() + 5
    while (first := _ticks(player)) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert first is not None, "the ticker shows no count"
    time.sleep(0.5)
    assert (_ticks(player) or 0) >= first + 5  # the offline tester moves no clock on: the animation runs on its own


def _differential(candidate, db) -> dict:
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(candidate), "--reference", str(TICKER),
                           "--tester", "differential", "--no-script", "--max-steps", "8", "--json", "--db", str(db)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_differential_play_compares_a_moving_tk_window_and_sees_a_motion_bug(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(TICKER, copy)
    same = _differential(copy, tmp_path / "same.db")
    assert same["verdict"] == "pass", same
    fast = tmp_path / "fast"
    shutil.copytree(TICKER, fast)
    main = fast / "main.py"
    main.write_text(main.read_text().replace("STEP_PX = 4", "STEP_PX = 5"))
    caught = _differential(fast, tmp_path / "fast.db")
    assert caught["verdict"] == "fail", caught
    assert "diverged at step" in caught["reason"] or "diverged at start" in caught["reason"], caught


NESTED = r'''
import json, sys, time, tkinter as tk
sys.path.insert(0, sys.argv[1])
import _playcoder_tk

log, replies, clock = [], [], [0.0]


class Channel:
    def send(self, message):
        replies.append((message, list(log)))


adapter = _playcoder_tk.TkAdapter(Channel(), tk, lambda: clock[0])
root = tk.Tk()


def tick():
    log.append("tick")
    if len(log) == 1:
        adapter.ask("idle", 1)  # the engine's question arrives while the first tick runs
    root.update()  # turtle's update(): Tk's idle callbacks run here, within the tick
    root.after(40, tick)
    log.append("scheduled")


root.after(40, tick)
clock[0] = 0.1  # the engine moves on: the ticks due at 0.04 and 0.08 fire
end = time.monotonic() + 5
while not replies and time.monotonic() < end:
    root.update()
    time.sleep(0.005)
print(json.dumps({"log": replies[0][1] if replies else None, "reply": replies[0][0] if replies else None}))
'''


def test_an_idle_question_asked_within_a_ticks_update_is_answered_after_the_due_ticks(xvfb):
    """Turtle's update() runs idle callbacks within a tick: an idle answer given there would let the engine send
    the next input before the tick has scheduled its successor, and the input would land between ticks in one run
    and after them in another."""
    seeding = ROOT / "app" / "engine" / "play" / "seeding"
    proc = subprocess.run([sys.executable, "-c", NESTED, str(seeding)], capture_output=True, text=True, timeout=60,
                          env={**__import__("os").environ, "DISPLAY": xvfb.name})
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["log"] == ["tick", "scheduled", "tick", "scheduled"], out
    assert out["reply"]["idle"] is True and out["reply"]["repeating"] is True


def _label(player: Player) -> str:
    assert player.target is not None
    widgets = player.target.inside.widgets() or []
    return next((w.text for w in widgets if w.kind == "label"), "")


@pytest.mark.parametrize("steps_clock", [True, False], ids=["lockstep", "off-the-clock"])
def test_a_handler_animating_with_update_holds_the_idle_answer_in_lockstep_only(played, steps_clock):
    """In lockstep play the next input must reach a handler's animation at the same point in the candidate and
    its references: the idle answer waits for the handler to return (a turtle demo stopped mid-animation showed
    a block wherever the machine's pace had taken it).  Off the engine's clock it is answered within the
    handler's update(), as before."""
    player = played(steps_clock, ANIMATE)
    assert player.target is not None and player.executor is not None
    deadline = time.monotonic() + 5
    while _label(player) != "ready" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _label(player) == "ready"
    t0 = time.monotonic()
    player.executor.execute(Press("space"))
    time.sleep(0.2)  # the handler runs: its frames take 1.2 s
    report = player.target.inside.idle(5.0)
    waited = time.monotonic() - t0
    label = _label(player)
    assert report is not None and report.idle
    if steps_clock:
        assert label == "done" and waited >= 1.0, (label, waited)
    else:
        assert label.startswith("frame"), (label, waited)
