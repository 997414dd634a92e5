"""FrameView: one screenshot at full resolution with the action and changed region drawn on it.

The frame is zoomed to fit by default; Ctrl+wheel zooms around the pointer,
dragging pans a zoomed frame, and a double-click toggles fit / 100 %.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor, QFont, QFontMetricsF, QImage, QMouseEvent, QPainter, QPaintEvent, QTransform, QWheelEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.views.widgets.action_overlay import ActionOverlay

BACKGROUND = QColor("#24262b")
PLACEHOLDER_COLOR = QColor("#9aa0a6")
MIN_ZOOM, MAX_ZOOM = 0.05, 16.0
WHEEL_ZOOM_STEP = 1.25
MARGIN = 8
TITLE_LINE_H = 24.0
SUBTITLE_LINE_H = 18.0
SUBTITLE_MAX_LINES = 3
"""A subtitle too long for the title line goes under it, on up to this many lines (three narrow differential
panes at 1280 px cut "#3 click(120, 80) · changed region highlighted" to a few words)."""
ZOOM_SAMPLE = "1600 %"
"""The widest zoom label: room kept for it beside the title."""


class FrameView(QWidget):
    sig_zoom_changed = Signal(float)
    """Emitted with the new scale (1.0 = 100 %) after a zoom, fit or resize."""

    def __init__(self, title: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("FrameView")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(160, 120)
        self.setMouseTracking(False)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)  # paints every pixel: the panes under it
        # need not repaint when a new frame comes (on each step they repainted the whole window's height)
        self._title = title
        self._subtitle = ""
        self._placeholder = "No frame"
        self._image: QImage | None = None
        self._action: dict[str, Any] | None = None
        self._bbox: Any = None
        self._zoom: float | None = None  # None: fit to the widget
        self._pan = QPointF(0, 0)
        self._drag_from: QPointF | None = None
        self.paints = 0
        """Number of completed paints (the speed benchmark waits on it)."""

    # -- content -------------------------------------------------------------------
    def set_frame(self, image: QImage | None, *, action: dict[str, Any] | None = None, bbox: Any = None,
                  subtitle: str = "", placeholder: str = "No frame") -> None:
        """Show ``image`` with ``action`` markers and the ``bbox`` changed region (both optional)."""
        size_changed = (image is None) != (self._image is None) or (
            image is not None and self._image is not None and image.size() != self._image.size())
        self._image = image
        self._action = action
        self._bbox = bbox
        self._subtitle = subtitle
        self._placeholder = placeholder
        if size_changed:
            self._pan = QPointF(0, 0)
        self.update()

    def image(self) -> QImage | None:
        return self._image

    def title(self) -> str:
        return self._title

    def set_title(self, title: str) -> None:
        """Rename the pane (the run view's "After" is "Candidate" in a differential run)."""
        self._title = title
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(480, 360)

    # -- zoom --------------------------------------------------------------------------
    def zoom_to_fit(self) -> None:
        self._zoom = None
        self._pan = QPointF(0, 0)
        self.update()
        self.sig_zoom_changed.emit(self.scale())

    def set_zoom(self, factor: float, anchor: QPointF | None = None) -> None:
        """Zoom to ``factor`` keeping the image point under ``anchor`` (widget coords) in place."""
        if self._image is None:
            return
        factor = max(MIN_ZOOM, min(MAX_ZOOM, factor))
        anchor = anchor if anchor is not None else QPointF(self.width() / 2, self.height() / 2)
        before = self.widget_to_image(anchor, clamp=False)
        self._zoom = factor
        self._pan = QPointF(0, 0)
        if before is not None:
            moved = self.image_transform().map(before)
            self._pan = QPointF(anchor.x() - moved.x(), anchor.y() - moved.y())
        self.update()
        self.sig_zoom_changed.emit(factor)

    def scale(self) -> float:
        if self._image is None or self._image.isNull():
            return 1.0
        if self._zoom is not None:
            return self._zoom
        avail_w = max(1, self.width() - 2 * MARGIN)
        avail_h = max(1, self.height() - 2 * MARGIN - self._title_height())
        return min(avail_w / self._image.width(), avail_h / self._image.height())

    def image_transform(self) -> QTransform:
        """Frame pixels → widget pixels for the current zoom and pan."""
        if self._image is None:
            return QTransform()
        s = self.scale()
        w, h = self._image.width() * s, self._image.height() * s
        top = self._title_height()
        x = (self.width() - w) / 2 + self._pan.x()
        y = top + (self.height() - top - h) / 2 + self._pan.y()
        return QTransform(s, 0, 0, s, x, y)

    def widget_to_image(self, pos: QPointF, *, clamp: bool = True) -> QPointF | None:
        """Widget position → frame pixel; None outside the frame when ``clamp``."""
        if self._image is None:
            return None
        inverse, ok = self.image_transform().inverted()
        if not ok:
            return None
        p = inverse.map(pos)
        if clamp and not (0 <= p.x() < self._image.width() and 0 <= p.y() < self._image.height()):
            return None
        return p

    def _title_height(self) -> float:
        if not self._title:
            return 0.0
        return TITLE_LINE_H + SUBTITLE_LINE_H * len(self.subtitle_lines())

    def subtitle_lines(self) -> list[str]:
        """The subtitle's lines under the title when it does not fit beside it ([] when it does, or is empty)."""
        if not self._title or not self._subtitle:
            return []
        bold = QFont(self.font())
        bold.setBold(True)
        small = QFontMetricsF(self.font())
        beside = (self.width() - 2 * MARGIN - QFontMetricsF(bold).horizontalAdvance(self._title) - 10
                  - small.horizontalAdvance(ZOOM_SAMPLE) - 10)
        if small.horizontalAdvance(self._subtitle) <= beside:
            return []
        return wrap_text(self._subtitle, small, max(1.0, self.width() - 2.0 * MARGIN), SUBTITLE_MAX_LINES)

    # -- painting ------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), BACKGROUND)
        if self._image is None or self._image.isNull():
            p.setPen(PLACEHOLDER_COLOR)
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self._placeholder)
        else:
            transform = self.image_transform()
            target = transform.mapRect(QRectF(0, 0, self._image.width(), self._image.height()))
            if abs(transform.m11() - 1.0) > 1e-6:
                p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
            p.drawImage(target, self._image)
            overlay = ActionOverlay(p, transform, target)
            overlay.changed_region(self._bbox)
            overlay.action(self._action)
        self._paint_title(p)
        p.end()
        self.paints += 1

    def _paint_title(self, p: QPainter) -> None:
        if not self._title:
            return
        font = QFont(self.font())
        font.setBold(True)
        p.setFont(font)
        p.setPen(QColor("#e8eaed"))
        fm = QFontMetricsF(font)
        p.drawText(QRectF(MARGIN, 4, self.width() - 2 * MARGIN, 20),
                   Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self._title)
        zoom = f"{self.scale() * 100:.0f} %" if self._image is not None else ""
        lines = self.subtitle_lines()
        if lines:
            p.setFont(QFont(self.font()))
            p.setPen(PLACEHOLDER_COLOR)
            for i, line in enumerate(lines):
                p.drawText(QRectF(MARGIN, TITLE_LINE_H + i * SUBTITLE_LINE_H, self.width() - 2 * MARGIN,
                                  SUBTITLE_LINE_H), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, line)
        elif self._subtitle:
            small = QFont(self.font())
            p.setFont(small)
            p.setPen(PLACEHOLDER_COLOR)
            x = MARGIN + fm.horizontalAdvance(self._title) + 10
            room = self.width() - x - MARGIN - (QFontMetricsF(small).horizontalAdvance(zoom) + 10 if zoom else 0)
            text = QFontMetricsF(small).elidedText(self._subtitle, Qt.TextElideMode.ElideRight, max(0.0, room))
            p.drawText(QRectF(x, 4, max(0.0, room), 20), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                       text)
        if zoom:
            p.setFont(QFont(self.font()))
            p.setPen(PLACEHOLDER_COLOR)
            p.drawText(QRectF(MARGIN, 4, self.width() - 2 * MARGIN, 20),
                       Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, zoom)

    # -- interaction ------------------------------------------------------------------------
    def wheelEvent(self, event: QWheelEvent) -> None:
        if self._image is None or not event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            event.ignore()
            return
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.set_zoom(self.scale() * (WHEEL_ZOOM_STEP ** steps), event.position())
        event.accept()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if self._zoom is None:
            self.set_zoom(1.0, event.position())
        else:
            self.zoom_to_fit()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self._zoom is not None:
            self._drag_from = event.position()
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
        else:
            super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._drag_from is not None:
            delta = event.position() - self._drag_from
            self._drag_from = event.position()
            self._pan = QPointF(self._pan.x() + delta.x(), self._pan.y() + delta.y())
            self.update()
        else:
            super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._drag_from is not None:
            self._drag_from = None
            self.unsetCursor()
        else:
            super().mouseReleaseEvent(event)


def wrap_text(text: str, metrics: QFontMetricsF, width: float, max_lines: int) -> list[str]:
    """``text`` broken at spaces into lines no wider than ``width``; the last of ``max_lines`` is elided."""
    lines: list[str] = []
    words = text.split(" ")
    while words and len(lines) < max_lines:
        line = words.pop(0)
        while words and metrics.horizontalAdvance(f"{line} {words[0]}") <= width:
            line += " " + words.pop(0)
        if len(lines) == max_lines - 1 and words:
            line = " ".join([line, *words])
            words = []
        lines.append(metrics.elidedText(line, Qt.TextElideMode.ElideRight, width))
    return lines
