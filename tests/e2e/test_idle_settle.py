"""Settling from inside: the step's picture is taken when the program says its loop is idle.

The waiting rules are checked on a scripted probe (no X needed); the rest on real programs under
Xvfb: the three-button Tk program (reactions at once, 150 ms and 400 ms later by ``after``, and a
dot blinking by a repeating ``after``), the same program written in Tcl for wish (nothing inside
answers: pixel settling), a Tk program whose loop hangs (a freeze known from inside) and one whose loop
is away drawing new pictures for 4 s (busy, not frozen).
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest

from app.engine.judge.oracles import GenericOracles
from app.engine.play.actions import Click, Press
from app.engine.play.display import start_xvfb
from app.engine.play.executor import EVENT_LOOP_PACE, PERSON_PACE
from app.engine.errors import UserError
from app.engine.play.idle_settle import MAX_TIMER_WAITS, SETTLE_ENV, TIMER_SLACK_S, settle_mode, settle_on_idle
from app.engine.play.inside import IdleReport
from app.engine.play.observer import Frame, Observation
from app.engine.play.player import Player
from app.engine.play.targetspec import load_spec
from app.engine.run.session import RunConfig, Session
from app.engine.trace.store import TrajectoryStore

ROOT = Path(__file__).resolve().parents[2]
DELAYS_TK = ROOT / "benchmark" / "targets" / "delays_tk"
DELAYS_WISH = ROOT / "tests" / "targets" / "delays_wish"
FREEZE_TK = ROOT / "tests" / "targets" / "freeze_tk"
FLASH_TK = ROOT / "tests" / "targets" / "flash_tk"
BUTTONS = ((80, 32), (240, 32), (400, 32))
LABELS = ((24, 62, 136, 99), (185, 62, 297, 99), (345, 62, 457, 99))
"""The three buttons (now, 150 ms, 400 ms) and each one's count, in both delay programs."""


def test_the_settling_asked_for_in_the_environment() -> None:
    assert settle_mode({}) == "auto" and settle_mode({SETTLE_ENV: "inside"}) == "auto"
    assert settle_mode({SETTLE_ENV: " Pixels "}) == "pixels"
    with pytest.raises(UserError, match="PLAYCODER_SETTLE='paint' is not a settling"):
        settle_mode({SETTLE_ENV: "paint"})


# -- the waiting rules, on a scripted probe ---------------------------------------------------
class ScriptedProbe:
    """Answers idle questions from a script; ``None`` entries answer nothing after ``silent_s``."""

    available = True
    toolkit = "tk"

    def __init__(self, answers: list[IdleReport | None], silent_s: float = 0.0) -> None:
        self.answers = answers
        self.silent_s = silent_s
        self.asked = 0

    def idle(self, timeout_s: float) -> IdleReport | None:
        answer = self.answers[min(self.asked, len(self.answers) - 1)]
        self.asked += 1
        if answer is None:
            time.sleep(min(timeout_s, self.silent_s))
        return answer


def frames(*pixels: int) -> Iterator[Frame]:
    """One 2×1 frame per value, then the last one for ever."""
    last = pixels[-1]
    for p in (*pixels, *[last] * 100):
        yield Frame(2, 1, bytes([p, p, p, 0]) * 2, 0.0)


IDLE = IdleReport(True, None, False)


def test_settles_at_the_second_equal_idle_picture_without_waiting() -> None:
    sleeps: list[float] = []
    pics = frames(1)
    seen = settle_on_idle(lambda: next(pics), ScriptedProbe([IDLE]), cap_s=1.0, sleep=sleeps.append)
    assert seen.settled and seen.answered and not seen.busy
    assert seen.samples == 2 and seen.timers == 0
    assert max(sleeps) < TIMER_SLACK_S  # only the tiny gap between the two pictures


def test_waits_for_a_one_shot_timer_due_soon_but_not_for_repeating_or_distant_ones() -> None:
    sleeps: list[float] = []
    pics = frames(1)
    soon = IdleReport(True, 150.0, False)
    seen = settle_on_idle(lambda: next(pics), ScriptedProbe([soon, IDLE]), cap_s=1.0, sleep=sleeps.append)
    assert seen.settled and seen.timers == 1
    assert pytest.approx(0.150 + TIMER_SLACK_S) in sleeps
    for report in (IdleReport(True, 100.0, True), IdleReport(True, 5000.0, False)):
        sleeps.clear()
        pics = frames(1)
        seen = settle_on_idle(lambda: next(pics), ScriptedProbe([report]), cap_s=1.0, sleep=sleeps.append)
        assert seen.settled and seen.timers == 0 and max(sleeps) < TIMER_SLACK_S


def test_a_chain_of_one_shots_or_a_timer_that_never_fires_does_not_hold_the_step() -> None:
    sleeps: list[float] = []
    pics = frames(1)
    chain = IdleReport(True, 50.0, False)  # a poll that schedules a new callback each time
    seen = settle_on_idle(lambda: next(pics), ScriptedProbe([chain]), cap_s=1.0, sleep=sleeps.append)
    assert seen.settled and seen.timers == MAX_TIMER_WAITS
    overdue = IdleReport(True, 0.0, False)  # cancelled behind the wrapper's back: it stays overdue
    seen = settle_on_idle(lambda: next(pics), ScriptedProbe([overdue]), cap_s=1.0, sleep=sleeps.append)
    assert seen.settled and seen.timers == 1


def test_a_picture_that_changed_is_confirmed_by_another_idle_answer() -> None:
    pics = frames(1, 2, 2)  # the first idle picture was taken before the paint reached the screen
    seen = settle_on_idle(lambda: next(pics), ScriptedProbe([IDLE]), cap_s=1.0, sleep=lambda s: None)
    assert seen.settled and seen.samples == 3 and seen.frame is not None and seen.frame.bgrx[0] == 2
    moving = frames(*range(1, 100))  # a new picture at every answer: an animation, looked at after moving_s
    seen = settle_on_idle(lambda: next(moving), ScriptedProbe([IDLE]), cap_s=1.0, moving_s=0.0,
                          sleep=lambda s: None)
    assert not seen.settled and seen.answered


def test_no_answer_falls_back_and_a_silent_loop_is_busy() -> None:
    pics = frames(1)
    broken = settle_on_idle(lambda: next(pics), ScriptedProbe([None]), cap_s=1.0, sleep=lambda s: None)
    assert not broken.answered  # answered nothing at once: the caller settles from pixels
    busy = settle_on_idle(lambda: next(pics), ScriptedProbe([None], silent_s=1.0), cap_s=0.2,
                          sleep=lambda s: None)
    assert busy.answered and busy.busy and not busy.settled and busy.frame is not None


# -- real programs ------------------------------------------------------------------------------
def _reacted(before: Frame, after: Frame, button: int) -> bool:
    x0, y0, x1, y1 = LABELS[button]
    return not np.array_equal(before.array()[y0:y1, x0:x1, :3], after.array()[y0:y1, x0:x1, :3])


def _step(player: Player, before: Observation, button: int, sleeps: list[float]) -> Observation:
    """Click a button and settle as the session does a still window's step."""
    assert player.executor is not None and player.observer is not None
    timing = player.spec.timing

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        time.sleep(seconds)

    player.executor.execute(Click(*BUTTONS[button]))
    return player.observer.settle(before.frame, cap_s=timing.settle_cap_ms / 1000, quiet_s=timing.quiet_ms / 1000,
                                  react_s=timing.react_ms / 1000, moving_s=timing.animated_cap_ms / 1000,
                                  sleep=sleep)


def test_each_reaction_is_recorded_in_the_step_that_caused_it() -> None:
    spec = load_spec(DELAYS_TK)
    display = start_xvfb(spec.size)
    player = Player(spec, display, 0, time.sleep)
    try:
        player.start()
        assert player.target is not None and player.executor is not None
        assert player.target.inside.wait_hello(5.0)
        assert player.settle_source == "inside" and player.executor.pace == EVENT_LOOP_PACE
        player.executor.execute(Press("a"))  # the entry has the keys: its caret blinks too
        obs = player.settle(1.0, 0.08)
        for button in (0, 1, 2, 2, 1, 0):
            sleeps: list[float] = []
            after = _step(player, obs, button, sleeps)
            assert after.how == "inside" and after.settled
            assert _reacted(obs.frame, after.frame, button), f"button {button}: its reaction came after its step"
            others = [b for b in range(3) if b != button]
            assert not any(_reacted(obs.frame, after.frame, b) for b in others)
            assert after.busy_ms is not None and after.waited_ms is not None
            assert abs(after.busy_ms + after.waited_ms - after.settle_ms) < 0.01
            if button == 0:  # the blinking dot's repeating timer (500 ms) never holds a step
                assert max(sleeps) < 0.05, sleeps
            else:  # the one-shot reaction was waited for: the program was busy until it had painted
                assert max(sleeps) >= 0.1, sleeps
                assert after.busy_ms >= 100 * button, after
            obs = after
    finally:
        player.stop()
        display.close()


def test_a_program_that_cannot_be_asked_is_settled_from_pixels() -> None:
    spec = load_spec(DELAYS_WISH)
    display = start_xvfb(spec.size)
    player = Player(spec, display, 0, time.sleep)
    try:
        player.start()
        assert player.target is not None and player.executor is not None
        assert not player.target.inside.wait_hello(0.5)  # Tcl: nothing inside says hello
        assert player.settle_source == "pixels" and player.executor.pace == PERSON_PACE
        obs = player.settle(1.0, 0.08)
        for button in (0, 1):
            after = _step(player, obs, button, [])
            assert after.how == "pixels" and after.settled
            assert _reacted(obs.frame, after.frame, button)
            obs = after
    finally:
        player.stop()
        display.close()


@pytest.mark.parametrize("target,settle,forced", [(DELAYS_TK, "inside", ""), (DELAYS_WISH, "pixels", ""),
                                                  (DELAYS_TK, "pixels", "pixels")])
def test_the_run_says_how_it_settled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: Path, settle: str,
                                     forced: str) -> None:
    """PLAYCODER_SETTLE=pixels settles even a program that can be asked from inside from pixels."""
    monkeypatch.setenv(SETTLE_ENV, forced)
    store = TrajectoryStore(tmp_path / "runs.db")
    result = Session(RunConfig(target=str(target), max_steps=2, film_fps=0), store).run()
    assert result.status == "completed" and result.run_id is not None, result.error
    assert json.loads(store.run(result.run_id)["config"])["settle"] == settle
    for step in store.steps(result.run_id):  # per step, the program's share of the settle time and the engine's
        assert step["busy_ms"] is not None and abs(step["busy_ms"] + step["waited_ms"] - step["settle_ms"]) < 0.05
    store.close()


@contextlib.contextmanager
def _clicked_into_a_busy_loop(folder: Path, at: tuple[int, int]) -> Iterator[tuple[Player, GenericOracles,
                                                                                 Observation, Observation]]:
    """Start ``folder``'s program, click ``at`` (a button whose handler keeps the loop away) and settle: the
    player, its oracles, and the observations before and after (the loop said busy from inside)."""
    spec = load_spec(folder)
    display = start_xvfb(spec.size)
    player = Player(spec, display, 0, time.sleep)
    try:
        player.start()
        assert player.target is not None and player.observer is not None and player.executor is not None
        assert player.target.inside.wait_hello(5.0)
        oracles = GenericOracles(player.target, player.observer, timing=spec.timing)
        before = player.settle(1.0, 0.08)
        player.executor.execute(Click(*at))
        after = player.observer.settle(before.frame, cap_s=0.5, quiet_s=0.08)
        assert after.how == "inside" and after.busy
        yield player, oracles, before, after
    finally:
        player.stop()
        display.close()


def test_a_loop_that_does_not_come_back_is_a_freeze_known_from_inside() -> None:
    with _clicked_into_a_busy_loop(FREEZE_TK, (150, 90)) as (_, oracles, before, after):  # "Go": never returns
        findings = oracles.check_step(0, "click", before.frame, after)
    freeze = [f for f in findings if f.kind == "freeze"]
    assert freeze and freeze[0].fatal and freeze[0].evidence["idle_probe"] is False
    assert "asked from inside" in freeze[0].message


def test_a_handler_that_keeps_drawing_longer_than_freeze_s_is_no_freeze() -> None:
    """A loop that is away but keeps drawing new pictures runs (busy, not frozen)."""
    with _clicked_into_a_busy_loop(FLASH_TK, (150, 160)) as (player, oracles, before, after):  # 4 s of flashes
        t0 = time.monotonic()
        findings = oracles.check_step(0, "click", before.frame, after)
        assert not [f for f in findings if f.kind == "freeze"], findings
        assert time.monotonic() - t0 >= 2.0  # it waited for the loop (freeze_s is 1.5 s), and the loop came back
        assert player.target is not None and player.target.alive()

@pytest.mark.parametrize("hold_ms", [0, 30])
def test_a_declared_hold_changes_only_the_hold_not_the_pace(tmp_path: Path, hold_ms: int) -> None:
    """A Tk program that declares `hold_ms` keeps the event loop's pace (no approach, settle or park
    pauses of a person's pace); only its press-to-release hold is the declared one."""
    import shutil

    folder = tmp_path / "held"
    shutil.copytree(DELAYS_TK, folder)
    toml = folder / "playcoder.toml"
    text = toml.read_text()
    assert "[timing]" not in text
    toml.write_text(text + f"\n[timing]\nhold_ms = {hold_ms}\n")
    spec = load_spec(folder)
    assert spec.timing.hold_ms == hold_ms
    display = start_xvfb(spec.size)
    player = Player(spec, display, 0, time.sleep)
    try:
        player.start()
        assert player.target is not None and player.executor is not None
        assert player.target.inside.wait_hello(5.0)
        pace = player.executor.pace
        assert (pace.approach_s, pace.move_settle_s, pace.park_delay_s) == (0.0, 0.0, 0.0)
        assert player.executor.button_hold_s == hold_ms / 1000
        assert player.executor.key_hold_s == hold_ms / 1000
    finally:
        player.stop()
        display.close()
