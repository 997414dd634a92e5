"""The branch distance measured inside a played program (_playcoder_near): which equality tests are read, how
far each was from holding, evaluated at the line that runs it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "app" / "engine" / "play" / "seeding"))

import _playcoder_near as near  # noqa: E402

GAME = '''import math
SPEED = 3


class V:
    def __init__(self, x, y):
        self.x, self.y = x, y


def play(moves, key):
    head, food, a, b = [0, 0], (5, 2), V(1, 1), V(4, 4)
    for dx, dy in moves:
        head[0] += dx
        head[1] += dy
        if (head[0], head[1]) == food:
            return "ate"
        met = a == b
        fast = key == SPEED
        called = tuple(head) == food
        circle = key == math.pi
    return "no"
'''


def test_only_tests_between_two_variables_are_read_and_each_is_measured_where_it_runs(tmp_path):
    path = tmp_path / "game.py"
    path.write_text(GAME)
    table = near.sites(str(path))
    # (head[0], head[1]) == food, a == b and key == math.pi (a module's, seen only when it runs); not key == SPEED
    # (a constant), not tuple(head) == food (a call)
    assert sorted(table) == [15, 17, 20]
    spec = importlib.util.spec_from_file_location("game", path)
    assert spec is not None and spec.loader is not None
    game = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(game)
    nearest = near.Nearest()

    def trace(frame, event, arg):
        if frame.f_code.co_filename != str(path):
            return None

        def local(frame, event, arg):
            if event == "line":
                nearest.line(frame, table)
            return local
        return local

    sys.settrace(trace)
    try:
        assert game.play([(1, 0), (1, 0), (1, 1)], 3) == "no"
    finally:
        sys.settrace(None)
    food = (str(path), 15, 11)
    assert nearest.least[food] == 3 and nearest.last[food] == 3  # (3, 1) is 2 + 1 from (5, 2)
    assert nearest.least[(str(path), 17, 14)] == 6  # two vectors: |1 - 4| + |1 - 4|
    assert not any(line == 20 for _, line, _ in nearest.least)  # a key compared with a module's constant


def test_distances_are_numbers_sequences_and_points_only():
    assert near.distance(3, 3.5) == 0.5
    assert near.distance((1, 2), [3, 4]) == 4
    assert near.distance("a", "b") is None and near.distance(True, 1) is None
    assert near.distance((1, 2), (1, 2, 3)) is None and near.distance(float("nan"), 1) is None
