# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit-conversion logic for the Converter sample target (no GUI code).

Three categories, each with one pair of units that can be converted either
way: length (m / ft), temperature (°C / °F) and weight (kg / lb).
"""

import math

ORDER = ("length", "temperature", "weight")
UNITS = {  # category -> (first unit, second unit)
    "length": ("m", "ft"),
    "temperature": ("°C", "°F"),
    "weight": ("kg", "lb"),
}
LABELS = {"length": "Length", "temperature": "Temp", "weight": "Weight"}
CATEGORY_KEYS = {"F1": "length", "F2": "temperature", "F3": "weight"}
FEET_PER_METRE = 1 / 0.3048
POUNDS_PER_KG = 1 / 0.45359237
ABSOLUTE_ZERO = {"°C": -273.15, "°F": -459.67}
MAX_INPUT = 12
DECIMALS = 4


def parse_number(text):
    """A float from the entry text ('12', '-3.5', '2,5'); ValueError when it is not a number."""
    cleaned = text.strip().replace(",", ".")
    if not cleaned:
        raise ValueError("empty input")
    value = float(cleaned)
    if not math.isfinite(value):
        raise ValueError("not a finite number")
    return value


def allowed_input(text):
    """Whether the entry may hold this text while typing (digits, one sign, one decimal point)."""
    if len(text) > MAX_INPUT:
        return False
    body = text[1:] if text.startswith("-") else text
    if any(ch not in "0123456789.," for ch in body):
        return False
    return body.count(".") + body.count(",") <= 1


def units(category, reverse=False):
    """(from unit, to unit) for a category and direction."""
    first, second = UNITS[category]
    return (second, first) if reverse else (first, second)


def convert(category, value, reverse=False):
    """Convert value from the category's first unit to its second (or back when reverse)."""
    if category == "length":
        return value / FEET_PER_METRE if reverse else value * FEET_PER_METRE
    if category == "temperature":
        return (value - 32) * 5 / 9 if reverse else value * 9 / 5 + 32
    if category == "weight":
        return value / POUNDS_PER_KG if reverse else value * POUNDS_PER_KG
    raise ValueError("unknown category %r" % (category,))


def format_value(value):
    """Round to 4 decimals and drop trailing zeros: 212.0 -> '212', 3.28084 -> '3.2808'."""
    if abs(value) >= 1e9:
        return "%.4g" % value
    text = "%.*f" % (DECIMALS, value)
    text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def check_value(category, value, unit):
    """An error message when the value makes no physical sense, else ''."""
    if category == "temperature" and value < ABSOLUTE_ZERO[unit] - 1e-9:
        return "Below absolute zero"
    if category != "temperature" and value < 0:
        return "Must not be negative"
    return ""


def result_lines(category, value, reverse=False):
    """(question line, answer line) for a parsed value: ('100 °C =', '212 °F')."""
    src, dst = units(category, reverse)
    problem = check_value(category, value, src)
    if problem:
        return "%s %s" % (format_value(value), src), problem
    return "%s %s =" % (format_value(value), src), "%s %s" % (format_value(convert(category, value, reverse)), dst)


def category_for_key(keysym):
    """The category a key selects (F1-F3), or None."""
    return CATEGORY_KEYS.get(keysym)
