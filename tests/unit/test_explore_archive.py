"""Go-Explore's archive, returns and tester plans, on frames and programs of their own."""

from __future__ import annotations

import random

import numpy as np

from app.engine.play.actions import Click, DoubleClick, Hotkey, Press, Scroll, Type
from app.engine.play.observer import Frame
from app.engine.testers.explore.archive import Archive, cell_key, coverage_bucket, picture_key
from app.engine.testers.explore.forms import entry_plans, list_plans, shortcut_action, surface_plans
from app.engine.testers.explore.keys_from_code import ReadInputs
from app.engine.testers.explore.returns import Returner


def frame(draw: list[tuple[int, int, int, int, int]], w: int = 220, h: int = 160) -> Frame:
    """A window of grey 40 with rectangles (x0, y0, x1, y1, grey) drawn on it."""
    arr = np.full((h, w, 4), 40, dtype=np.uint8)
    for x0, y0, x1, y1, grey in draw:
        arr[y0:y1, x0:x1, :3] = grey
    return Frame(w, h, arr.tobytes(), 0.0)


def test_a_glow_is_the_same_cell_a_new_panel_is_another():
    board = frame([(10, 10, 30, 30, 200)])
    glowing = frame([(10, 10, 30, 30, 200), (100, 100, 102, 102, 250)])  # two pixels brighter
    panel = frame([(10, 10, 30, 30, 200), (40, 40, 180, 120, 240)])  # a GAME OVER panel
    assert cell_key(board) == cell_key(glowing)
    assert cell_key(board) != cell_key(panel)
    assert cell_key(board, 40) != cell_key(board, 4)  # more code run: another cell on the same screen
    assert coverage_bucket(0) == 0 and coverage_bucket(5) == coverage_bucket(7) != coverage_bucket(8)


def test_archive_keeps_the_shortest_prefix_and_prefers_cells_chosen_less():
    archive = Archive()
    long_way = ((0, Press("right")), (10, Press("right")), (20, Press("up")))
    assert archive.visit("start", (), "p0")  # the start: a restart alone, never chosen to return to
    assert archive.visit("a", ((0, Press("space")),), "pa")
    assert archive.visit("b", long_way, "pb")
    assert not archive.visit("b", long_way[2:], "pb2")
    assert archive.cells["b"].prefix == long_way[2:] and archive.cells["b"].visits == 2
    rng = random.Random(0)
    picks = [archive.choose(rng) for _ in range(40)]
    chosen = {k: archive.cells[k].chosen for k in "ab"}
    assert all(p is not None for p in picks) and abs(chosen["a"] - chosen["b"]) <= 10  # weights even out
    archive.credit("b", found=3)  # exploring from b found new cells: b is chosen more from now on
    later = [archive.choose(rng) for _ in range(100)]
    assert sum(c is not None and c.key == "b" for c in later) > 55
    assert archive.choose(rng, max_prefix=0) is None  # no way back is that short
    archive.unreliable("b")
    assert all(archive.choose(rng).key == "a" for _ in range(10))  # type: ignore[union-attr]


class Program:
    """A program on a frame gate, as a return sees it."""

    def __init__(self) -> None:
        self.frames, self.lockstep = 0, True

    def catch_up(self, frames: int) -> None:
        self.frames = max(self.frames, frames)


def test_a_return_restarts_then_replays_each_input_at_its_frame():
    archive = Archive()
    target = frame([(50, 50, 90, 90, 220)])
    archive.visit("x", ((5, Press("space")), (30, Press("left"))), picture_key(target))
    returner = Returner()
    returner.ask(archive.cells["x"])
    assert returner.wants_restart() and returner.next_input(Program()) is None  # not before the restart
    returner.restarted()
    program = Program()
    first = returner.next_input(program)
    assert first == (Press("space"), 1, 2) and program.frames == 5
    assert returner.next_input(program) == (Press("left"), 2, 2) and program.frames == 30
    assert returner.next_input(program) is None
    assert returner.arrive(target) is archive.cells["x"] and returner.done == 1
    # A replay that ends elsewhere (a program off the gate that drifted) marks the cell unreliable.
    returner.ask(archive.cells["x"])
    returner.restarted()
    while returner.next_input(program) is not None:
        pass
    assert returner.arrive(frame([])) is None and archive.cells["x"].unreliable and returner.failed == 1


def test_tester_plans_for_entries_lists_and_surfaces():
    plans = entry_plans((10, 10, 110, 30))
    typed = [a.text for p in plans for a in p.actions if isinstance(a, Type)]
    assert {"0", "-1", "3.14", "12+", "1/0"} <= set(typed)
    assert any(len(t) >= 30 for t in typed) and typed.count("same") == 2
    empty = next(p for p in plans if p.name.startswith("nothing"))
    assert empty.actions[0] == Click(60, 20) and empty.actions[-1] == Press("enter")
    assert not any(isinstance(a, Type) for a in empty.actions)
    rows = list_plans((0, 40, 200, 140), ReadInputs(keys=["ctrl+d"]))
    assert rows[0].actions == (Click(100, 50), Press("delete"))
    assert any(isinstance(p.actions[0], DoubleClick) for p in rows)
    assert any(isinstance(p.actions[0], Scroll) for p in rows)
    assert any(p.actions == (Click(100, 50), Hotkey(("ctrl", "d"))) for p in rows)
    # Beside buttons: the row is selected, then each button clicked, those that act on a selection first.
    beside = list_plans((0, 40, 200, 140), ReadInputs(), [((0, 0, 40, 20), "New"), ((50, 0, 90, 20), "Remove")])
    assert beside[1].actions == (Click(100, 50), Click(70, 10)) and "'Remove'" in beside[1].name
    assert beside[2].actions == (Click(100, 50), Click(20, 10))
    assert surface_plans((0, 0, 100, 100), ReadInputs()) == []  # reads no right button: no context menu
    assert [p.actions[0].name for p in surface_plans((0, 0, 100, 100), ReadInputs(buttons={"right", "drag"}))] \
        == ["right_click", "drag"]
    assert shortcut_action("Ctrl+N") == Hotkey(("ctrl", "n"))
    assert shortcut_action("Ctrl-S") == Hotkey(("ctrl", "s"))
    assert shortcut_action("F5") == Press("f5")
