# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests for calc_logic (pure calculator logic, no GUI)."""

import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pytest  # noqa: E402

from calc_logic import Calculator, apply, format_number, key_for_event  # noqa: E402


def run(keys):
    calc = Calculator()
    for key in keys:
        calc.press(key)
    return calc


@pytest.mark.parametrize("keys, shown", [
    ("", "0"),
    ("7", "7"),
    ("007", "7"),
    ("12+3=", "15"),
    ("9-4=", "5"),
    ("4-9=", "-5"),
    ("6*7=", "42"),
    ("8/2=", "4"),
    ("1/4=", "0.25"),
    ("1/3=", "0.333333333333333"),
    (".1+.2=", "0.3"),
    ("12+3*2=", "30"),
    ("5+=", "10"),  # like a desk calculator: the shown number is reused
    ("2+-3=", "-1"),
    ("5/0=", "Error"),
    ("5/0=7", "7"),
    ("1.5*2=", "3"),
    ("1..2", "1.2"),
    ("12+", "12"),
    ("12+3", "3"),
    ("9=", "9"),
])
def test_sequences(keys, shown):
    assert run(keys).display == shown


def test_subtraction_order():
    assert apply("-", Decimal(10), Decimal(3)) == Decimal(7)
    assert run("10-3=").display == "7"


def test_apply_rejects_bad_input():
    with pytest.raises(ZeroDivisionError):
        apply("/", Decimal(1), Decimal(0))
    with pytest.raises(ValueError):
        apply("%", Decimal(1), Decimal(1))


def test_expression_line():
    calc = run("12+")
    assert calc.expression() == "12 +"
    calc.press("3")
    assert calc.expression() == "12 +"
    calc.press("=")
    assert calc.expression() == ""


def test_clear_and_backspace():
    calc = run("123")
    calc.press("DEL")
    assert calc.display == "12"
    calc.press("DEL")
    calc.press("DEL")
    assert calc.display == "0"
    calc = run("9+8")
    calc.press("C")
    assert calc.display == "0" and calc.expression() == ""
    assert run("5+1=").press("DEL") == "6", "results cannot be edited"


def test_result_can_be_chained():
    calc = run("2+3=")
    calc.press("*")
    calc.press("4")
    calc.press("=")
    assert calc.display == "20"


def test_digit_limit():
    calc = run("1" * 30)
    assert calc.display == "1" * 15


def test_format_number():
    assert format_number(Decimal("2.50")) == "2.5"
    assert format_number(Decimal("100")) == "100"
    assert format_number(Decimal("-0")) == "0"
    assert "e" in format_number(Decimal("1e20"))


def test_press_rejects_unknown_key():
    with pytest.raises(ValueError):
        Calculator().press("x")


@pytest.mark.parametrize("keysym, char, key", [
    ("5", "5", "5"), ("KP_5", "5", "5"), ("plus", "+", "+"), ("minus", "-", "-"),
    ("asterisk", "*", "*"), ("slash", "/", "/"), ("period", ".", "."),
    ("Return", "\r", "="), ("KP_Enter", "\r", "="), ("equal", "=", "="),
    ("Escape", "\x1b", "C"), ("BackSpace", "\x08", "DEL"), ("q", "q", None),
    ("Shift_L", "", None),
])
def test_key_for_event(keysym, char, key):
    assert key_for_event(keysym, char) == key
