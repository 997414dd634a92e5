"""A text mark is checked with OCR on the frame it was drawn on before it joins the case.

A large white "5" on the calculator's dark display was read as '>', 'S' or '' and the case was saved anyway:
it then failed on the very frame it was recorded from."""

from __future__ import annotations

import shutil

import pytest
from PIL import Image, ImageDraw, ImageFont

from suite import TARGETS
from app.engine.errors import UserError
from app.engine.judge.expectations import ocr_engine
from app.engine.rubric.record import CaseDraft, load_run
from app.engine.trace.store import TrajectoryStore

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


def _run_showing_five(db, folder) -> int:
    store = TrajectoryStore(db)
    shown = Image.new("RGB", (320, 120), (40, 44, 52))
    ImageDraw.Draw(shown).text((240, 20), "5", fill="white", font=ImageFont.truetype(FONT, 56))
    sha = store.put_image(shown)
    run_id = store.create_run(target="rubric-tk", target_path=str(folder), tester="offline", display="isolated",
                              seed=0, max_steps=1)
    store.add_step(run_id, 0, {"actor": "human", "action": {"action": "press", "key": "5"}, "outcome": "ok",
                               "frame_before": sha, "frame_after": sha, "started_at": 0.0, "ended_at": 0.1})
    store.finish_run(run_id, status="completed", verdict="pass", reason="")
    store.close()
    return run_id


@pytest.mark.skipif(ocr_engine() is None, reason="tesseract is not installed")
def test_a_text_mark_is_read_on_its_own_frame_before_it_is_kept(tmp_path):
    target = tmp_path / "rubric_tk"
    shutil.copytree(TARGETS / "rubric_tk", target)
    db = tmp_path / "five.db"
    draft = CaseDraft(load_run(db, _run_showing_five(db, target)), criterion="shows-five")
    mark = draft.mark("text", 0, region=[200, 5, 315, 110], text="5")
    assert mark.params["contains"] == "5" and draft.marks == [mark]
    with pytest.raises(UserError, match="OCR reads .* on the frame it was drawn on"):
        draft.mark("text", 0, region=[10, 10, 120, 100], text="7")
    assert len(draft.marks) == 1
