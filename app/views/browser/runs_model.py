"""RunsModel: a table over ``store.run_list()`` for the run browser.

Refreshing is a keyed merge (by run id), not a reset, so the selection and the
scroll position survive a re-read whenever the database changed (any process, any run).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Mapping

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from app.engine.rubric.record import REPLAY_KIND
from app.engine.trace.repair_plays import REPAIR_KIND, REPAIR_PLAY_KIND, variant_text
from app.views.widgets.verdict_style import status_color, verdict_color

COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "ID"),
    ("target", "Target"),
    ("bug", "Bug"),
    ("tester", "Tester"),
    ("effective_verdict", "Verdict"),
    ("step_count", "Steps"),
    ("status", "Status"),
    ("started_at", "Date"),
)
COLUMN_OF = {key: i for i, (key, _) in enumerate(COLUMNS)}
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
"""Raw, comparable value of a cell (numbers stay numbers) for the sort proxy."""
RUN_ID_ROLE = Qt.ItemDataRole.UserRole + 2
DATE_FORMAT = "%Y-%m-%d %H:%M"
_NUMERIC = {"id", "step_count", "started_at"}

AnyIndex = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class RunsDelta:
    """What changed between the rows a model shows and a fresh read of the run list, by run id."""

    removed: frozenset[int] = frozenset()
    changed: tuple[dict[str, Any], ...] = ()
    added: tuple[dict[str, Any], ...] = ()

    def ids(self) -> set[int]:
        return set(self.removed) | {int(r["id"]) for r in self.changed} | {int(r["id"]) for r in self.added}


def diff_runs(known: Mapping[int, dict[str, Any]], rows: list[dict[str, Any]], *, complete: bool = True) -> RunsDelta:
    """Compare fresh rows with the rows shown; plain data, so it runs off the GUI thread.

    ``complete``: ``rows`` is the whole list (a run missing from it went away); else only runs that may
    have changed (``store.run_list_changes``)."""
    seen: set[int] = set()
    changed: list[dict[str, Any]] = []
    added: list[dict[str, Any]] = []
    for row in rows:
        rid = int(row["id"])
        seen.add(rid)
        old = known.get(rid)
        if old is None:
            added.append(row)
        elif old != row:
            changed.append(row)
    return RunsDelta(frozenset(set(known) - seen) if complete else frozenset(), tuple(changed), tuple(added))


class RunsModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[dict[str, Any]] = []
        self._row_of: dict[int, int] = {}
        self._by_id: dict[int, dict[str, Any]] = {}
        self._generation = 0
        self._bold = QFont()
        self._bold.setBold(True)

    # -- data in -------------------------------------------------------------
    @property
    def generation(self) -> int:
        """Bumped at every change of the rows; a delta computed against an older :meth:`known` is stale."""
        return self._generation

    def known(self) -> dict[int, dict[str, Any]]:
        """A copy of the rows by run id, to diff a fresh read against off the GUI thread (:func:`diff_runs`)."""
        return dict(self._by_id)

    def set_rows(self, rows: list[dict[str, Any]]) -> set[int]:
        """Merge a fresh ``store.run_list()`` result: update, remove and append by run id.

        Returns the ids of the runs that changed, appeared or went away (the caller re-reads an open run
        among them); a row whose values are unchanged emits nothing."""
        return self.apply_delta(diff_runs(self._by_id, rows))

    def apply_delta(self, delta: RunsDelta) -> set[int]:
        """Apply what changed (computed by :func:`diff_runs` against :meth:`known`); costs O(changes)."""
        gone = [self._row_of[rid] for rid in delta.removed if rid in self._row_of]
        for row in sorted(gone, reverse=True):
            self.beginRemoveRows(QModelIndex(), row, row)
            del self._by_id[int(self._rows[row]["id"])]
            del self._rows[row]
            self.endRemoveRows()
        if gone:
            self._row_of = {int(r["id"]): i for i, r in enumerate(self._rows)}
        last = len(COLUMNS) - 1
        added = [r for r in delta.added if int(r["id"]) not in self._row_of]
        for new in delta.changed:
            rid = int(new["id"])
            at = self._row_of.get(rid)
            if at is None:
                added.append(new)
                continue
            self._rows[at] = self._by_id[rid] = new
            self.dataChanged.emit(self.index(at, 0), self.index(at, last))
        if added:
            first = len(self._rows)
            self.beginInsertRows(QModelIndex(), first, first + len(added) - 1)
            for i, new in enumerate(added):
                rid = int(new["id"])
                self._rows.append(new)
                self._by_id[rid] = new
                self._row_of[rid] = first + i
            self.endInsertRows()
        self._generation += 1
        return delta.ids()

    def clear(self) -> None:
        self.beginResetModel()
        self._rows = []
        self._row_of = {}
        self._by_id = {}
        self._generation += 1
        self.endResetModel()

    def run_at(self, row: int) -> dict[str, Any] | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, run_id: int) -> int | None:
        return self._row_of.get(int(run_id))

    # -- Qt model API ----------------------------------------------------------
    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return COLUMNS[section][1]
        return None

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows) or not 0 <= index.column() < len(COLUMNS):
            return None
        run = self._rows[index.row()]
        key = COLUMNS[index.column()][0]
        value = run.get(key)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(run, key, value)
        if role == SORT_ROLE:
            if key in _NUMERIC:
                return float(value or 0)
            return str(value or "").lower()
        if role == RUN_ID_ROLE:
            return int(run["id"])
        if role == Qt.ItemDataRole.ForegroundRole:
            if key == "effective_verdict":
                return verdict_color(value)
            if key == "status":
                return status_color(value)
        if role == Qt.ItemDataRole.FontRole and key == "effective_verdict" and value:
            return self._bold
        if role == Qt.ItemDataRole.TextAlignmentRole and key in ("id", "step_count"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(run, key)
        return None

    @staticmethod
    def _display(run: dict[str, Any], key: str, value: Any) -> str:
        if key == "started_at":
            return time.strftime(DATE_FORMAT, time.localtime(float(value))) if value else ""
        if key == "target":
            name = str(value or "").split("@", 1)[0]
            if run.get("kind") == REPAIR_KIND:
                return f"{name} · repair session"
            if run.get("kind") == REPAIR_PLAY_KIND:
                return f"{name} · {_short_variant(run)}"
            if run.get("kind") == REPLAY_KIND:
                return f"{name} · recorder replay"
            return name
        if key == "effective_verdict":
            if value is None:
                return "…" if run.get("status") == "running" else "—"
            overridden = run.get("verdict") is not None and value != run.get("verdict")
            return f"{value} ✎" if overridden else str(value)
        return "" if value is None else str(value)

    @staticmethod
    def _tooltip(run: dict[str, Any], key: str) -> str | None:
        if key == "effective_verdict":
            tester = run.get("verdict")
            eff = run.get("effective_verdict")
            if eff is not None and tester is not None and eff != tester:
                return f"Overridden by a human (the tester said {tester})"
            return run.get("reason") or None
        if key == "status" and run.get("error"):
            return str(run["error"])
        if key == "target":
            if run.get("kind") == REPAIR_PLAY_KIND and run.get("repair_run") is not None:
                return (f"A play of repair session #{run['repair_run']}: {variant_text(run.get('repair_iteration'))}"
                        " (not a run of the clean app). Enter opens the repair.")
            if run.get("kind") == REPAIR_KIND:
                return "A repair session: a click opens it in the repair window."
            if run.get("kind") == REPLAY_KIND:
                return "A replay of a case being recorded, on a scratch copy (not a test run of the program)."
            return run.get("target_path") or None
        return None


def _short_variant(run: dict[str, Any]) -> str:
    """``repair #12, buggy copy`` / ``repair #12, patch 2`` for the target cell of a repair's play."""
    session, iteration = run.get("repair_run"), run.get("repair_iteration")
    where = f"repair #{session}" if session is not None else "repair play"
    if iteration is None:
        return where
    return f"{where}, buggy copy" if int(iteration) == 0 else f"{where}, patch {int(iteration)}"
