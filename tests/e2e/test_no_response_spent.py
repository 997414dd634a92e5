"""No-response is judged on inputs that could still answer, on a window that is not an end screen.

Three ordinary behaviours of small turtle and Tk programs that read as dead input before:
a place clicked again that has nothing left to do (a full column, a tile already turned),
an answer drawn on the program's next timer tick (after the step was judged), and a game
that animated, ended by design and stands still ignoring everything.  A window dead from
the start is still no-response."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from app.engine.judge.oracles import GenericOracles
from app.engine.play.observer import Frame, Observation

from suite import ROOT, TARGETS, needs_xvfb
from oracle_support import RunningTarget

W, H = 120, 80


def screen(dots: int = 0, ball: int | None = None) -> Frame:
    """A grey window with ``dots`` 10x10 dark dots in a row, and a ball at x ``ball``."""
    arr = np.full((H, W, 4), 200, np.uint8)
    for d in range(dots):
        arr[10:20, 10 + 14 * d:20 + 14 * d, :3] = 30
    if ball is not None:
        arr[50:60, ball:ball + 10, :3] = 0
    return Frame(W, H, arr.tobytes(), 0.0)


def oracles(monkeypatch) -> GenericOracles:
    o = GenericOracles(target=RunningTarget(), observer=None)  # type: ignore[arg-type]
    monkeypatch.setattr(o, "learn_idle", lambda frame, s: 0.0)  # nothing changes by itself
    monkeypatch.setattr(o, "_loop_alive", lambda: True)  # its loop answers: no freeze
    monkeypatch.setattr(o, "_check_unresponsive", lambda step: [])
    monkeypatch.setattr(o, "_check_stopped_animation", lambda step: [])
    return o


def step(o: GenericOracles, n: int, key: str, before: Frame, after: Frame, settled: bool = True,
         control: str | None = None, ticking: bool = False) -> list:
    bbox = None if before.same_as(after) else (0, 0, W, H)
    return o.check_step(n, "click" if key.startswith("click") else "type", before,
                        Observation(after, settled, 10.0, bbox, 1, how="inside", ticking=ticking), action_key=key,
                        control=control)


def test_a_dead_window_is_no_response(monkeypatch):
    o, still, found = oracles(monkeypatch), screen(ball=30), []
    for n in range(12):
        found += step(o, n, "click(60, 40)" if n % 2 else 'type("abc")', still, still)
    assert [f.kind for f in found] == ["no-response"]


def test_a_spent_place_clicked_again_is_no_evidence(monkeypatch):
    """The click drew a dot; clicking the same place again draws it again (nothing changes);
    typed text the program never reads changes nothing either."""
    o, found = oracles(monkeypatch), []
    found += step(o, 0, "click(60, 40)", screen(0), screen(1))
    for n in range(1, 24):
        found += step(o, n, "click(60, 40)" if n % 2 else 'type("abc")', screen(1), screen(1))
    assert found == []


GRID = [f"click({x}, {y})" for x in (30, 60, 90) for y in (20, 40, 60)]


def test_points_of_one_surface_are_spent_together(monkeypatch):
    """Grid points clicked over one board: the board answered at one point and is full now, so the silence of
    the others is a spent control.  The same points, each its own control, are dead input."""
    for shared, expected in ((True, set()), (False, {"no-response"})):
        o, found = oracles(monkeypatch), []
        control = "surface 0,0,120,80" if shared else None
        found += step(o, 0, GRID[0], screen(0), screen(1), control=control)
        for n in range(1, 40):
            found += step(o, n, GRID[n % len(GRID)] if n % 2 else 'type("abc")', screen(1), screen(1),
                          control=control if n % 2 else None)
        assert {f.kind for f in found} == expected


def test_idle_with_a_repeating_timer_due_is_not_proof_of_silence(monkeypatch):
    """A loop idle with its repeating timer due soon may still answer on that tick: such inputs are judged over
    the no-response span of time, not at once as inputs the loop said it handled."""
    for ticking, expected in ((False, ["no-response"]), (True, [])):
        o, found = oracles(monkeypatch), []
        for n in range(12):
            found += step(o, n, GRID[n % len(GRID)] if n % 2 else 'type("abc")', screen(1), screen(1),
                          ticking=ticking)
        assert [f.kind for f in found] == expected


def test_an_answer_drawn_on_the_next_timer_tick_is_an_answer(monkeypatch):
    """The click's dot appeared only after the step was judged (seen between steps, as the
    session notes what changed while the tester thought)."""
    o, found = oracles(monkeypatch), []
    found += step(o, 0, "click(60, 40)", screen(0), screen(0))
    o.note_idle(screen(0), screen(1))
    for n in range(1, 24):
        found += step(o, n, "click(60, 40)" if n % 2 else 'type("abc")', screen(1), screen(1))
    assert found == []


def test_a_game_that_ended_by_itself_is_an_end_screen(monkeypatch):
    """A ball moved by itself (steps not settled), then the game ended and stands still:
    keys and clicks change nothing on its end screen."""
    o, found = oracles(monkeypatch), []
    o.animated = True
    for n in range(3):
        found += step(o, n, 'type("abc")', screen(ball=10 * n), screen(ball=10 * n + 10), settled=False)
    for n in range(3, 27):
        found += step(o, n, "click(60, 40)" if n % 2 else 'type("abc")', screen(ball=30), screen(ball=30))
    assert found == []


class _Quitting(RunningTarget):
    """A program whose window went one colour and whose process ends a moment later (code 0)."""

    returncode = 0
    log = type("Log", (), {"count": 0})()

    def __init__(self) -> None:
        self.checks = 0

    def alive(self) -> bool:
        self.checks += 1
        return self.checks < 3

    def drain_output(self) -> None:
        pass

    def lines(self, start: int = 0) -> list:
        return []


def test_a_window_cleared_as_its_program_quits_is_an_exit_not_blank():
    o = GenericOracles(target=_Quitting(), observer=None, sleep=lambda s: None)  # type: ignore[arg-type]
    black = Frame(W, H, np.zeros((H, W, 4), np.uint8).tobytes(), 0.0)
    found = o._common(black, 0) + o._common(black, 1)
    assert [f.kind for f in found] == ["exit"]


@pytest.mark.slow
@needs_xvfb
def test_a_turtle_board_with_full_columns_passes_the_offline_tester(tmp_path):
    """tests/targets/dots_turtle: a dot per click on its next timer tick, a full column takes no more."""
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(TARGETS / "dots_turtle"), "--tester", "offline",
                           "--seed", "0", "--duration", "15", "--json", "--db", str(tmp_path / "runs.sqlite")],
                          capture_output=True, text=True, timeout=240, cwd=ROOT)
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["verdict"] == "pass", summary
    assert summary["steps"] >= 12, summary  # enough inputs for the no-response window to have been judged


def test_a_few_blind_points_of_a_board_are_one_input_not_yet_gone_round(monkeypatch):
    """A board that answers only on its pieces (nim's sticks), its grid points missing them, and two keys that do
    nothing in this state: the points are one input tried once, no evidence of dead input.  The same board clicked
    at each point twice, or the same points each its own control, are dead input."""
    surface = "surface 0,0,120,80"
    for points, rounds, control, expected in ((GRID[:5], 1, surface, []), (GRID[:3], 2, surface, ["no-response"]),
                                              (GRID[:5], 1, None, ["no-response"])):
        o, found = oracles(monkeypatch), []
        inputs = ['press("escape")', 'press("space")'] + points * rounds
        inputs += ['press("escape")', 'press("space")'] * ((12 - len(inputs) + 1) // 2)
        for n, key in enumerate(inputs):
            found += step(o, n, key, screen(1), screen(1), control=control if key.startswith("click") else None)
        assert [f.kind for f in found] == expected, (len(points), rounds, control)
