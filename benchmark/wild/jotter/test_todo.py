# SPDX-License-Identifier: GPL-3.0-or-later
from todo import dump, parse, summary, tidy


def test_round_trip():
    tasks = [["Buy milk", False], ["Read chapter 3", True]]
    assert parse(dump(tasks)) == tasks


def test_plain_lines_are_open_tasks():
    assert parse("walk the dog\n\n[x] done thing\n") == [["walk the dog", False], ["done thing", True]]


def test_tidy():
    assert tidy("  buy   bread ") == "Buy bread"
    assert tidy("   ") == ""
    assert tidy("x") == "X"


def test_summary():
    assert summary([]) == "0 tasks, 0 done"
    assert summary([["a", True]]) == "1 task, 1 done"
    assert summary([["a", True], ["b", False], ["c", False]]) == "3 tasks, 1 done"
