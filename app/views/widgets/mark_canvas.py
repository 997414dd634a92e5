"""MarkCanvas: a frame on which a person marks what must hold — drag a box, or click a point.

Coordinates are window pixels (the frame is the target window), as a ``[[script]]`` expectation wants them.
The marks already made on the frame shown are drawn on it.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from app.views.widgets.frame_view import FrameView

MARK_COLOR = QColor("#00e5ff")
DRAWING_COLOR = QColor("#ffab00")
CLICK_MAX_PX = 3
"""A press and release at most this far apart (frame pixels) is a click on a point, not a box."""


class MarkCanvas(FrameView):
    sig_box_drawn = Signal(list)
    """Emitted with ``[x0, y0, x1, y1]`` (window pixels) when a box was dragged on the frame."""
    sig_point_clicked = Signal(list)
    """Emitted with ``[x, y]`` (window pixels) when the frame was clicked."""

    def __init__(self, title: str = "Frame after the step", parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        self.setCursor(Qt.CursorShape.CrossCursor)
        self.boxes: list[tuple[list[int], str]] = []
        """Marks shown on the frame: a box (or a point as a 1-pixel box) and its label."""
        self._from: QPointF | None = None
        self._to: QPointF | None = None

    def set_marks(self, boxes: list[tuple[list[int], str]]) -> None:
        self.boxes = boxes
        self.update()

    def _pixel(self, pos: QPointF) -> QPointF | None:
        p = self.widget_to_image(pos, clamp=False)
        image = self.image()
        if p is None or image is None:
            return None
        return QPointF(min(max(0.0, p.x()), float(image.width())), min(max(0.0, p.y()), float(image.height())))

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton or self.image() is None:
            super().mousePressEvent(event)
            return
        self._from = self._to = self._pixel(event.position())
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._from is None:
            super().mouseMoveEvent(event)
            return
        self._to = self._pixel(event.position())
        self.update()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        start, self._from = self._from, None
        if start is None:
            super().mouseReleaseEvent(event)
            return
        end = self._pixel(event.position()) or start
        self._to = None
        x0, y0 = math.floor(min(start.x(), end.x())), math.floor(min(start.y(), end.y()))
        x1, y1 = math.ceil(max(start.x(), end.x())), math.ceil(max(start.y(), end.y()))
        if x1 - x0 <= CLICK_MAX_PX and y1 - y0 <= CLICK_MAX_PX:
            self.sig_point_clicked.emit([math.floor(start.x()), math.floor(start.y())])
        else:
            self.sig_box_drawn.emit([x0, y0, x1, y1])
        self.update()
        event.accept()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        self.mousePressEvent(event)  # no zoom toggle here: a double click is two clicks on a point

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.image() is None:
            return
        to_widget = self.image_transform()  # boxes in window pixels, drawn (and labelled) in widget pixels
        p = QPainter(self)
        for box, label in self.boxes:
            p.setPen(QPen(MARK_COLOR, 2))
            rect = to_widget.mapRect(QRectF(box[0], box[1], max(1, box[2] - box[0]), max(1, box[3] - box[1])))
            p.drawRect(rect)
            p.drawText(rect.topLeft() + QPointF(3, -4), label)
        if self._from is not None and self._to is not None:
            p.setPen(QPen(DRAWING_COLOR, 2, Qt.PenStyle.DashLine))
            p.drawRect(to_widget.mapRect(QRectF(self._from, self._to).normalized()))
        p.end()
