"""Pairs (app/engine/testers/explore/pairs.py): what a click turned over is remembered by place, and two
places that showed alike pictures are clicked one after the other; a second click once per place."""

from __future__ import annotations

import numpy as np
import pytest

from app.engine.play.actions import Click
from app.engine.play.observer import Frame
from app.engine.play.xwidgets import Widget
from app.engine.testers.explore.pairs import Pairs, alike, face

from suite import TARGETS, needs_xvfb

W, H = 200, 100
BACK = (200, 120, 60)  # BGR: a blue card back
CARDS = [Widget(10, 10, 50, 60), Widget(60, 10, 100, 60), Widget(110, 10, 150, 60)]


def board(shown: dict[int, str]) -> Frame:
    """Three cards: face down, or showing a red 'disc' or a green 'bar' at any place."""
    arr = np.zeros((H, W, 4), dtype=np.uint8)
    arr[..., :3] = (80, 50, 40)
    for i, w in enumerate(CARDS):
        arr[w.y0:w.y1, w.x0:w.x1, :3] = BACK
        what = shown.get(i)
        if what is None:
            continue
        arr[w.y0:w.y1, w.x0:w.x1, :3] = (245, 250, 250)
        cx, cy = w.center
        if what == "disc":
            yy, xx = np.ogrid[:H, :W]
            arr[(yy - cy) ** 2 + (xx - cx) ** 2 <= 100, :3] = (50, 60, 220)
        else:
            arr[cy - 3:cy + 3, cx - 10:cx + 10, :3] = (60, 170, 40)
    return Frame(W, H, arr.tobytes(), 0.0)


def test_a_face_is_the_same_at_another_place_and_differs_from_another_symbol():
    disc0, disc2, bar1 = face(board({0: "disc"}), (10, 10, 50, 60)), face(board({2: "disc"}), (110, 10, 150, 60)), \
        face(board({1: "bar"}), (60, 10, 100, 60))
    assert disc0 is not None and disc2 is not None and bar1 is not None
    assert alike(disc0, disc2)
    assert not alike(disc0, bar1)
    assert face(board({}), (10, 10, 50, 60)) is None  # a plain back: nothing drawn in its middle


def test_a_face_seen_before_elsewhere_is_clicked_next_and_each_pair_once():
    pairs = Pairs()
    c = [Click(*w.center) for w in CARDS]
    pairs.saw(c[0], CARDS[0], board({}), board({0: "disc"}))
    assert pairs.next_click() is None  # one face known: nothing to pair
    pairs.saw(c[1], CARDS[1], board({0: "disc"}), board({0: "disc", 1: "bar"}))
    assert pairs.next_click() is None
    pairs.saw(c[2], CARDS[2], board({}), board({2: "disc"}))  # the disc again, at the third card
    chosen = pairs.next_click()
    assert chosen is not None and chosen[0] == c[0] and chosen[1].startswith("the pair")
    pairs.saw(c[0], None, board({2: "disc"}), board({0: "disc", 2: "disc"}))
    assert pairs.next_click() is None  # paired: not again


def test_two_alike_places_known_from_earlier_turns_begin_a_pair():
    pairs = Pairs()
    c = [Click(*w.center) for w in CARDS]
    pairs.saw(c[0], CARDS[0], board({}), board({0: "disc"}))
    pairs.saw(Click(1, 1), None, board({}), board({}))  # another input between: not clicked one after the other
    pairs.saw(c[2], CARDS[2], board({}), board({2: "disc"}))
    pairs.saw(Click(1, 1), None, board({}), board({}))
    chosen = pairs.next_click()
    assert chosen is not None and chosen[0] == c[0] and chosen[1].startswith("begin a pair")
    pairs.saw(c[0], None, board({}), board({}))  # it turned nothing over (taken already): given up
    assert pairs.next_click() is None


def test_a_click_that_changed_nothing_in_its_widget_is_not_remembered():
    pairs = Pairs()
    pairs.saw(Click(*CARDS[0].center), CARDS[0], board({0: "disc"}), board({0: "disc"}))
    assert not pairs.places


@pytest.mark.xvfb
@needs_xvfb
def test_the_explorer_wins_a_drawn_memory_game_by_remembering_faces(db_path):
    from app.engine.run.session import RunConfig, Session
    from app.engine.testers.explore.explorer import Explorer
    from app.engine.trace.store import TrajectoryStore

    store = TrajectoryStore(db_path)
    explorer = Explorer(second_clicks=True, go_explore=False)
    result = Session(RunConfig(str(TARGETS / "cards_pg"), max_steps=48, seed=0), store, tester=explorer).run()
    rows = store.steps(result.run_id)
    logs = [row["text"] for row in store.logs(result.run_id)]
    store.close()
    assert result.status == "completed", result.error
    assert "won" in logs, ([r["rationale"][:90] for r in rows], logs)
    assert any(r["rationale"].startswith("the pair") for r in rows)
