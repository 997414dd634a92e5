"""Take-over: the banner lies above the target's picture, never over its top, and the status bar keeps saying
TAKE-OVER after the person's steps are recorded."""

from __future__ import annotations

from views_support import isolated_settings  # noqa: F401

from PySide6.QtCore import QRect, QRectF  # noqa: E402

from app.engine.play.events import StepRecorded  # noqa: E402
from test_views_takeover import paused  # noqa: E402,F401


def test_banner_above_the_picture_and_take_over_in_the_status_bar(paused, qtbot):
    win, live = paused
    view = win.run_view.live
    image = view.image()
    assert image is not None
    before = view.image_transform().mapRect(QRectF(0, 0, image.width(), image.height()))
    assert view.set_takeover(True) and view.banner.isVisible()
    qtbot.wait(20)
    picture = view.image_transform().mapRect(QRectF(0, 0, image.width(), image.height())).toAlignedRect()
    banner = view.banner.geometry()
    assert not banner.intersects(picture), (banner, picture)
    assert banner.bottom() < picture.top()
    subtitle_bottom = 24 + 18 * len(view.subtitle_lines())
    assert banner.top() >= subtitle_bottom  # nor over the pane's title and state line
    assert picture.top() > before.top()
    assert "TAKE-OVER" in win.live_controls.label.text()
    event = StepRecorded(run_id=live.run_id or 0, idx=3, action={"action": "press", "key": "a"}, outcome="ok",
                         frame_after=None, changed_bbox=None, settle_ms=1.0)
    win.live_controls._on_live_step_recorded(event)
    assert "TAKE-OVER" in win.live_controls.label.text() and "step 4" in win.live_controls.label.text()
    view.set_takeover(False)
    assert "TAKE-OVER" not in win.live_controls.label.text()
    assert isinstance(banner, QRect)
