# SPDX-License-Identifier: GPL-3.0-or-later
# High score table for Brickout, kept in highscores.json next to the game.

import json
import os

SAVE_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "highscores.json")
MAX_SCORES = 5


def load_scores(path=SAVE_FILE):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return []


def save_scores(scores, path=SAVE_FILE):
    with open(path, "w") as f:
        json.dump(scores, f, indent=2)


def is_high_score(score, scores):
    if score <= 0:
        return False
    if len(scores) < MAX_SCORES:
        return True
    return score > scores[-1]["score"]


def add_score(scores, name, score):
    scores = scores + [{"name": name, "score": score}]
    scores.sort(key=lambda s: s["score"], reverse=True)
    return scores[:MAX_SCORES]
