"""A repair's plays: which runs were played on a repair session's program copy, and which version of it.

A repair session (a ``runs`` row of kind ``repair``) plays its program copy
before the first patch (the buggy copy, iteration 0) and after every patch
that passed the gate (the patch of iteration N).  Those plays are ordinary
sessions of the engine, so without more they look like runs of the clean
app: no bug, not linked to their repair, and the validation sampler (which
draws ``kind = 'test'``) could draw them.  The store therefore recognises
them as they are created, in the same transaction as the row:

* a run played on the ``target_path`` of a repair session that is still
  running *is* one of its plays (the copy lives in the session's own
  temporary folder, so nothing else plays there);
* it gets kind :data:`REPAIR_PLAY_KIND`, the session's label as target and
  bug (``calculator@wrong-subtraction``), and a ``repair_plays`` row
  linking it to the session with its iteration;
* the iteration is 0 for the session's first play; a later play by the
  session's own tester is the re-test of the cycle in progress (cycles
  recorded so far + 1: a cycle's ``patches`` row is written after its
  re-test); a play by another tester (the rubric) belongs to the play just
  before it.

No engine code has to pass the link (the repair loop plays through the same
``Session`` as everyone).  Databases written before the link are linked once
by :func:`backfill` from the sessions' ``patches.retest_run``.  Only the
store's package holds this SQL.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

REPAIR_KIND = "repair"
"""The kind of a repair session's own row (the anchor of its cycles)."""
REPAIR_PLAY_KIND = "repair-play"
"""The kind of a play of a repair's program copy (never ``test``: the validation sampler draws only those)."""
BUGGY_COPY = 0
"""The iteration of the plays before any patch."""


@dataclass(frozen=True)
class RepairPlay:
    """Where a play belongs: its repair session and the version of the program it played."""

    session_run: int
    iteration: int

    @property
    def variant(self) -> str:
        return variant_text(self.iteration)


def variant_text(iteration: int | None) -> str:
    """What a play played, in words: "the buggy copy" or "the patch of iteration N"."""
    if iteration is None:
        return ""
    return "the buggy copy" if int(iteration) == BUGGY_COPY else f"the patch of iteration {int(iteration)}"


def create_table(conn: sqlite3.Connection) -> None:
    """Schema 6: ``repair_plays(run_id, session_run, iteration)``, then link the plays already recorded."""
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS repair_plays (
            run_id INTEGER PRIMARY KEY REFERENCES runs(id),
            session_run INTEGER NOT NULL REFERENCES runs(id),
            iteration INTEGER NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX IF NOT EXISTS repair_plays_session ON repair_plays(session_run, run_id)")
    backfill(conn)


def link_new_run(conn: sqlite3.Connection, fields: dict[str, Any]) -> RepairPlay | None:
    """Inside the transaction that inserts ``fields`` as a run: the repair it belongs to, if any.

    Rewrites ``fields`` of such a play (kind, target and bug of its session); the caller inserts the row
    and then :func:`record`."""
    if fields.get("kind", "test") != "test" or not fields.get("target_path"):
        return None
    session = conn.execute(
        "SELECT id, target, tester FROM runs WHERE kind = ? AND status = 'running' AND ended_at IS NULL "
        "AND target_path = ? ORDER BY id DESC LIMIT 1", [REPAIR_KIND, str(fields["target_path"])]).fetchone()
    if session is None:
        return None
    session_run, label, session_tester = int(session[0]), str(session[1] or ""), session[2]
    last = conn.execute("SELECT iteration FROM repair_plays WHERE session_run = ? ORDER BY run_id DESC LIMIT 1",
                        [session_run]).fetchone()
    if last is None:
        iteration = BUGGY_COPY
    elif fields.get("tester") != session_tester:
        iteration = int(last[0])  # the rubric tester's run of the same play
    else:
        cycles = conn.execute("SELECT count(*) FROM patches WHERE run_id = ?", [session_run]).fetchone()[0]
        iteration = int(cycles) + 1
    fields["kind"] = REPAIR_PLAY_KIND
    if label:
        fields["target"] = label
        fields["bug"] = label.partition("@")[2] or None
    return RepairPlay(session_run, iteration)


def record(conn: sqlite3.Connection, run_id: int, play: RepairPlay) -> None:
    conn.execute("INSERT OR REPLACE INTO repair_plays (run_id, session_run, iteration) VALUES (?, ?, ?)",
                 [run_id, play.session_run, play.iteration])


def backfill(conn: sqlite3.Connection) -> int:
    """Link the plays of every recorded repair session not linked yet; returns how many were linked.

    A session's plays are the ``test`` runs on its ``target_path`` started while it ran; a play's
    iteration is that of the newest cycle whose re-test started at or before it (0: none)."""
    sessions = conn.execute("SELECT id, target, target_path, started_at, ended_at FROM runs WHERE kind = ? "
                            "AND target_path IS NOT NULL", [REPAIR_KIND]).fetchall()
    linked = 0
    for session_run, label, path, started, ended in sessions:
        plays = conn.execute(
            "SELECT id FROM runs WHERE kind = 'test' AND target_path = ? AND id > ? AND started_at >= ? "
            "AND (? IS NULL OR started_at <= ?) AND id NOT IN (SELECT run_id FROM repair_plays) ORDER BY id",
            [path, session_run, started, ended, ended]).fetchall()
        retests = conn.execute("SELECT retest_run, iteration FROM patches WHERE run_id = ? AND retest_run IS NOT NULL "
                               "ORDER BY retest_run", [session_run]).fetchall()
        bug = str(label or "").partition("@")[2] or None
        for (run_id,) in plays:
            iteration = max((int(it) for first, it in retests if int(first) <= int(run_id)), default=BUGGY_COPY)
            record(conn, int(run_id), RepairPlay(int(session_run), iteration))
            conn.execute("UPDATE runs SET kind = ?, target = ?, bug = ? WHERE id = ?",
                         [REPAIR_PLAY_KIND, label, bug, run_id])
            linked += 1
    return linked


def play_of(conn: sqlite3.Connection, run_id: int) -> RepairPlay | None:
    row = conn.execute("SELECT session_run, iteration FROM repair_plays WHERE run_id = ?", [run_id]).fetchone()
    return RepairPlay(int(row[0]), int(row[1])) if row is not None else None


def plays_of(conn: sqlite3.Connection, session_run: int) -> list[tuple[int, RepairPlay]]:
    rows = conn.execute("SELECT run_id, iteration FROM repair_plays WHERE session_run = ? ORDER BY run_id",
                        [session_run]).fetchall()
    return [(int(r[0]), RepairPlay(session_run, int(r[1]))) for r in rows]
