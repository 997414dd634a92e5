# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit tests for memory_logic (pure rules, no GUI)."""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pytest  # noqa: E402

from memory_logic import PAIRS, Game, deal  # noqa: E402


def pair_of(game, index):
    return next(i for i, s in enumerate(game.cards) if s == game.cards[index] and i != index)


def other_than(game, index):
    """A card whose symbol differs from card ``index``."""
    return next(i for i, s in enumerate(game.cards) if s != game.cards[index])


def test_deal_has_every_symbol_twice():
    cards = deal(random.Random(3))
    assert len(cards) == 2 * PAIRS
    assert sorted(cards) == sorted(list(range(PAIRS)) * 2)


def test_seed_is_deterministic_and_boards_differ():
    assert Game(seed=4).cards == Game(seed=4).cards
    assert len({tuple(Game(seed=s).cards) for s in range(10)}) > 1


def test_new_game_is_face_down():
    game = Game(seed=0)
    assert not any(game.visible(i) for i in range(16))
    assert game.moves == 0 and game.found == 0 and not game.won


def test_first_card_turns_up():
    game = Game(seed=0)
    assert game.flip(5) == "first"
    assert game.visible(5) and game.first == 5
    assert game.moves == 0


def test_same_card_twice_is_ignored():
    game = Game(seed=0)
    game.flip(5)
    assert game.flip(5) == "ignored"
    assert game.moves == 0 and game.found == 0
    assert game.first == 5 and not game.matched[5]


def test_match_stays_up_and_counts():
    game = Game(seed=0)
    a = 0
    b = pair_of(game, a)
    game.flip(a)
    assert game.flip(b) == "match"
    assert game.matched[a] and game.matched[b]
    assert game.moves == 1 and game.found == 1
    assert game.flip(a) == "ignored", "matched cards cannot be turned again"
    assert game.moves == 1


def test_mismatch_shows_until_hidden():
    game = Game(seed=0)
    a = 0
    b = other_than(game, a)
    game.flip(a)
    assert game.flip(b) == "mismatch"
    assert game.visible(a) and game.visible(b)
    assert game.moves == 1 and game.found == 0
    assert game.pending == (a, b)
    assert game.hide_mismatch()
    assert not game.visible(a) and not game.visible(b)
    assert game.pending is None
    assert not game.hide_mismatch()


def test_next_click_hides_a_showing_mismatch():
    game = Game(seed=0)
    a = 0
    b = other_than(game, a)
    game.flip(a)
    game.flip(b)
    c = next(i for i in range(16) if i not in (a, b))
    assert game.flip(c) == "first"
    assert not game.visible(a) and not game.visible(b) and game.visible(c)
    assert game.pending is None


def test_clicking_a_showing_mismatched_card_starts_a_new_move():
    game = Game(seed=0)
    a = 0
    b = other_than(game, a)
    game.flip(a)
    game.flip(b)
    assert game.flip(b) == "first"
    assert game.visible(b) and not game.visible(a)


def test_full_game_is_won_and_reset_deals_again():
    game = Game(seed=1)
    done = set()
    results = []
    for a in range(16):
        if a in done:
            continue
        b = pair_of(game, a)
        done |= {a, b}
        game.flip(a)
        results.append(game.flip(b))
    assert results[:-1] == ["match"] * (PAIRS - 1) and results[-1] == "won"
    assert game.won and game.moves == PAIRS and game.found == PAIRS
    assert game.flip(0) == "ignored"
    old = list(game.cards)
    game.reset()
    assert not game.won and game.moves == 0 and game.found == 0
    assert not any(game.visible(i) for i in range(16))
    assert sorted(game.cards) == sorted(old)


def test_moves_count_every_second_card():
    game = Game(seed=2)
    a = 0
    b = other_than(game, a)
    for _ in range(3):
        game.flip(a)
        game.flip(b)
    assert game.moves == 3 and game.found == 0


def test_bad_index_is_rejected():
    with pytest.raises(ValueError):
        Game(seed=0).flip(16)
