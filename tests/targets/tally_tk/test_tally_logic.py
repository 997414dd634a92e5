"""Unit tests of the tally's arithmetic (the repair loop runs them in its sandbox)."""

import pytest

from tally_logic import average, clip, combine


def test_adds():
    assert combine("+", 2, 3) == 5


def test_subtracts_the_second_from_the_first():
    assert combine("-", 9, 3) == 6
    assert combine("-", 3, 9) == -6


def test_rejects_an_unknown_operation():
    with pytest.raises(ValueError):
        combine("*", 2, 3)


def test_average_of_nothing_is_zero():
    assert average([]) == 0


def test_average_is_the_whole_mean():
    assert average([2, 3, 7]) == 4


def test_clip_keeps_the_last_digits():
    assert clip("1234567890") == "234567890"
