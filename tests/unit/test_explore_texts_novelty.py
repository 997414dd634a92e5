"""A text the program shows for the first time counts as novelty, as a new line of code does."""

from __future__ import annotations

from app.engine.play.inside import InsideWidget
from app.engine.testers.explore.explorer import Explorer


def label(text: str, visible: bool = True) -> InsideWidget:
    return InsideWidget("label", "Label", text, True, visible, (0, 0, 10, 10), False)


def test_a_new_text_is_novelty_and_a_seen_or_hidden_one_is_not():
    explorer = Explorer()
    state = explorer.state
    explorer.least.note_texts([label("0"), label("Add")])  # the first screen: what there is, not news
    assert state.found == 0
    state.since_new = 5
    explorer.least.note_texts([label("0"), label("Add"), label("", True), label("secret", visible=False)])
    assert state.found == 0 and state.since_new == 5
    explorer.least.note_texts([label("3.5"), label("Add")])  # a result appeared
    assert state.found == 1 and state.since_new == 0
