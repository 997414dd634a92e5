"""StepListModel: the blinded steps of one run (action captions only) for the annotation view."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from app.engine.study.validation import BlindedStep

STEP_ROLE = Qt.ItemDataRole.UserRole + 1
"""data(index, STEP_ROLE) is the row's BlindedStep."""

Index = QModelIndex | QPersistentModelIndex


class StepListModel(QAbstractListModel):
    """Rows are ``#idx  action(call form)``; nothing else of the step is exposed."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._steps: list[BlindedStep] = []

    def set_steps(self, steps: list[BlindedStep]) -> None:
        self.beginResetModel()
        self._steps = list(steps)
        self.endResetModel()

    def step(self, row: int) -> BlindedStep | None:
        return self._steps[row] if 0 <= row < len(self._steps) else None

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._steps)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._steps):
            return None
        step = self._steps[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{step.idx + 1:>3}  {step.caption}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"step {step.idx + 1} at {step.started_at:.2f} s: {step.caption}"
        if role == STEP_ROLE:
            return step
        return None
