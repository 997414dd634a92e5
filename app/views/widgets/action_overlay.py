"""ActionOverlay: draws a recorded action and the changed region over a painted frame.

Actions carry window-relative pixel coordinates (the frame's own pixels), so
one image → widget transform places every marker.  Markers keep a constant
on-screen size whatever the zoom, so they stay readable on a fitted frame.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF, QTransform

CLICK_COLOR = QColor("#ff6d00")
RIGHT_CLICK_COLOR = QColor("#aa00ff")
DRAG_COLOR = QColor("#00b0ff")
SCROLL_COLOR = QColor("#00c853")
BBOX_FILL = QColor(0, 176, 255, 48)
BBOX_EDGE = QColor(0, 176, 255, 220)
CAPTION_BG = QColor(20, 22, 26, 210)
MARKER_RADIUS = 13.0
ARROW_HEAD = 12.0
SCROLL_ARROW = 46.0
_KEY_GLYPHS = {"enter": "⏎ enter", "return": "⏎ enter", "space": "␣ space", "tab": "⇥ tab",
               "backspace": "⌫ backspace", "escape": "esc", "up": "↑", "down": "↓", "left": "←", "right": "→"}


def _xy(action: dict[str, Any], kx: str = "x", ky: str = "y") -> QPointF | None:
    try:
        return QPointF(float(action[kx]), float(action[ky]))
    except (KeyError, TypeError, ValueError):
        return None


class ActionOverlay:
    """Paints onto ``painter`` with ``transform`` mapping frame pixels to widget pixels."""

    def __init__(self, painter: QPainter, transform: QTransform, frame_rect: QRectF) -> None:
        self.p = painter
        self.t = transform
        self.frame_rect = frame_rect  # where the frame lies, in widget coordinates

    # -- changed region ----------------------------------------------------------
    def changed_region(self, bbox: Any) -> None:
        """``bbox`` = [x0, y0, x1, y1] (exclusive ends), translucent fill with a solid edge."""
        if not isinstance(bbox, (list, tuple)) or len(bbox) != 4:
            return
        try:
            x0, y0, x1, y1 = (float(v) for v in bbox)
        except (TypeError, ValueError):
            return
        rect = self.t.mapRect(QRectF(x0, y0, max(1.0, x1 - x0), max(1.0, y1 - y0)))
        self.p.save()
        self.p.setPen(QPen(BBOX_EDGE, 1.5, Qt.PenStyle.DashLine))
        self.p.setBrush(BBOX_FILL)
        self.p.drawRect(rect)
        self.p.restore()

    # -- actions -----------------------------------------------------------------
    def action(self, action: Any) -> None:
        if not isinstance(action, dict):
            return
        name = str(action.get("action") or "")
        self.p.save()
        self.p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        if name in ("click", "double_click", "right_click"):
            self._click(action, name)
        elif name == "drag":
            self._drag(action)
        elif name == "scroll":
            self._scroll(action)
        elif name == "type":
            self._caption(f"⌨ “{action.get('text', '')}”")
        elif name == "press":
            key = str(action.get("key", ""))
            self._caption(f"key  {_KEY_GLYPHS.get(key.lower(), key)}")
        elif name == "hotkey":
            keys = action.get("keys") or []
            self._caption("keys  " + "+".join(str(k) for k in keys))
        elif name == "wait":
            self._caption(f"wait {action.get('seconds', '?')} s")
        elif name == "finish":
            self._caption(f"finish: {action.get('verdict', '?')}")
        elif name:
            self._caption(name)
        self.p.restore()

    def _click(self, action: dict[str, Any], name: str) -> None:
        point = _xy(action)
        if point is None:
            return
        c = self.t.map(point)
        color = RIGHT_CLICK_COLOR if name == "right_click" else CLICK_COLOR
        r = MARKER_RADIUS
        self.p.setBrush(Qt.BrushStyle.NoBrush)
        self.p.setPen(QPen(QColor(255, 255, 255, 220), 5))
        self.p.drawEllipse(c, r, r)
        self.p.setPen(QPen(color, 2.5))
        self.p.drawEllipse(c, r, r)
        if name == "double_click":
            self.p.drawEllipse(c, r * 0.55, r * 0.55)
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            self.p.setPen(QPen(QColor(255, 255, 255, 220), 4))
            self.p.drawLine(QPointF(c.x() + dx * r * 0.4, c.y() + dy * r * 0.4),
                            QPointF(c.x() + dx * r * 1.7, c.y() + dy * r * 1.7))
            self.p.setPen(QPen(color, 1.8))
            self.p.drawLine(QPointF(c.x() + dx * r * 0.4, c.y() + dy * r * 0.4),
                            QPointF(c.x() + dx * r * 1.7, c.y() + dy * r * 1.7))
        label = {"double_click": "2×", "right_click": "R"}.get(name)
        if label:
            self._tag(QPointF(c.x() + r + 4, c.y() - r - 4), label, color)

    def _drag(self, action: dict[str, Any]) -> None:
        a, b = _xy(action), _xy(action, "x2", "y2")
        if a is None or b is None:
            return
        start, end = self.t.map(a), self.t.map(b)
        self._arrow(start, end, DRAG_COLOR)
        self.p.setPen(QPen(QColor("white"), 2))
        self.p.setBrush(DRAG_COLOR)
        self.p.drawEllipse(start, 5.5, 5.5)

    def _scroll(self, action: dict[str, Any]) -> None:
        point = _xy(action)
        if point is None:
            return
        c = self.t.map(point)
        direction = str(action.get("direction", "down"))
        dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}.get(direction, (0, 1))
        end = QPointF(c.x() + dx * SCROLL_ARROW, c.y() + dy * SCROLL_ARROW)
        self.p.setPen(QPen(QColor("white"), 2))
        self.p.setBrush(SCROLL_COLOR)
        self.p.drawEllipse(c, 5.5, 5.5)
        self._arrow(c, end, SCROLL_COLOR)
        self._tag(QPointF(c.x() + 10, c.y() - 12), f"scroll {direction} ×{action.get('amount', 1)}", SCROLL_COLOR)

    def _arrow(self, start: QPointF, end: QPointF, color: QColor) -> None:
        angle = math.atan2(end.y() - start.y(), end.x() - start.x())
        head = QPolygonF([
            end,
            QPointF(end.x() - ARROW_HEAD * math.cos(angle - 0.45), end.y() - ARROW_HEAD * math.sin(angle - 0.45)),
            QPointF(end.x() - ARROW_HEAD * math.cos(angle + 0.45), end.y() - ARROW_HEAD * math.sin(angle + 0.45)),
        ])
        shaft_end = QPointF(end.x() - ARROW_HEAD * 0.8 * math.cos(angle), end.y() - ARROW_HEAD * 0.8 * math.sin(angle))
        self.p.setPen(QPen(QColor(255, 255, 255, 210), 6, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
        self.p.drawLine(start, shaft_end)
        self.p.setPen(QPen(color, 3, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
        self.p.drawLine(start, shaft_end)
        self.p.setPen(QPen(QColor("white"), 1.5))
        self.p.setBrush(QBrush(color))
        self.p.drawPolygon(head)

    def _tag(self, at: QPointF, text: str, color: QColor) -> None:
        font = QFont(self.p.font())
        font.setBold(True)
        font.setPointSizeF(max(7.5, font.pointSizeF() - 1))
        fm = QFontMetricsF(font)
        box = QRectF(at.x(), at.y() - fm.height(), fm.horizontalAdvance(text) + 8, fm.height() + 2)
        self.p.setFont(font)
        self.p.setPen(Qt.PenStyle.NoPen)
        self.p.setBrush(color)
        self.p.drawRoundedRect(box, 3, 3)
        self.p.setPen(QColor("white"))
        self.p.drawText(box, Qt.AlignmentFlag.AlignCenter, text)

    def _caption(self, text: str) -> None:
        """A dark caption box at the bottom of the frame for typed text, keys and non-pointer actions."""
        font = QFont(self.p.font())
        font.setPointSizeF(font.pointSizeF() + 1)
        font.setBold(True)
        fm = QFontMetricsF(font)
        max_w = max(40.0, self.frame_rect.width() - 24)
        text = fm.elidedText(text, Qt.TextElideMode.ElideRight, max_w - 20)
        w = min(max_w, fm.horizontalAdvance(text) + 20)
        h = fm.height() + 12
        box = QRectF(self.frame_rect.left() + 12, self.frame_rect.bottom() - h - 12, w, h)
        path = QPainterPath()
        path.addRoundedRect(box, 6, 6)
        self.p.setPen(Qt.PenStyle.NoPen)
        self.p.fillPath(path, CAPTION_BG)
        self.p.setFont(font)
        self.p.setPen(QColor("white"))
        self.p.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
