# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests for todo_logic (pure task-list logic, no GUI)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pytest  # noqa: E402

from todo_logic import (MAX_TEXT, SAMPLE_TASKS, TodoList, clean_text, counter_text,  # noqa: E402
                        next_row, sample_tasks)


def make(*texts, done=()):
    todos = TodoList(texts)
    for index in done:
        todos.toggle(index)
    return todos


def texts(todos):
    return [task.text for task in todos.tasks]


def test_add_appends_in_order():
    todos = TodoList()
    assert todos.add("Buy milk") == 0
    assert todos.add("Call mum") == 1
    assert texts(todos) == ["Buy milk", "Call mum"]
    assert not any(task.done for task in todos.tasks)


@pytest.mark.parametrize("raw, cleaned", [
    ("  Buy   milk ", "Buy milk"),
    ("\tx\n", "x"),
    ("", ""),
    ("   ", ""),
    ("a" * 100, "a" * MAX_TEXT),
])
def test_clean_text(raw, cleaned):
    assert clean_text(raw) == cleaned


def test_empty_text_is_not_added():
    todos = make("one")
    assert todos.add("   ") is None
    assert todos.add("") is None
    assert len(todos) == 1


def test_toggle_and_left():
    todos = make("a", "b", "c")
    assert todos.left() == 3
    assert todos.toggle(1) is True
    assert todos.left() == 2 and todos.done_count() == 1
    assert todos.tasks[1].done and not todos.tasks[0].done and not todos.tasks[2].done
    assert todos.toggle(1) is False
    assert todos.left() == 3


def test_set_done():
    todos = make("a", "b")
    todos.set_done(0, True)
    todos.set_done(0, True)
    assert todos.left() == 1
    todos.set_done(0, False)
    assert todos.left() == 2


def test_delete_done_keeps_open_tasks():
    todos = make("a", "b", "c", "d", done=(0, 2))
    assert todos.delete_done() == 2
    assert texts(todos) == ["b", "d"]
    assert todos.left() == 2
    assert todos.delete_done() == 0
    assert texts(todos) == ["b", "d"]


def test_remove_returns_next_selection():
    todos = make("a", "b", "c")
    assert todos.remove(1) == 1
    assert texts(todos) == ["a", "c"]
    assert todos.remove(1) == 0
    assert texts(todos) == ["a"]
    assert todos.remove(0) == -1
    assert len(todos) == 0


@pytest.mark.parametrize("index", [-1, 3, 10, None])
def test_bad_index_raises(index):
    todos = make("a", "b", "c")
    with pytest.raises(IndexError):
        todos.remove(index)
    with pytest.raises(IndexError):
        todos.toggle(index)
    assert texts(todos) == ["a", "b", "c"]


@pytest.mark.parametrize("left, text", [(0, "0 left"), (1, "1 left"), (12, "12 left")])
def test_counter_text(left, text):
    assert counter_text(left) == text


def test_counter_follows_the_list():
    todos = make("a", "b", "c", done=(2,))
    assert counter_text(todos.left()) == "2 left"
    todos.delete_done()
    todos.add("d")
    assert counter_text(todos.left()) == "3 left"


def test_sample_tasks_are_seeded():
    assert sample_tasks(0) == sample_tasks(0)
    assert sample_tasks(0) != sample_tasks(1)
    assert len(set(sample_tasks(5))) == 3
    assert set(sample_tasks(7)) <= set(SAMPLE_TASKS)


@pytest.mark.parametrize("row, count, step, expected", [
    (-1, 3, 1, 0), (-1, 3, -1, 2), (0, 3, 1, 1), (2, 3, 1, 2), (0, 3, -1, 0), (1, 0, 1, -1), (-1, 0, -1, -1),
])
def test_next_row(row, count, step, expected):
    assert next_row(row, count, step) == expected
