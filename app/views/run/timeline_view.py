"""TimelineView: the run's actions as a compact list, ``#idx caption outcome``.

Rows are painted by a small delegate that never asks the model for the
thumbnail (``DecorationRole`` is for the film strip), so scrolling the text
timeline decodes no frames.  Moving one step scrolls the list and repaints
every visible row, so a row is kept cheap: plain fills, two texts and
pre-rendered chips (the outcome and the "human" tag), no style-sheet drawing.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPaintEvent, QPixmap
from PySide6.QtWidgets import QAbstractItemView, QListView, QStyle, QStyleOptionViewItem, QWidget

from app.views.run.step_delegate import StepDelegate
from app.views.run.steps_model import BADGE_ROLE, StepsModel
from app.views.widgets.verdict_style import VERDICT_COLORS
from app.views.widgets.step_number import step_text

ROW_HEIGHT = 24
IDX_WIDTH = 48
HUMAN_TAG = "human"
HUMAN_COLOR = QColor("#6a1b9a")
ALTERNATE_ROW = QColor(0, 0, 0, 8)


class _StepRowDelegate(StepDelegate):
    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._mono = QFont("DejaVu Sans Mono")
        self._mono.setStyleHint(QFont.StyleHint.Monospace)
        self._mono.setPointSizeF(max(8.0, parent.font().pointSizeF() - 0.5))
        self._mono_metrics = QFontMetrics(self._mono)
        self._small = QFont(parent.font())
        self._small.setPointSizeF(max(7.0, parent.font().pointSizeF() - 1.5))
        self._small_metrics = QFontMetrics(self._small)
        self._chips: dict[tuple[str, bool, bool], QPixmap] = {}
        self._dpr = parent.devicePixelRatioF()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        return QSize(200, ROW_HEIGHT)

    def _paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex,
               step: dict[str, Any]) -> None:
        rect: QRect = option.rect  # type: ignore[attr-defined]
        palette = option.palette  # type: ignore[attr-defined]
        selected = bool(option.state & QStyle.StateFlag.State_Selected)  # type: ignore[attr-defined]
        if selected:
            painter.fillRect(rect, palette.highlight())
        elif index.row() % 2:
            painter.fillRect(rect, ALTERNATE_ROW)
        text_color = palette.highlightedText().color() if selected else palette.text().color()
        muted = QColor(text_color)
        muted.setAlpha(150)
        painter.setFont(self._small)
        painter.setPen(muted)
        painter.drawText(QRect(rect.left() + 6, rect.top(), IDX_WIDTH - 8, rect.height()),
                         Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, step_text(step['idx']))
        x = rect.left() + 6 + IDX_WIDTH
        right = rect.right() - 6
        badge = index.data(BADGE_ROLE)
        outcome, color = badge if badge else ("", QColor())
        if outcome:
            chip = self._chip(outcome, color, selected, filled=True)
            right -= round(chip.width() / self._dpr)
            painter.drawPixmap(right, rect.top() + (rect.height() - round(chip.height() / self._dpr)) // 2, chip)
            right -= 6
        model = index.model()
        kinds = model.kinds_of(step) if isinstance(model, StepsModel) else step.get("findings")
        if kinds:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(VERDICT_COLORS["fail"]))
            painter.drawEllipse(QRect(right - 8, rect.center().y() - 4, 8, 8))
            right -= 14
        if step.get("actor") == HUMAN_TAG:
            tag = self._chip(HUMAN_TAG, HUMAN_COLOR, selected, filled=False)
            right -= round(tag.width() / self._dpr)
            painter.drawPixmap(right, rect.top() + (rect.height() - round(tag.height() / self._dpr)) // 2, tag)
            right -= 6
        painter.setFont(self._mono)
        painter.setPen(text_color)
        width = max(0, right - x)
        caption = self._mono_metrics.elidedText(StepsModel.caption_of(step), Qt.TextElideMode.ElideRight, width)
        painter.drawText(QRect(x, rect.top(), width, rect.height()),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, caption)

    def _chip(self, text: str, color: QColor, selected: bool, *, filled: bool) -> QPixmap:
        """A small rounded label, rendered once per (text, state) and reused for every row."""
        key = (text, selected, filled)
        chip = self._chips.get(key)
        if chip is not None:
            return chip
        w, h = self._small_metrics.horizontalAdvance(text) + 10, ROW_HEIGHT - 8
        chip = QPixmap(round(w * self._dpr), round(h * self._dpr))
        chip.setDevicePixelRatio(self._dpr)
        chip.fill(Qt.GlobalColor.transparent)
        p = QPainter(chip)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setFont(self._small)
        box = QRect(0, 0, w, h)
        if filled:
            fill = QColor(color)
            fill.setAlpha(255 if selected else 34)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(fill)
            p.drawRoundedRect(box, 4, 4)
            p.setPen(QColor("white") if selected else color.darker(115))
        else:
            p.setPen(QColor("white") if selected else color)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(box.adjusted(0, 0, -1, -1), 4, 4)
        p.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
        p.end()
        self._chips[key] = chip
        return chip


class TimelineView(QListView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Timeline")
        self.setUniformItemSizes(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setItemDelegate(_StepRowDelegate(self))
        self.setMinimumWidth(200)
        # Opaque: scrolling by one row blits the viewport and paints only the new row.
        self.viewport().setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self.viewport())
        painter.fillRect(event.rect(), self.palette().base())
        painter.end()
        super().paintEvent(event)
