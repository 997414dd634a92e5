"""CodeFilesModel: the program's own files of a run, with the run's hit/total and the selected step's new lines.

A thin adapter over :meth:`TrajectoryStore.run_coverage` and
:meth:`TrajectoryStore.coverage_steps`, read once per run by the Code tab
(:class:`~app.views.run.code_view.CodeView`); moving between steps only
changes the "This step" column.
"""

from __future__ import annotations

from typing import Any, Mapping

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from app.engine.trace.code_lines import first_here
from app.engine.trace.coverage import FileCoverage

FILE_COLUMN, RUN_COLUMN, STEP_COLUMN = 0, 1, 2
HEADERS = ("File", "Run: hit / total", "New at step")
FILE_ROLE = Qt.ItemDataRole.UserRole + 1
"""The row's file name (relative to the target folder)."""
AnyIndex = QModelIndex | QPersistentModelIndex


class CodeFilesModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._files: list[FileCoverage] = []
        self._steps: Mapping[int, Mapping[str, list[int]]] = {}
        self._step = 0

    def set_coverage(self, files: list[FileCoverage], steps: Mapping[int, Mapping[str, list[int]]]) -> None:
        """A run's files (``store.run_coverage``) and per-step first lines (``store.coverage_steps``)."""
        self.beginResetModel()
        self._files = list(files)
        self._steps = steps
        self.endResetModel()

    def set_step(self, step: int) -> None:
        """The step whose first-reached lines the third column counts."""
        self._step = step
        if self._files:
            self.dataChanged.emit(self.index(0, STEP_COLUMN), self.index(len(self._files) - 1, STEP_COLUMN))

    @property
    def steps(self) -> Mapping[int, Mapping[str, list[int]]]:
        return self._steps

    def coverage_at(self, row: int) -> FileCoverage | None:
        return self._files[row] if 0 <= row < len(self._files) else None

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._files)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole \
                and 0 <= section < len(HEADERS):
            return HEADERS[section]
        return None

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._files):
            return None
        cover = self._files[index.row()]
        new = first_here(self._steps, cover.file, self._step)
        if role == FILE_ROLE:
            return cover.file
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == FILE_COLUMN:
                return cover.file
            if index.column() == RUN_COLUMN:
                share = 100 * len(cover.hit) / len(cover.total) if cover.total else 0.0
                return f"{len(cover.hit)} / {len(cover.total)} ({share:.0f}%)"
            return f"+{new}" if new else "—"
        if role == Qt.ItemDataRole.FontRole and index.column() == STEP_COLUMN and new:
            bold = QFont()
            bold.setBold(True)
            return bold
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{cover.file}: {len(cover.missed)} executable lines the run never reached"
        return None
