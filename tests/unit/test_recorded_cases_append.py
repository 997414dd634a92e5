"""Saving a recorded case adds it after the cases saved before; a second case never replaces the first."""

from __future__ import annotations

import shutil
import tomllib

from PIL import Image

from suite import TARGETS
from app.engine.rubric.record import RECORDED_FILE, CaseDraft, load_run
from app.engine.trace.store import TrajectoryStore


def _stored_run(db, folder) -> int:
    store = TrajectoryStore(db)
    white, red = Image.new("RGB", (240, 120), "white"), Image.new("RGB", (240, 120), "white")
    red.paste((255, 0, 0), (0, 0, 20, 40))
    shas = [store.put_image(white), store.put_image(red)]
    run_id = store.create_run(target="rubric-tk", target_path=str(folder), tester="offline", display="isolated",
                              seed=0, max_steps=2)
    with store.transaction():
        for i, (actor, action) in enumerate((("tester", {"action": "click", "x": 5, "y": 100}),
                                             ("human", {"action": "press", "key": "space"}))):
            store.add_step(run_id, i, {"actor": actor, "action": action, "outcome": "ok", "rationale": "",
                                       "frame_before": shas[0], "frame_after": shas[i], "settle_ms": 1.0,
                                       "settled": 1, "started_at": 0.0, "ended_at": 0.1})
    store.finish_run(run_id, status="completed", verdict="pass", reason="")
    store.close()
    return run_id


def test_a_second_saved_case_is_added_after_the_first(tmp_path):
    target = tmp_path / "rubric_tk"
    shutil.copytree(TARGETS / "rubric_tk", target)
    db = tmp_path / "stored.db"
    run_id = _stored_run(db, target)
    saved = []
    for name, box in (("first", [0, 0, 20, 40]), ("second", [0, 0, 30, 30])):
        draft = CaseDraft(load_run(db, run_id), criterion=f"by-hand-{name}", name=name)
        draft.mark("similar", 0, region=box)
        saved.append(draft.save())
    data = tomllib.loads((target / RECORDED_FILE).read_text())
    names = [case.get("label") or case.get("name") for case in data["script"]]
    assert names[-2:] == ["first", "second"], names
    pictures = [case["expect"][0]["reference"] for case in data["script"][-2:]]
    assert len(set(pictures)) == 2 and all((target / p).is_file() for p in pictures)
    assert "appended" in saved[1].sentence
