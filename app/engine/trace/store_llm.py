"""The model calls' statements: one ``llm_calls`` row per request a tester or a refiner made.

:mod:`app.engine.llm.client` decides what a call records (never a key: its
text is scrubbed first); this repository (``store.llm``) writes and sums them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.engine.trace.store_base import StoreCore


class LLMCallsRepository:
    """Recorded model calls on the store's connection."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    def add(self, row: dict[str, Any]) -> None:
        """Record one call in its own transaction."""
        with self._core.transaction():
            self._core.db.table("llm_calls").insert(row)

    def tokens(self, run_id: int) -> int | None:
        """Tokens in and out of every call of a run; None when the run made no call."""
        row = self._core.conn.execute(
            "SELECT count(*), coalesce(sum(coalesce(tokens_in, 0) + coalesce(tokens_out, 0)), 0) "
            "FROM llm_calls WHERE run_id = ?", [run_id]).fetchone()
        return int(row[1]) if row and row[0] else None
