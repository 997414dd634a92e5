"""The validation tables' statements: blinded sets, their items and each annotator's labels.

:mod:`app.engine.study.validation` decides what a set is (sampling, blinding,
labels, promotion); this repository is the only place that reads and writes
``validation_sets``, ``validation_items`` and ``annotations``.  It works on the
store's one connection (``store.validation``), so a label and the judgment it is
promoted to commit in one transaction.
"""

from __future__ import annotations

import sqlite3
import time
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from app.engine.trace.store_base import StoreCore

SetRow = tuple[int, str, int, int, int, float]
"""(id, name, seed, successes, failures, created_at)"""
LabelRow = tuple[int, str, str, str, float, Any, Any]
"""(run_id, annotator, label, note, at, promoted_judgment, seconds)"""

_SET_COLUMNS = "id, name, seed, successes, failures, created_at"
PLAYED = "status = 'completed' AND kind = 'test' AND EXISTS (SELECT 1 FROM steps s WHERE s.run_id = runs.id)"
"""A run a set may draw: a completed play of a target (not a repair session's row) that took a step."""
_UPSERT = (
    "INSERT INTO annotations (item_id, annotator, label, note, at, seconds) VALUES (?, ?, ?, ?, ?, ?) "
    "ON CONFLICT(item_id, annotator) DO UPDATE SET label = excluded.label, note = excluded.note, at = excluded.at, "
    "promoted_judgment = CASE WHEN annotations.label = excluded.label THEN annotations.promoted_judgment END, "
    "seconds = CASE WHEN excluded.seconds IS NULL THEN annotations.seconds "
    "ELSE coalesce(annotations.seconds, 0) + excluded.seconds END"
)
"""A relabel replaces the annotator's label; a changed label forgets its promotion (the judgment itself stays);
time spent adds up over visits."""


class ValidationRepository:
    """Validation sets, items and labels on the store's connection."""

    def __init__(self, core: StoreCore) -> None:
        self._core = core

    def _rows(self, sql: str, args: Iterable[Any] = ()) -> list[Any]:
        return self._core.conn.execute(sql, list(args)).fetchall()

    # -- sets ----------------------------------------------------------------------------
    def set_named(self, name: str) -> SetRow | None:
        rows = self._rows(f"SELECT {_SET_COLUMNS} FROM validation_sets WHERE name = ?", [name])
        return tuple(rows[0]) if rows else None  # type: ignore[return-value]

    def sets(self) -> list[SetRow]:
        return [tuple(r) for r in self._rows(f"SELECT {_SET_COLUMNS} FROM validation_sets ORDER BY id")]  # type: ignore[misc]

    def create_set(self, name: str, seed: int, successes: int, failures: int,
                   drawn: list[tuple[int, str]]) -> bool:
        """Freeze a set and its items (run, tester verdict) in drawn order; False when the name is taken."""
        try:
            with self._core.transaction():
                cursor = self._core.conn.execute(
                    "INSERT INTO validation_sets (name, seed, successes, failures, created_at) VALUES (?, ?, ?, ?, ?)",
                    [name, seed, successes, failures, time.time()])
                set_id = int(cursor.lastrowid or 0)
                self._core.conn.executemany(
                    "INSERT INTO validation_items (set_id, run_id, tester_verdict) VALUES (?, ?, ?)",
                    [(set_id, run, verdict) for run, verdict in drawn])
        except sqlite3.IntegrityError:
            return False
        return True

    def candidates(self, verdict: str, tester: str | None, kind: str | None, target: str | None) -> list[int]:
        """Ids of the runs a set may draw with the tester verdict ``verdict`` (filters: any when None)."""
        where, args = PLAYED, []
        if tester is not None:
            where += " AND tester = ?"
            args.append(tester)
        if kind is not None:
            where += " AND json_extract(config, '$.kind') = ?"
            args.append(kind)
        if target is not None:
            where += " AND (target = ? OR target LIKE ? ESCAPE '\\')"
            escaped = target.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            args += [target, escaped + "@%"]
        return [int(r[0]) for r in self._rows(f"SELECT id FROM runs WHERE {where} AND verdict = ? ORDER BY id",
                                              [*args, verdict])]

    def candidate_facets(self) -> list[tuple[Any, Any, Any]]:
        """(tester, kind, target) of every run a set may draw, distinct."""
        return [tuple(r) for r in self._rows(  # type: ignore[misc]
            f"SELECT DISTINCT tester, json_extract(config, '$.kind'), target FROM runs WHERE {PLAYED}")]

    # -- items -----------------------------------------------------------------------------
    def items(self, set_id: int) -> list[tuple[int, int]]:
        """(item id, run id) of the set, by item id (the order they were inserted: shuffled)."""
        return [(int(r[0]), int(r[1])) for r in
                self._rows("SELECT id, run_id FROM validation_items WHERE set_id = ? ORDER BY id", [set_id])]

    def item_of(self, set_id: int, run_id: int) -> int | None:
        rows = self._rows("SELECT id FROM validation_items WHERE set_id = ? AND run_id = ?", [set_id, run_id])
        return int(rows[0][0]) if rows else None

    def verdicts(self, set_id: int) -> list[tuple[int, int, str]]:
        """(item id, run id, frozen tester verdict), by run id."""
        return [(int(r[0]), int(r[1]), str(r[2])) for r in self._rows(
            "SELECT id, run_id, tester_verdict FROM validation_items WHERE set_id = ? ORDER BY run_id", [set_id])]

    # -- labels ------------------------------------------------------------------------------
    def annotators(self, set_id: int) -> list[str]:
        return [str(r[0]) for r in self._rows(
            "SELECT DISTINCT a.annotator FROM annotations a JOIN validation_items i ON i.id = a.item_id "
            "WHERE i.set_id = ? ORDER BY a.annotator", [set_id])]

    def labels_of(self, set_id: int, annotator: str) -> list[LabelRow]:
        return [tuple(r) for r in self._rows(  # type: ignore[misc]
            "SELECT i.run_id, a.annotator, a.label, a.note, a.at, a.promoted_judgment, a.seconds FROM annotations a "
            "JOIN validation_items i ON i.id = a.item_id WHERE i.set_id = ? AND a.annotator = ?", [set_id, annotator])]

    def all_labels(self, set_id: int) -> list[tuple[int, str, str]]:
        """(item id, annotator, label) of every label in the set."""
        return [(int(r[0]), str(r[1]), str(r[2])) for r in self._rows(
            "SELECT a.item_id, a.annotator, a.label FROM annotations a JOIN validation_items i ON i.id = a.item_id "
            "WHERE i.set_id = ?", [set_id])]

    def label_table(self, set_id: int) -> list[tuple[str, int, str, str]]:
        """(annotator, run id, label, note) of every label, by annotator then run: the CSV export's rows."""
        return [tuple(r) for r in self._rows(  # type: ignore[misc]
            "SELECT a.annotator, i.run_id, a.label, coalesce(a.note, '') FROM annotations a "
            "JOIN validation_items i ON i.id = a.item_id WHERE i.set_id = ? ORDER BY a.annotator, i.run_id", [set_id])]

    def upsert_label(self, item: int, annotator: str, label: str, note: str, seconds: float | None = None) -> None:
        """Write one label; callers that write many wrap this in one transaction."""
        self._core.conn.execute(_UPSERT, [item, annotator, label, note, time.time(), seconds])

    def add_seconds(self, item: int, annotator: str, seconds: float) -> bool:
        """Add time spent to a label; False (nothing written) when the annotator has not labelled the item."""
        with self._core.transaction():
            cur = self._core.conn.execute("UPDATE annotations SET seconds = coalesce(seconds, 0) + ? "
                                          "WHERE item_id = ? AND annotator = ?", [max(0.0, seconds), item, annotator])
        return cur.rowcount > 0

    def mark_promoted(self, item: int, annotator: str, judgment: int) -> None:
        """Record the judgment a label was promoted to (inside the caller's transaction)."""
        self._core.conn.execute("UPDATE annotations SET promoted_judgment = ? WHERE item_id = ? AND annotator = ?",
                                [judgment, item, annotator])

    def progress(self, set_id: int, annotator: str) -> tuple[int, int]:
        """(labelled, total) for one annotator."""
        done = self._rows("SELECT count(*) FROM annotations a JOIN validation_items i ON i.id = a.item_id "
                          "WHERE i.set_id = ? AND a.annotator = ?", [set_id, annotator])[0][0]
        total = self._rows("SELECT count(*) FROM validation_items WHERE set_id = ?", [set_id])[0][0]
        return int(done), int(total)
