"""Values that matter, from the program itself: calculations with non-integer results and a division by zero,
whole forms filled before their submit button, and the constants the code compares with."""

from __future__ import annotations

from pathlib import Path

from app.engine.play.actions import Click, Press, Type
from app.engine.testers.explore.forms import entry_plans
from app.engine.testers.explore.keys_from_code import ReadInputs
from app.engine.testers.explore.values import (CodeValues, calculation_plans, code_entry_values, form_plans,
                                               values_from_folder)

LEDGER = '''import tkinter as tk
def add(amount_text, category):
    amount = float(amount_text)
    if category == "rent" and amount > 500:
        warn()
    if category in ("food", "fun"):
        pass
    if amount == -3:
        crash()
'''


def test_the_codes_constants_and_parses_are_read(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text(LEDGER)
    (tmp_path / "test_main.py").write_text('assert x == "from a test"\n')
    found = values_from_folder(tmp_path)
    assert found.words == ("rent", "food", "fun") and found.numbers == ("500", "-3")
    assert found.parses == frozenset({"float"})
    extra = code_entry_values(found)
    assert ("rent", "the word 'rent' the code compares with") in extra
    assert [v for v, _ in extra if v == "-3"] == ["-3"]
    plans = entry_plans((0, 0, 100, 20), extra=extra)
    assert any(p.actions[1:] == (Type("rent"), Press("enter")) for p in plans)


def _grid() -> list[tuple[tuple[int, int, int, int], str]]:
    labels = ["7", "8", "9", "÷", "4", "5", "6", "×", "1", "2", "3", "-", "0", "C", "=", "+"]
    return [((40 * (i % 4), 40 * (i // 4), 40 * (i % 4) + 30, 40 * (i // 4) + 30), t) for i, t in enumerate(labels)]


def test_a_calculator_is_asked_an_uneven_division_and_a_division_by_zero() -> None:
    plans = calculation_plans(_grid(), ReadInputs())
    names = [p.name for p in plans]
    assert names[:2] == ["calculate 7 ÷ 2 = on the buttons", "calculate 1 ÷ 0 = on the buttons"]
    assert {"calculate 7 × 2 = on the buttons", "calculate 7 - 2 = on the buttons",
            "calculate 7 + 2 = on the buttons"} <= set(names)
    clear, seven, divide, two, equals = plans[0].actions  # from a cleared display, not a pending operation
    assert clear == Click(55, 135) and seven == Click(15, 15) and divide == Click(135, 15)
    assert two == Click(55, 95) and equals == Click(95, 135)


def test_a_keyboard_calculator_gets_the_same_sums_on_its_keys() -> None:
    reads = ReadInputs(keys=[*"0123456789", "+", "/", "enter", "escape"])
    plans = calculation_plans([], reads)
    assert [p.actions for p in plans[:2]] == [(Press("escape"), Press("7"), Press("/"), Press("2"), Press("enter")),
                                              (Press("escape"), Press("1"), Press("/"), Press("0"), Press("enter"))]
    reads.quits.add("escape")  # a key that ends the program never clears a sum
    assert calculation_plans([], reads)[0].actions[0] == Press("7")
    assert calculation_plans([], ReadInputs(keys=["up", "down"])) == []


def test_a_form_is_filled_as_a_whole_before_its_submit_button() -> None:
    amount, category = (10, 40, 110, 60), (10, 10, 110, 30)
    buttons = [((10, 80, 60, 100), "Add"), ((70, 80, 120, 100), "Clear")]
    plans = form_plans([amount, category], buttons, CodeValues(words=("rent",), parses=frozenset({"float"})))
    first = plans[0].actions  # top field first, each a number, then Add
    assert first == (Click(60, 20), Type("12.5"), Click(60, 50), Type("12.5"), Click(35, 90))
    fills = [[a.text for a in p.actions if isinstance(a, Type)] for p in plans]
    assert ["rent", "12.5"] in fills and ["12.5", "rent"] in fills and ["rent", "rent"] in fills
    assert form_plans([amount], buttons, CodeValues()) == []  # one field: the entry's own plans do it
    no_button = form_plans([amount, category], [], CodeValues())
    assert [a for a in no_button[0].actions][-1] == Press("enter")
