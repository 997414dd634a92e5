"""A step after which the window was gone: the After pane says so, not "changed region highlighted"."""

from __future__ import annotations

import pytest
from PIL import Image
import views_support  # noqa: F401  (offscreen Qt)

from app.views.model.database import Database  # noqa: E402
from app.engine.trace.store import TrajectoryStore  # noqa: E402
from app.views.run.run_view import RunView  # noqa: E402
from app.views.widgets.after_caption import CHANGED, WINDOW_GONE  # noqa: E402


@pytest.fixture
def run_view(qtbot):
    view = RunView()
    view.resize(1100, 800)
    qtbot.addWidget(view)
    view.show()
    return view


def test_a_dead_window_is_said_gone_and_a_real_change_is_still_highlighted(run_view, tmp_path):
    store = TrajectoryStore(tmp_path / "gone.db")
    live = Image.new("RGB", (80, 60), "white")
    live.paste((200, 30, 30), (10, 10, 40, 30))
    moved = Image.new("RGB", (80, 60), "white")
    moved.paste((200, 30, 30), (30, 20, 60, 40))
    frames = [store.put_image(im) for im in (live, moved, Image.new("RGB", (80, 60), "black"))]
    run_id = store.create_run(target="calc", tester="offline")
    for i in range(2):
        store.add_step(run_id, i, {"action": {"action": "press", "key": "r"}, "outcome": "ok",
                                   "frame_before": frames[i], "frame_after": frames[i + 1],
                                   "changed_bbox": [0, 0, 80, 60], "started_at": float(i), "ended_at": i + 0.5})
    store.finish_run(run_id, status="completed", verdict="fail", reason="crash")
    run_view.set_database(Database(store))
    run_view.open_run(run_id)
    run_view.go_to_row(0)
    assert run_view.after._subtitle == CHANGED and run_view.after._bbox == [0, 0, 80, 60]
    run_view.go_to_row(1)
    assert run_view.after._subtitle == WINDOW_GONE and "highlighted" not in run_view.after._subtitle
    assert run_view.after._bbox is None
    store.close()
