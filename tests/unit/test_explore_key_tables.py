"""Keys a Tk program binds or tests through a literal table are read from its code."""

from __future__ import annotations

from app.engine.testers.explore.keys_from_code import inputs_from_source

BOUND_IN_A_LOOP = '''
import tkinter as tk
root = tk.Tk()
def left(e): pass
def right(e): pass
def fire(e): pass
KEYS = {"Left": left, "Right": right, "space": fire, "q": lambda e: root.destroy()}
for key, fn in KEYS.items():
    root.bind(f"<{key}>", fn)
root.mainloop()
'''

TESTED_IN_A_HANDLER = '''
import tkinter as tk
MOVES = {"Up": (0, -1), "Down": (0, 1)}
ACTIONS = ("p", "Return")
class Game:
    TURNS = {"a": -1, "d": 1}
    def __init__(self, root):
        root.bind("<Key>", self.on_key)
    def on_key(self, event):
        if event.keysym in MOVES:
            dx, dy = MOVES[event.keysym]
        elif event.keysym in ACTIONS:
            pass
        turn = self.TURNS.get(event.keysym)
'''


def test_keys_bound_through_a_table_in_a_loop():
    found = inputs_from_source(BOUND_IN_A_LOOP)
    assert {"left", "right", "space", "q"} <= set(found.keys), found.keys


def test_keys_of_a_table_tested_in_a_key_handler():
    found = inputs_from_source(TESTED_IN_A_HANDLER)
    assert {"up", "down", "p", "enter", "a", "d"} <= set(found.keys), found.keys


def test_a_table_of_other_strings_adds_no_keys():
    found = inputs_from_source('COLOURS = {"red": 1}\nfor c in COLOURS:\n    print(f"<{c}>")\n')
    assert not found.keys
