"""The limits every channel from a program shares: sizes, depth, numbers, deadlines, end of file, notes."""

from __future__ import annotations

import os
import time

import pytest

from app.engine.play.channel_limits import (
    MAX_DEPTH, Budget, Notes, ProgramFault, integer, nesting_depth, number, parse_json, read_some, too_deep,
)


def test_depth_is_measured_before_json_recurses():
    assert nesting_depth(b'{"a": [1, {"b": "[[[[["}]}') == 3
    assert not too_deep(b'{"a": [1, {"b": "[[[[["}]}', 3) and too_deep(b"[[[[]]]]", 3)
    with pytest.raises(ProgramFault, match="nested deeper than"):
        parse_json(b"[" * 100_000)
    assert parse_json(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None


def test_size_and_non_numbers_are_the_programs_fault():
    with pytest.raises(ProgramFault, match="more than the 10 allowed"):
        parse_json(b'"' + b"x" * 20 + b'"', max_bytes=10)
    with pytest.raises(ProgramFault, match="non-number Infinity"):
        parse_json(b"[Infinity, 0]")
    with pytest.raises(ProgramFault, match="not JSON"):
        parse_json(b"\xff{")


@pytest.mark.parametrize("value", [10**400, float("inf"), float("nan"), -1, "5", True, None, 1e400])
def test_numbers_out_of_range_are_refused(value):
    with pytest.raises(ProgramFault):
        number(value, 0, 1e9, "a due time")


def test_integers_in_range_are_taken():
    assert integer(12.0, 0, 100, "x") == 12 and number(3, 0, 5, "y") == 3.0
    with pytest.raises(ProgramFault, match="not a whole number"):
        integer(1.5, 0, 100, "x")


def test_a_read_holds_its_deadline_and_eof_reads_as_gone():
    r, w = os.pipe()
    try:
        t0 = time.monotonic()
        assert read_some(r, time.monotonic() + 0.2) is None and time.monotonic() - t0 < 1
        os.write(w, b"abc")
        assert read_some(r, time.monotonic() + 1, 2) == b"ab"
        os.close(w)
        assert read_some(r, time.monotonic() + 1) == b"c"
        assert read_some(r, time.monotonic() + 1) == b""
    finally:
        os.close(r)


def test_a_budget_and_notes_are_bounded():
    budget = Budget(10)
    assert budget.take(10) and not budget.take(1)
    budget.next_step()
    assert budget.take(5)
    said: list[str] = []
    notes = Notes("gate", said.append)
    for i in range(100):
        notes.add("same")
        notes.add(f"other {i}")
    assert said[0] == "gate: same" and len(said) == 32 and notes.count == 200
