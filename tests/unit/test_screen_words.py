"""Keys a screen names in words, as a player reads them."""

from __future__ import annotations

from app.engine.testers.explore.screen_words import keys_named


def test_keys_named_by_the_usual_phrasings():
    assert keys_named("Press L for Leaderboard") == ["l"]
    assert keys_named("press SPACE to start\nHit [Enter] to pause") == ["space", "enter"]
    assert keys_named("P - pause   R: restart   Q to quit") == ["p", "r", "q"]
    assert keys_named("Press the Esc key to go back") == ["escape"]
    assert keys_named("SCORE 12   GAME OVER") == []
    assert keys_named("a game for two players") == []
