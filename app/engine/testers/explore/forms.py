"""What testers do to forms, lists, canvases and menus, as short plans of actions.

A random walk types one sample word and clicks the middle of a list; a tester
types the values where programs break (nothing at all, 0, -1, a long text,
decimals, an expression ending in an operator, a division by zero, the same
text twice), each followed by Enter, selects a row before pressing Delete, double-clicks a row,
scrolls, opens context menus and uses the keyboard shortcuts its menus show.
Each plan is a few actions played in a row (:class:`Plan`); the explorer
counts them like single actions, so each is tried once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from app.engine.play.actions import Action, Click, DoubleClick, Drag, Hotkey, Press, RightClick, Scroll, Type
from app.engine.testers.explore.keys_from_code import ReadInputs, qt_sequence

LONG_TEXT = "a long text, longer" * 1 + " than a word"
"""Long for a field (30 characters), not so long that a window sizing itself to its text leaves the screen."""
ENTRY_VALUES: tuple[tuple[str, str], ...] = (
    ("", "nothing"), ("0", "zero"), ("-1", "a negative number"), (LONG_TEXT.strip(), "a long text"),
    ("3.14", "decimals"), ("12+", "an operator at the end"), ("1/0", "a division by zero"),
    ("same", "the same text twice"),
)
"""Values that matter in an entry, each with what it probes."""
ROW_PX = 10
"""A list's first row is this far below its top edge (the middle of a text line)."""
DRAG_SHARE = 0.3
"""A drag on a canvas moves this share of its width."""
MAX_PLANS = 24


@dataclass(frozen=True)
class Plan:
    """A few actions a tester plays in a row, named for the rationale."""

    name: str
    actions: tuple[Action, ...]


Box = tuple[int, int, int, int]


def center(box: Box) -> tuple[int, int]:
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


def entry_plans(box: Box, submit: str = "enter", extra: Sequence[tuple[str, str]] = ()) -> list[Plan]:
    """Each value of :data:`ENTRY_VALUES` (then ``extra``: values from the program's own code, each with what
    it probes) typed into the entry at ``box``, then submitted."""
    # Not emptied first: a Backspace on an empty field changes nothing, and the oracles would count that
    # against a key the program declares it answers.
    click = Click(*center(box))
    plans = []
    for value, what in (*ENTRY_VALUES, *extra):
        typed: tuple[Action, ...] = (Type(value),) if value else ()
        if value == "same":
            typed = (Type(value), Press(submit), click, Type(value))
        plans.append(Plan(f"{what} in the entry at {box}", (click, *typed, Press(submit))))
    return plans


SELECTION_WORDS = ("delete", "remove", "open", "edit", "rename", "move", "up", "down", "done", "copy")
"""Words of buttons that act on a selected row: tried first after a selection (a tester's habit, no rule)."""
MAX_ROW_BUTTONS = 4


ROW_WORDS = ("first row", "second row")
"""What a tester adds to a list through its entry before acting on a row (two rows: the first is not the last)."""


def list_plans(box: Box, reads: ReadInputs, buttons: Sequence[tuple[Box, str]] = (),
               entry: Box | None = None) -> list[Plan]:
    """A list: select its first row and press Delete (and the program's own delete keys), select it and
    click each button beside it (``buttons``: boxes and texts; a Delete button acts on the selection as the
    key does), double-click it, scroll it.  With an ``entry`` beside it, two rows are added through the
    entry first (Enter after each), so the row acted on is not the only one nor the last."""
    x, _ = center(box)
    row = (x, min(box[3] - 1, box[1] + ROW_PX))
    select = Click(*row)
    plans = [Plan(f"select the first row of the list at {box}, then Delete", (select, Press("delete")))]
    fill: tuple[Action, ...] = ()
    if entry is not None:
        fill = (Click(*center(entry)),)
        for word in ROW_WORDS:
            fill += (Type(word), Press("enter"))
        plans.insert(0, Plan(f"add two rows through the entry at {entry}, then select the first row of the list "
                             f"at {box} and press Delete", (*fill, select, Press("delete"))))
    ranked = sorted(buttons, key=lambda b: (not any(w in b[1].lower() for w in SELECTION_WORDS), b[0][1], b[0][0]))
    for button, text in ranked[:MAX_ROW_BUTTONS]:
        name = f"the button {text!r}" if text else f"the button at {button}"
        plans.append(Plan(f"select the first row of the list at {box}, then click {name}",
                          (select, Click(*center(button)))))
    plans += [Plan(f"double-click the first row of the list at {box}", (DoubleClick(*row),)),
              Plan(f"scroll the list at {box}", (Scroll(*center(box), "down", 3),))]
    for key in reads.keys:
        if key in ("backspace", "ctrl+d", "d", "x") and key != "delete":
            keys = tuple(key.split("+"))
            act: Action = Hotkey(keys) if len(keys) > 1 else Press(key)
            # (rows are added through the entry first, when there is one: the list may be empty by now)
            added = f"add two rows through the entry at {entry}, then " if fill else ""
            plans.append(Plan(f"{added}select the first row of the list at {box}, then {key}", (*fill, select, act)))
    return plans


def surface_plans(box: Box, reads: ReadInputs) -> list[Plan]:
    """A canvas or a game's window: a right-click (a context menu), a double-click, a drag, a scroll,
    each where the program reads it."""
    cx, cy = center(box)
    plans = []
    if "right" in reads.buttons:
        plans.append(Plan(f"right-click (a context menu) at {(cx, cy)}", (RightClick(cx, cy),)))
    if "double" in reads.buttons:
        plans.append(Plan(f"double-click at {(cx, cy)}", (DoubleClick(cx, cy),)))
    if "drag" in reads.buttons:
        dx = int((box[2] - box[0]) * DRAG_SHARE)
        plans.append(Plan(f"drag across {box}", (Drag(cx - dx // 2, cy, cx + dx // 2, cy),)))
    if "wheel" in reads.buttons:
        plans.append(Plan(f"scroll at {(cx, cy)}", (Scroll(cx, cy, "down", 3),)))
    return plans


def shortcut_action(text: str) -> Action | None:
    """A menu item's accelerator text ('Ctrl+N', 'Ctrl-S', 'F5', 'Del') as an action."""
    combo = qt_sequence(text.replace("-", "+") if "+" not in text else text)
    if combo is None:
        return None
    keys = tuple(combo.split("+"))
    return Hotkey(keys) if len(keys) > 1 else Press(combo)


def context_menu_plan(box: Box) -> Plan:
    return Plan(f"right-click (a context menu) on {box}", (RightClick(*center(box)),))
