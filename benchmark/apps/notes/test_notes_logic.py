# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests for notes_logic (pure notebook logic, no GUI)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pytest  # noqa: E402

from notes_logic import (SAMPLE_NOTES, UNTITLED, Notebook, continuation, sample_notes,  # noqa: E402
                         status_text, title_of, word_count)


@pytest.mark.parametrize("text, count", [
    ("", 0), ("   \n\t", 0), ("one", 1), ("one two  three", 3), ("one\ntwo\n\nthree\n", 3),
    ("- milk", 1), ("a - b", 2), ("it's 5 o'clock", 3), ("...", 0), ("  lead and trail  ", 3),
])
def test_word_count(text, count):
    assert word_count(text) == count


@pytest.mark.parametrize("text, title", [
    ("Shopping\nbread", "Shopping"),
    ("\n\n  Plan  \nx", "Plan"),
    ("", UNTITLED),
    ("   \n ", UNTITLED),
    ("A very long first line of text", "A very long first\u2026"),
    ("Exactly eighteen c", "Exactly eighteen c"),
])
def test_title_of(text, title):
    assert title_of(text) == title


@pytest.mark.parametrize("line, cont", [
    ("plain", ""), ("  indented", "  "), ("\tx", "\t"), ("- item", "- "), ("  * item", "  * "),
    ("-", ""), ("- ", ""), ("", ""), ("    ", "    "), ("-item", ""),
])
def test_continuation(line, cont):
    assert continuation(line) == cont


@pytest.mark.parametrize("args, text", [
    ((0, 3, 12, False), "Note 1/3 \u00b7 12 words \u00b7 saved"),
    ((2, 3, 1, True), "Note 3/3 \u00b7 1 word \u00b7 modified"),
    ((0, 1, 0, False), "Note 1/1 \u00b7 0 words \u00b7 saved"),
])
def test_status_text(args, text):
    assert status_text(*args) == text


def test_edit_and_save():
    book = Notebook(["Alpha\none", "Beta"])
    assert book.current == 0
    assert book.status() == "Note 1/2 \u00b7 2 words \u00b7 saved"
    book.edit("Alpha\none two")
    assert book.notes[0].modified
    assert book.titles() == ["Alpha *", "Beta"]
    assert book.status() == "Note 1/2 \u00b7 3 words \u00b7 modified"
    book.save()
    assert not book.notes[0].modified
    assert book.titles() == ["Alpha", "Beta"]
    assert book.notes[0].saved == "Alpha\none two"


def test_edit_back_to_saved_is_not_modified():
    book = Notebook(["x"])
    book.edit("xy")
    book.edit("x")
    assert not book.notes[0].modified


def test_select_keeps_drafts():
    book = Notebook(["A", "B"])
    book.edit("A changed")
    assert book.select(1).draft == "B"
    assert book.select(0).draft == "A changed"
    assert book.status().endswith("modified")
    with pytest.raises(IndexError):
        book.select(2)
    with pytest.raises(IndexError):
        book.select(-1)


def test_new_note_is_empty_and_current():
    book = Notebook(["A", "B"])
    assert book.new() == 2
    assert book.current == 2 and len(book) == 3
    assert book.titles()[2] == UNTITLED
    assert book.status() == "Note 3/3 \u00b7 0 words \u00b7 saved"


def test_delete_selects_the_next_note():
    book = Notebook(["A", "B", "C"])
    book.select(1)
    assert book.delete() == 1
    assert [n.draft for n in book.notes] == ["A", "C"]
    assert book.notes[book.current].draft == "C"
    assert book.delete() == 0, "deleting the last note selects the new last one"
    assert [n.draft for n in book.notes] == ["A"]


def test_delete_only_note_leaves_an_empty_one():
    book = Notebook(["only"])
    assert book.delete() == 0
    assert len(book) == 1 and book.notes[0].draft == ""
    assert Notebook().titles() == [UNTITLED]


def test_sample_notes_are_seeded():
    assert sample_notes(0) == sample_notes(0)
    assert sample_notes(0) != sample_notes(1)
    assert len(set(sample_notes(3))) == 3
    assert set(sample_notes(9)) <= set(SAMPLE_NOTES)
