"""StepDelegate: the shared frame of the timeline's and film strip's row painters.

Both paint one recorded step per item (from ``STEP_ROLE``) inside a saved and
restored painter state; subclasses implement :meth:`_paint` only.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem

from app.views.run.steps_model import STEP_ROLE


class StepDelegate(QStyledItemDelegate):
    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        step: dict[str, Any] | None = index.data(STEP_ROLE)
        if step is None:
            return
        painter.save()
        try:
            self._paint(painter, option, index, step)
        finally:
            painter.restore()

    def _paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex,
               step: dict[str, Any]) -> None:
        raise NotImplementedError
