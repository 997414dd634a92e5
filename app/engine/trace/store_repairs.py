"""The repair tables' statements: repair sessions (runs of kind ``repair``) and their cycles (``patches``).

:mod:`app.engine.repair` decides what a cycle is; this repository (``store.repairs``)
is the only place that reads and writes its rows, on the store's one connection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.engine.trace.repair_plays import REPAIR_KIND

if TYPE_CHECKING:
    from app.engine.trace.store_base import StoreCore


class RepairRepository:
    """Repair sessions and their recorded cycles."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    def sessions(self) -> list[dict[str, Any]]:
        """Every repair session's run row with its number of cycles (``cycles``), newest first."""
        return list(self._core.db.query(
            "SELECT r.*, (SELECT count(*) FROM patches p WHERE p.run_id = r.id) AS cycles FROM runs r "
            "WHERE r.kind = ? ORDER BY r.id DESC", [REPAIR_KIND]))

    def cycles(self, session_run: int) -> list[dict[str, Any]]:
        """One session's cycle rows in order."""
        return list(self._core.db.query("SELECT * FROM patches WHERE run_id = ? ORDER BY iteration, id",
                                        [session_run]))

    def add_cycle(self, row: dict[str, Any]) -> int:
        """Record one cycle (a patches row) in its own transaction; its id."""
        with self._core.transaction():
            return int(self._core.db.table("patches").insert(row).last_pk or 0)
