# SPDX-License-Identifier: GPL-3.0-or-later
from highscores import add_score, is_high_score, load_scores, save_scores


def test_zero_is_never_a_high_score():
    assert not is_high_score(0, [])


def test_any_score_counts_while_the_table_is_short():
    assert is_high_score(10, [{"name": "A", "score": 500}])


def test_full_table_needs_a_better_score():
    table = [{"name": "A", "score": s} for s in (50, 40, 30, 20, 10)]
    assert is_high_score(20, table)
    assert not is_high_score(10, table)
    assert not is_high_score(5, table)


def test_add_score_keeps_the_best_five_in_order():
    table = [{"name": "A", "score": s} for s in (50, 40, 30, 20, 10)]
    table = add_score(table, "NEW", 35)
    assert [s["score"] for s in table] == [50, 40, 35, 30, 20]
    assert table[2]["name"] == "NEW"


def test_save_and_load_round_trip(tmp_path):
    path = tmp_path / "scores.json"
    save_scores([{"name": "Bo", "score": 70}], path)
    assert load_scores(path) == [{"name": "Bo", "score": 70}]


def test_missing_or_broken_file_gives_an_empty_table(tmp_path):
    assert load_scores(tmp_path / "nope.json") == []
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert load_scores(bad) == []
