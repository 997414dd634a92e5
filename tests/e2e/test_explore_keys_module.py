"""Keys read from a turtle program's bindings and from the module a ``python -m`` command runs (an installed
game keeps no source in its target folder); a turtle canvas that reads clicks is clicked over a grid."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.engine.run.session import RunConfig, Session
from app.engine.testers.explore.explorer import Explorer
from app.engine.testers.explore.keys_from_code import (engine_python, inputs_from_source, inputs_from_target,
                                                        module_file, run_module)
from app.engine.trace.store import TrajectoryStore

from suite import TARGETS, needs_xvfb

TURTLE = '''
import turtle
from turtle import onkey, onkeypress, onscreenclick, listen, bye
onkey(lambda: move(0, 1), "Up")
onkey(lambda: move(1, 0), 'Right')
onkeypress(fire, key="space")
onkey(lambda: color("red"), "R")
onkey(bye, "Escape")
turtle.onkey(lambda: screen.bye(), "q")
onkey(lambda letter=letter: press(letter), letter)
onscreenclick(tap)
pen.onclick(turn, 3)
listen()
'''


def test_turtle_bindings_and_mouse_hooks():
    found = inputs_from_source(TURTLE)
    assert found.keys == ["up", "right", "space", "R", "escape", "q"]  # "R" is a capital R's keysym
    assert found.quits == {"escape", "q"}
    assert found.buttons == {"left", "right"}
    assert not found.text
    assert inputs_from_source("onkeypress(stop)\nondrag(draw)").text  # no key: every key reaches the handler
    assert inputs_from_source("ondrag(draw)").buttons == {"drag"}


def test_keys_that_leave_the_event_loop_end_the_program():
    found = inputs_from_source('''
while True:
    for e in pygame.event.get():
        if e.type == KEYDOWN and e.key == K_ESCAPE:
            return
        if e.key == K_q:
            self.loop = False
        if e.key == K_x:
            done = True
        if e.key == K_SPACE:
            fire()
def on_key(e):
    if e.keysym == "a":
        return
''')
    assert found.quits == {"escape", "q", "x"}
    assert "space" in found.keys and "a" in found.keys


def test_the_module_a_dash_m_command_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A game installed outside the target folder: found on the engine's path without importing it."""
    lib = tmp_path / "lib"
    (lib / "boardgames").mkdir(parents=True)
    (lib / "boardgames" / "__init__.py").write_text("raise RuntimeError('a package is not imported to find it')\n")
    (lib / "boardgames" / "snake.py").write_text('from turtle import *\nonkey(left, "Left")\nonscreenclick(go)\n')
    (lib / "boardgames" / "other.py").write_text('onkey(jump, "space")\n')  # a sibling game is not this one
    (lib / "boardgames" / "__main__.py").write_text('onkey(menu, "Return")\n')
    folder = tmp_path / "target"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(lib))

    assert run_module(["python", "-u", "-m", "boardgames.snake"]) == "boardgames.snake"
    assert run_module(["python", "main.py", "-m", "x"]) is None
    assert module_file("boardgames.snake", folder) == lib / "boardgames" / "snake.py"
    assert module_file("boardgames", folder) == lib / "boardgames" / "__main__.py"
    assert module_file("sys", folder) is None  # built in: no source

    found = inputs_from_target(folder, ("python", "-m", "boardgames.snake"))
    assert found.keys == ["left"] and found.buttons == {"left"}
    assert inputs_from_target(folder, ("python", "-m", "boardgames")).keys == ["enter"]
    # Another interpreter's (or the program's own environment's) modules are not the engine's to read.
    assert not inputs_from_target(folder, ("python", "-m", "boardgames.snake"), "requirements.txt").keys
    assert not inputs_from_target(folder, ("/opt/other/python9", "-m", "boardgames.snake")).keys
    assert engine_python((sys.executable, "-m", "x")) and not engine_python(("/opt/other/python9",))
    assert "boardgames" not in sys.modules


@pytest.mark.xvfb
@needs_xvfb
def test_a_turtle_module_s_keys_are_played_and_its_canvas_clicked_over_a_grid(db_path):
    """tests/targets/arrows_turtle runs ``python -m arrows_game.play``: its arrows are pressed, its canvas
    clicked at distinct points, and Escape (which ends it) is not pressed."""
    store = TrajectoryStore(db_path)
    explorer = Explorer(go_explore=False)
    result = Session(RunConfig(str(TARGETS / "arrows_turtle"), max_steps=16, seed=0), store, tester=explorer).run()
    assert result.status == "completed", result.error
    rows = store.steps(result.run_id)
    store.close()
    actions = [r["action"] for r in rows]
    pressed = {a["key"] for a in actions if a["action"] == "press"}
    clicks = {(a["x"], a["y"]) for a in actions if a["action"] == "click"}
    assert {"up", "down", "left", "right"} <= pressed, actions
    assert "escape" not in pressed and not any(a["action"] == "type" for a in actions), actions
    assert len(clicks) >= 2, actions
    assert any("a point of a grid" in r["rationale"] for r in rows), [r["rationale"] for r in rows]
    assert result.verdict == "pass", result.reason
