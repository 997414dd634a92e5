"""ReportTableModel: a small read-only table of strings for the agreement dashboard's tables."""

from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex


class ReportTableModel(QAbstractTableModel):
    """Fixed column headers, optional row headers; numbers are formatted by the caller.

    The first ``text_columns`` columns are left-aligned text, the rest right-aligned numbers.
    """

    def __init__(self, columns: Sequence[str], parent: Any = None, *, text_columns: int = 1) -> None:
        super().__init__(parent)
        self._columns = list(columns)
        self._text_columns = text_columns
        self._rows: list[list[str]] = []
        self._row_names: list[str] = []

    def set_rows(self, rows: Sequence[Sequence[object]], row_names: Sequence[str] = ()) -> None:
        self.beginResetModel()
        self._rows = [[str(v) for v in row][: len(self._columns)] for row in rows]
        for row in self._rows:
            row.extend([""] * (len(self._columns) - len(row)))
        self._row_names = list(row_names)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._rows) and 0 <= index.column() < len(self._columns)):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() >= self._text_columns:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self._columns):
            return self._columns[section]
        if orientation == Qt.Orientation.Vertical and 0 <= section < len(self._rows):
            return self._row_names[section] if section < len(self._row_names) else str(section + 1)
        return None
