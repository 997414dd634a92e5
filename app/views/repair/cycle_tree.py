"""CycleTree: the repair sessions of a database, each with its recorded cycles and its cycle in progress.

Top-level items are sessions (newest first), their children the cycles in
order; a session being repaired from the workbench has one more child, the
cycle in progress (:data:`IN_PROGRESS`), last.  Page Down / Page Up walk the
children of all sessions in list order (:meth:`CycleTree.neighbour`).

Selections the program makes (following a repair, keeping the current cycle
across a re-read, Qt moving the selection off a removed item) are told apart
from the user's (:attr:`CycleTree.by_program`), so the view knows when the
user chose to look elsewhere.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QWidget

from app.engine.repair.confirm import session_outcome
from app.engine.repair.records import CycleRecord, RepairSession
from app.engine.repair.report import OUTCOME_TEXT

CYCLE_ROLE = Qt.ItemDataRole.UserRole + 1
"""A cycle's index in :meth:`CycleTree.rebuild`'s list, or :data:`IN_PROGRESS`."""
SESSION_ROLE = Qt.ItemDataRole.UserRole + 2
IN_PROGRESS = -1


class CycleTree(QTreeWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(["Repair sessions and cycles"])
        self.by_program = False
        """True while the program (not the user) changes the current item."""

    @contextlib.contextmanager
    def programmatic(self) -> Iterator[None]:
        was, self.by_program = self.by_program, True
        try:
            yield
        finally:
            self.by_program = was

    def rebuild(self, database: Any, sessions: list[RepairSession]) -> list[CycleRecord]:
        """Fill the tree from ``sessions``; returns their cycles in list order (an item's CYCLE_ROLE indexes it)."""
        out: list[CycleRecord] = []
        with self.programmatic():
            self.clear()
            for session in sessions:
                top = QTreeWidgetItem([f"#{session.run_id} {session.target} — {_state(session)} "
                                       f"({session.refiner}, {session.cycles} cycle(s))"])
                top.setToolTip(0, session.reason)
                top.setData(0, SESSION_ROLE, session.run_id)
                self.addTopLevelItem(top)
                for rec in database.repairs.cycles(session.run_id):
                    outcome = OUTCOME_TEXT.get(rec.outcome, rec.outcome)
                    item = QTreeWidgetItem([f"iteration {rec.iteration} · {outcome}"])
                    item.setToolTip(0, rec.description)
                    item.setData(0, CYCLE_ROLE, len(out))
                    out.append(rec)
                    top.addChild(item)
                top.setExpanded(True)
        return out

    def cycle_items(self) -> list[QTreeWidgetItem]:
        """Every cycle item (the one in progress too), in list order."""
        out: list[QTreeWidgetItem] = []
        for top in self._tops():
            out.extend(child for j in range(top.childCount()) if (child := top.child(j)) is not None)
        return out

    def _tops(self) -> list[QTreeWidgetItem]:
        return [top for i in range(self.topLevelItemCount()) if (top := self.topLevelItem(i)) is not None]

    def session_item(self, session_run: int) -> QTreeWidgetItem | None:
        for top in self._tops():
            if top.data(0, SESSION_ROLE) == session_run:
                return top
        return None

    def progress_item(self) -> QTreeWidgetItem | None:
        return next((item for item in self.cycle_items() if item.data(0, CYCLE_ROLE) == IN_PROGRESS), None)

    def showing_progress(self) -> bool:
        item = self.currentItem()
        return item is not None and item.data(0, CYCLE_ROLE) == IN_PROGRESS

    def current_session(self) -> int | None:
        item = self.currentItem()
        while item is not None and item.data(0, SESSION_ROLE) is None:
            item = item.parent()
        return int(item.data(0, SESSION_ROLE)) if item is not None else None

    def set_progress(self, session_run: int | None, text: str = "", tip: str = "") -> QTreeWidgetItem | None:
        """Show the cycle in progress of ``session_run`` as ``text`` (None: there is none; its item goes, and
        when it was current the session's last recorded cycle becomes current).  Returns the item."""
        item = self.progress_item()
        top = self.session_item(session_run) if session_run is not None else None
        with self.programmatic():
            if top is None:
                if item is not None:
                    was_current = self.currentItem() is item
                    parent = item.parent()
                    if parent is not None:
                        parent.removeChild(item)
                        last = parent.child(parent.childCount() - 1) if parent.childCount() else None
                        if was_current and last is not None:
                            self.setCurrentItem(last)
                return None
            if item is None or item.parent() is not top:
                old_parent = item.parent() if item is not None else None
                if item is not None and old_parent is not None:
                    old_parent.removeChild(item)
                item = QTreeWidgetItem()
                item.setData(0, CYCLE_ROLE, IN_PROGRESS)
                top.addChild(item)
        item.setText(0, text)
        item.setToolTip(0, tip)
        return item

    def choose(self, item: QTreeWidgetItem, *, user: bool = False) -> None:
        """Make ``item`` current; ``user``: the user asked for it (see :attr:`by_program`)."""
        if user:
            self.setCurrentItem(item)
            return
        with self.programmatic():
            self.setCurrentItem(item)

    def neighbour(self, delta: int) -> QTreeWidgetItem | None:
        """The cycle item ``delta`` places from the current one (the first when none is current)."""
        items = self.cycle_items()
        current = self.currentItem()
        index = items.index(current) if current in items else -1
        target = index + delta if index >= 0 else 0
        return items[target] if 0 <= target < len(items) else None


def _state(session: RepairSession) -> str:
    if session.status != "completed":
        return session.status
    return session_outcome(session.verdict == "pass", session.verdict, session.reason)
