"""FilmStripView: a horizontal strip of "after" thumbnails over the same steps model.

Only visible items ask for ``DecorationRole``, so thumbnails are decoded as
the strip scrolls and then come from the frame cache.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPen, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView, QFrame, QListView, QStyle, QStyleOptionViewItem, QWidget,
)

from app.views.widgets.frame_cache import THUMB_SIZE
from app.views.run.step_delegate import StepDelegate
from app.views.run.steps_model import StepsModel
from app.views.widgets.verdict_style import VERDICT_COLORS, outcome_color
from app.views.widgets.step_number import step_text

CELL = QSize(THUMB_SIZE + 14, THUMB_SIZE + 24)
STRIP_HEIGHT = CELL.height() + 22
STRIP_BACKGROUND = QColor("#eceef1")


class _ThumbDelegate(StepDelegate):
    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._font = QFont(parent.font())
        self._font.setPointSizeF(max(7.0, parent.font().pointSizeF() - 1.5))

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        return CELL

    def _paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex,
               step: dict[str, Any]) -> None:
        rect: QRect = option.rect  # type: ignore[attr-defined]
        selected = bool(option.state & QStyle.StateFlag.State_Selected)  # type: ignore[attr-defined]
        palette = option.palette  # type: ignore[attr-defined]
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        cell = rect.adjusted(3, 3, -3, -3)
        if selected:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(palette.highlight())
            painter.drawRoundedRect(cell, 6, 6)
        box = QRect(cell.left() + 4, cell.top() + 4, THUMB_SIZE, THUMB_SIZE)
        thumb = index.data(Qt.ItemDataRole.DecorationRole)
        if isinstance(thumb, QPixmap) and not thumb.isNull():
            target = QRect(0, 0, thumb.width(), thumb.height())
            target.moveCenter(box.center())
            painter.drawPixmap(target, thumb)
            painter.setPen(QPen(QColor(0, 0, 0, 60), 1))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(target.adjusted(0, 0, -1, -1))
        else:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(0, 0, 0, 25))
            painter.drawRoundedRect(box, 4, 4)
        label = QRect(cell.left(), box.bottom() + 2, cell.width(), cell.bottom() - box.bottom() - 2)
        marker = None
        model = index.model()
        if model.kinds_of(step) if isinstance(model, StepsModel) else step.get("findings"):
            marker = QColor(VERDICT_COLORS["fail"])
        elif step.get("outcome") not in (None, "ok"):
            marker = outcome_color(step.get("outcome"))
        if marker is not None:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(marker)
            painter.drawEllipse(QRect(label.left() + 6, label.center().y() - 3, 7, 7))
        painter.setFont(self._font)
        painter.setPen(palette.highlightedText().color() if selected else palette.text().color())
        text = step_text(step['idx']) + (" · human" if step.get("actor") == "human" else "")
        painter.drawText(label, Qt.AlignmentFlag.AlignCenter, text)


class FilmStripView(QListView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("FilmStrip")
        self.setViewMode(QListView.ViewMode.IconMode)
        self.setFlow(QListView.Flow.LeftToRight)
        self.setWrapping(False)
        self.setMovement(QListView.Movement.Static)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setUniformItemSizes(True)
        self.setGridSize(CELL)
        self.setIconSize(QSize(THUMB_SIZE, THUMB_SIZE))
        self.setSpacing(0)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFixedHeight(STRIP_HEIGHT)
        self.setItemDelegate(_ThumbDelegate(self))
        # Opaque: scrolling by one cell blits the viewport and paints only the new cell.
        self.viewport().setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self.viewport())
        painter.fillRect(event.rect(), STRIP_BACKGROUND)
        painter.end()
        super().paintEvent(event)
