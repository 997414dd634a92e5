"""Where a key matters: Return after text was typed, Delete after a pick or typed text."""

from __future__ import annotations

from app.engine.judge.key_states import KeyStates

ENTER, DELETE, BACK = 'press("enter")', 'press("delete")', 'press("backspace")'


def test_return_matters_once_text_was_typed_and_not_after_it_was_submitted():
    states = KeyStates()
    states.note(ENTER)
    assert not states.tried_where_it_matters(ENTER)
    states.note('type("milk")')
    states.note(ENTER)
    assert states.tried_where_it_matters(ENTER)
    fresh = KeyStates()
    fresh.note('press("a")')  # a printable key typed into a focused field is text too
    fresh.note(ENTER)
    fresh.note(ENTER)
    assert fresh.tried_where_it_matters(ENTER) and not fresh.text


def test_delete_matters_after_a_pick_or_text_and_other_inputs_always():
    states = KeyStates()
    states.note(DELETE)
    states.note(BACK)
    assert not states.tried_where_it_matters(DELETE) and not states.tried_where_it_matters(BACK)
    states.note("click(10, 40)")
    states.note(DELETE)
    assert states.tried_where_it_matters(DELETE) and not states.tried_where_it_matters(BACK)
    assert states.tried_where_it_matters('press("space")') and states.tried_where_it_matters("click(1, 2)")


def test_a_new_episode_starts_with_nothing_typed_but_keeps_what_was_met():
    states = KeyStates()
    states.note('type("x")')
    states.note(ENTER)
    states.note('type("y")')
    states.restart()
    assert not states.text and not states.pick and states.tried_where_it_matters(ENTER)
