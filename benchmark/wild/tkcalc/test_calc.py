# SPDX-License-Identifier: GPL-3.0-or-later
import pytest

from calc import evaluate, format_number


def test_basic_sums():
    assert evaluate("2+3") == 5
    assert evaluate("9-4") == 5
    assert evaluate("6*7") == 42
    assert evaluate("7/2") == 3.5


def test_precedence_and_brackets():
    assert evaluate("2+3*4") == 14
    assert evaluate("(2+3)*4") == 20


def test_x_means_times():
    assert evaluate("3x3") == 9


@pytest.mark.parametrize("bad", ["", "2+", "1/0", "import os", "2**", "abc"])
def test_nonsense_is_a_value_error(bad):
    with pytest.raises(ValueError):
        evaluate(bad)


def test_format_number():
    assert format_number(12.0) == "12"
    assert format_number(10) == "10"
    assert format_number(0.1 + 0.2) == "0.3"
    assert format_number(3.5) == "3.5"
    assert format_number(-4) == "-4"
    assert format_number(2 / 3) == "0.6666666667"
