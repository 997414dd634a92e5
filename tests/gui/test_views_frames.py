"""Frame display: every action type is drawn, the changed region is highlighted, decoding is cached."""

from __future__ import annotations

import pytest
from views_support import SYNTHETIC_ACTIONS, png_bytes, synthetic_frames

from PySide6.QtCore import QPointF, Qt  # noqa: E402
from PySide6.QtGui import QColor, QImage  # noqa: E402

from app.views.widgets.frame_cache import FrameCache  # noqa: E402
from app.views.widgets.frame_view import FrameView  # noqa: E402
from app.views.live.key_names import key_action  # noqa: E402

ALL_ACTIONS = [*SYNTHETIC_ACTIONS, {"action": "finish", "verdict": "pass", "reason": "done"},
               {"action": "unknown-thing"}, {"action": "click"}, "not a dict", None]


def _frame() -> QImage:
    image = QImage(640, 480, QImage.Format.Format_RGB32)
    image.fill(QColor("#203040"))
    return image


def _render(view: FrameView) -> QImage:
    return view.grab().toImage()


@pytest.fixture
def frame_view(qtbot):
    view = FrameView("Before")
    view.resize(700, 560)
    qtbot.addWidget(view)
    view.show()
    return view


@pytest.mark.parametrize("action", ALL_ACTIONS, ids=lambda a: a.get("action") if isinstance(a, dict) else str(a))
def test_frame_view_draws_each_action_type(frame_view, action):
    frame_view.set_frame(_frame())
    plain = _render(frame_view)
    frame_view.set_frame(_frame(), action=action)  # type: ignore[arg-type]
    drawn = _render(frame_view)
    assert frame_view.paints >= 2
    drawable = isinstance(action, dict) and action.get("action") not in (None,) and (
        action.get("action") != "click" or "x" in action)
    assert (drawn != plain) == drawable


def test_click_marker_lands_on_the_action_point(frame_view):
    frame_view.set_frame(_frame(), action={"action": "click", "x": 320, "y": 240})
    image = _render(frame_view)
    centre = frame_view.image_transform().map(QPointF(320, 240))
    ring = frame_view.image_transform().map(QPointF(320, 240)) + QPointF(13, 0)
    assert QColor(image.pixel(int(ring.x()), int(ring.y()))) != QColor("#203040")
    assert frame_view.widget_to_image(centre) == QPointF(320, 240)


def test_changed_region_is_highlighted_translucently(frame_view):
    frame_view.set_frame(_frame())
    plain = _render(frame_view)
    frame_view.set_frame(_frame(), bbox=[100, 100, 300, 200])
    boxed = _render(frame_view)
    inside = frame_view.image_transform().map(QPointF(200, 150))
    outside = frame_view.image_transform().map(QPointF(500, 400))
    p_in, b_in = QColor(plain.pixel(inside.toPoint())), QColor(boxed.pixel(inside.toPoint()))
    assert b_in != p_in and b_in.blue() > p_in.blue()  # tinted, not covered
    assert plain.pixel(outside.toPoint()) == boxed.pixel(outside.toPoint())
    frame_view.set_frame(_frame(), bbox="garbage")  # malformed rows never break painting
    _render(frame_view)


def test_zoom_to_fit_and_wheel_zoom(frame_view, qtbot):
    frame_view.set_frame(_frame())
    fit = frame_view.scale()
    assert fit == pytest.approx(min((700 - 16) / 640, (560 - 16 - 24) / 480))
    frame_view.set_zoom(2.0, QPointF(350, 280))
    assert frame_view.scale() == 2.0
    before = frame_view.widget_to_image(QPointF(350, 280))
    frame_view.set_zoom(3.0, QPointF(350, 280))
    after = frame_view.widget_to_image(QPointF(350, 280))
    assert before is not None and after is not None
    assert abs(before.x() - after.x()) < 1 and abs(before.y() - after.y()) < 1  # anchored zoom
    frame_view.zoom_to_fit()
    assert frame_view.scale() == fit
    frame_view.set_frame(None, placeholder="nothing here")
    _render(frame_view)


class _Frames:
    def __init__(self, images):
        self.data = {f"sha{i}": png_bytes(img) for i, img in enumerate(images)}
        self.reads = 0

    def frame(self, sha):
        self.reads += 1
        data = self.data.get(sha)
        return type("Stored", (), {"data": data})() if data else None


def test_frame_cache_decodes_once_and_respects_its_budget(qapp):
    source = _Frames(synthetic_frames(6))
    one_frame = 640 * 480 * 4
    cache = FrameCache(source, image_budget=3 * one_frame)
    first = cache.image("sha0")
    assert first is not None and first.size().width() == 640
    assert cache.image("sha0") is first and cache.decodes == 1
    thumb = cache.thumbnail("sha0")
    assert thumb is not None and max(thumb.width(), thumb.height()) == cache.thumb_size
    assert cache.decodes == 1  # thumbnail made from the cached full image
    for i in range(6):
        cache.image(f"sha{i}")
    assert cache.cached_bytes <= 3 * one_frame + 6 * cache.thumb_size ** 2 * 4
    assert cache.image("missing") is None and cache.image(None) is None
    reads = source.reads
    assert cache.image("missing") is None and source.reads == reads  # misses are remembered


@pytest.mark.parametrize(
    ("key", "text", "mods", "expected"),
    [
        (Qt.Key.Key_A, "a", Qt.KeyboardModifier.NoModifier, {"action": "press", "key": "a"}),
        (Qt.Key.Key_7, "7", Qt.KeyboardModifier.NoModifier, {"action": "press", "key": "7"}),
        (Qt.Key.Key_Space, " ", Qt.KeyboardModifier.NoModifier, {"action": "press", "key": "space"}),
        (Qt.Key.Key_Return, "\r", Qt.KeyboardModifier.NoModifier, {"action": "press", "key": "enter"}),
        (Qt.Key.Key_Escape, "", Qt.KeyboardModifier.NoModifier, {"action": "press", "key": "escape"}),
        (Qt.Key.Key_Backspace, "", Qt.KeyboardModifier.NoModifier, {"action": "press", "key": "backspace"}),
        (Qt.Key.Key_Tab, "\t", Qt.KeyboardModifier.NoModifier, {"action": "press", "key": "tab"}),
        (Qt.Key.Key_Left, "", Qt.KeyboardModifier.NoModifier, {"action": "press", "key": "left"}),
        (Qt.Key.Key_F5, "", Qt.KeyboardModifier.NoModifier, {"action": "press", "key": "f5"}),
        (Qt.Key.Key_S, "\x13", Qt.KeyboardModifier.ControlModifier, {"action": "hotkey", "keys": ["ctrl", "s"]}),
        (Qt.Key.Key_A, "A", Qt.KeyboardModifier.ShiftModifier, {"action": "type", "text": "A"}),
        (Qt.Key.Key_Shift, "", Qt.KeyboardModifier.ShiftModifier, None),
    ],
)
def test_qt_keys_map_to_engine_key_names(key, text, mods, expected):
    assert key_action(int(key), text, mods) == expected
