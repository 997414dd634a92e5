"""Judgments: append-only verdicts of the tester and of people, and the verdict in force derived from them.

A human override or its undo is a new row; nothing is ever updated or deleted.
"""

from __future__ import annotations

import time
from typing import Any

from app.engine.trace.store_base import StoreCore, _pk


class JudgmentsRepository(StoreCore):
    """The judgments table."""

    def add_judgment(
        self,
        run_id: int,
        *,
        source: str,
        author: str,
        verdict: str | None,
        note: str = "",
        criterion: str | None = None,
        undoes: int | None = None,
    ) -> int:
        self.run(run_id)
        with self.transaction():
            return _pk(
                self.db.table("judgments")
                .insert(
                    {
                        "run_id": run_id,
                        "source": source,
                        "author": author,
                        "verdict": verdict,
                        "criterion": criterion,
                        "note": note,
                        "undoes": undoes,
                        "at": time.time(),
                    }
                )
                .last_pk
            )

    def judgments(self, run_id: int) -> list[dict[str, Any]]:
        return list(self.db.query("SELECT * FROM judgments WHERE run_id = ? ORDER BY id", [run_id]))

    def active_judgments(self, run_id: int, criterion: str | None = None) -> list[dict[str, Any]]:
        """Judgments still in force: every row minus those an undo row cancelled (and the undo rows)."""
        rows = [r for r in self.judgments(run_id) if r["criterion"] == criterion]
        undone = {r["undoes"] for r in rows if r["undoes"] is not None}
        return [r for r in rows if r["undoes"] is None and r["id"] not in undone]

    def effective_verdict(self, run_id: int, criterion: str | None = None, tester_verdict: str | None = None) -> str | None:
        """The latest human override in force, else the tester's verdict."""
        active = self.active_judgments(run_id, criterion)
        humans = [r for r in active if r["source"] == "human"]
        if humans:
            return str(humans[-1]["verdict"])
        testers = [r for r in active if r["source"] == "tester"]
        if testers:
            return str(testers[-1]["verdict"])
        return tester_verdict

    def undo_last_override(self, run_id: int, author: str, criterion: str | None = None) -> int | None:
        """Append an undo for the newest human override in force; None when there is none."""
        humans = [r for r in self.active_judgments(run_id, criterion) if r["source"] == "human"]
        if not humans:
            return None
        return self.add_judgment(
            run_id, source="human", author=author, verdict=None, criterion=criterion,
            note="undo of the latest override", undoes=humans[-1]["id"],
        )
