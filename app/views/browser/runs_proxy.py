"""RunsProxyModel: sorting, free-text search, a verdict filter and a kind filter over :class:`RunsModel`."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel

from app.views.browser.runs_model import COLUMN_OF, RUN_ID_ROLE, SORT_ROLE, RunsModel

NO_VERDICT = "none"
"""Verdict filter value that matches runs without a verdict yet (running, stopped)."""
SEARCH_FIELDS = ("target", "tester", "effective_verdict", "verdict", "bug", "kind")


class RunsProxyModel(QSortFilterProxyModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._search = ""
        self._verdict: str | None = None
        self._kind: str | None = None
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)

    def set_search(self, text: str) -> None:
        """Keep runs whose target, tester or verdict contain every word of ``text`` (any case)."""
        self._change_filter(lambda: setattr(self, "_search", text.strip().lower()))

    def set_verdict(self, verdict: str | None) -> None:
        """Keep runs whose effective verdict is ``verdict`` (:data:`NO_VERDICT`: none yet); None keeps all."""
        self._change_filter(lambda: setattr(self, "_verdict", verdict or None))

    def set_kind(self, kind: str | None) -> None:
        """Keep runs of ``kind`` (``test``, ``repair``, ``repair-play``); None keeps all."""
        self._change_filter(lambda: setattr(self, "_kind", kind or None))

    def _change_filter(self, apply: Any) -> None:
        if hasattr(self, "beginFilterChange"):  # Qt >= 6.10
            self.beginFilterChange()
            apply()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:  # pragma: no cover - older Qt
            apply()
            self.invalidateFilter()

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        model = self.sourceModel()
        if not isinstance(model, RunsModel):
            return True
        run = model.run_at(source_row)
        if run is None:
            return False
        if self._kind is not None and (run.get("kind") or "test") != self._kind:
            return False
        if self._verdict is not None:
            verdict = run.get("effective_verdict")
            if self._verdict == NO_VERDICT:
                if verdict is not None:
                    return False
            elif verdict != self._verdict:
                return False
        if self._search:
            haystack = " ".join(str(run.get(k) or "") for k in SEARCH_FIELDS).lower()
            if not all(word in haystack for word in self._search.split()):
                return False
        return True

    def run_id_at(self, proxy_row: int) -> int | None:
        index = self.index(proxy_row, COLUMN_OF["id"])
        value = index.data(RUN_ID_ROLE) if index.isValid() else None
        return int(value) if value is not None else None
