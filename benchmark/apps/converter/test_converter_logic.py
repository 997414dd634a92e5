# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests for converter_logic (pure conversion logic, no GUI)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pytest  # noqa: E402

from converter_logic import (ORDER, UNITS, allowed_input, category_for_key, check_value,  # noqa: E402
                             convert, format_value, parse_number, result_lines, units)


@pytest.mark.parametrize("category, value, reverse, expected", [
    ("temperature", 100, False, 212),
    ("temperature", 0, False, 32),
    ("temperature", -40, False, -40),
    ("temperature", 212, True, 100),
    ("temperature", 32, True, 0),
    ("temperature", 98.6, True, 37),
    ("length", 1, False, 3.28084),
    ("length", 0.3048, False, 1),
    ("length", 10, True, 3.048),
    ("weight", 1, False, 2.20462),
    ("weight", 10, False, 22.0462),
    ("weight", 2.20462262, True, 1),
])
def test_convert(category, value, reverse, expected):
    assert convert(category, value, reverse) == pytest.approx(expected, rel=1e-5, abs=1e-9)


@pytest.mark.parametrize("category", ORDER)
@pytest.mark.parametrize("value", [0, 1, 12.5, 1000])
def test_round_trip(category, value):
    assert convert(category, convert(category, value), reverse=True) == pytest.approx(value)


def test_unknown_category():
    with pytest.raises(ValueError):
        convert("volume", 1)


@pytest.mark.parametrize("value, text", [
    (212.0, "212"), (3.28084, "3.2808"), (22.046226, "22.0462"), (0.0, "0"), (-0.00001, "0"),
    (-40.0, "-40"), (2.5, "2.5"), (1e12, "1e+12"), (0.00004, "0"), (0.00005, "0.0001"),
])
def test_format_value(value, text):
    assert format_value(value) == text


@pytest.mark.parametrize("text, value", [("12", 12.0), (" -3.5 ", -3.5), ("2,5", 2.5), (".5", 0.5), ("7.", 7.0)])
def test_parse_number(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["", "  ", "-", ".", "abc", "1.2.3", "inf", "nan", "--1"])
def test_parse_number_rejects(text):
    with pytest.raises(ValueError):
        parse_number(text)


@pytest.mark.parametrize("text, ok", [
    ("", True), ("-", True), ("12", True), ("-1.5", True), ("1,5", True), ("1.5.", False),
    ("1,5.", False), ("12a", False), ("1-2", False), ("1" * 12, True), ("1" * 13, False), (" 1", False),
])
def test_allowed_input(text, ok):
    assert allowed_input(text) is ok


def test_units_and_direction():
    assert units("temperature") == ("°C", "°F")
    assert units("temperature", reverse=True) == ("°F", "°C")
    assert set(UNITS) == set(ORDER)


@pytest.mark.parametrize("category, value, reverse, lines", [
    ("temperature", 100, False, ("100 °C =", "212 °F")),
    ("temperature", 212, True, ("212 °F =", "100 °C")),
    ("length", 1, False, ("1 m =", "3.2808 ft")),
    ("weight", 10, False, ("10 kg =", "22.0462 lb")),
    ("weight", 1, True, ("1 lb =", "0.4536 kg")),
    ("temperature", -300, False, ("-300 °C", "Below absolute zero")),
    ("temperature", -459.67, True, ("-459.67 °F =", "-273.15 °C")),
    ("length", -2, False, ("-2 m", "Must not be negative")),
])
def test_result_lines(category, value, reverse, lines):
    assert result_lines(category, value, reverse) == lines


def test_check_value():
    assert check_value("temperature", -273.15, "°C") == ""
    assert check_value("temperature", -274, "°C") == "Below absolute zero"
    assert check_value("temperature", -400, "°F") == ""
    assert check_value("weight", 0, "kg") == ""


@pytest.mark.parametrize("keysym, category", [
    ("F1", "length"), ("F2", "temperature"), ("F3", "weight"), ("F4", None), ("1", None),
])
def test_category_for_key(keysym, category):
    assert category_for_key(keysym) == category
