"""TrajectoryStore: one SQLite file (WAL) holding runs, steps, frames and verdicts.

Every write that belongs together happens in one transaction, so a killed
engine leaves a readable trajectory up to its last committed step and never a
half-written record.  Frames are content-addressed (sha256 of the size and the
visible pixels, see :func:`frame_digest`) and stored once as PNG, so an imported
frame can be checked against its address.  Opening a file takes the write lock
before it looks at the schema: many processes may open a new file at once.
SQLite failures a user can fix (full disk, read-only, damaged, foreign file)
arrive as one sentence (:mod:`app.engine.trace.sqlite_faults`).  Judgments are append-only: a human override or its
undo is a new row, and the effective verdict is derived from the rows.
The schema version lives in ``PRAGMA user_version``; :data:`MIGRATIONS` brings
older files forward.

This module owns the connection, the schema and the runs; the other groups of
tables are repositories of their own that :class:`TrajectoryStore` is made of
(:mod:`.store_base`): steps, frames, findings and coverage
(:mod:`.store_steps`), films, logs and model calls (:mod:`.store_media`),
judgments (:mod:`.store_judgments`).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import psutil
import sqlite_utils

from app.engine.errors import StoreError
from app.engine.trace import coverage as coverage_sql
from app.engine.trace import repair_plays as plays_sql
from app.engine.trace import sqlite_hold
from app.engine.trace.repair_plays import RepairPlay
from app.engine.trace.disk_reserve import DiskReserve
from app.engine.trace.store_llm import LLMCallsRepository
from app.engine.trace.store_repairs import RepairRepository
from app.engine.trace.store_validation import ValidationRepository
from app.engine.trace.store_base import _pk
from app.engine.trace.store_judgments import JudgmentsRepository
from app.engine.trace.store_media import MAX_LOG_LINE_CHARS, MediaRepository
from app.engine.trace.store_steps import (PNG_COMPRESS_LEVEL, StepsRepository, StoredFrame, frame_digest,
                                          image_digest)
from app.engine.trace.sqlite_faults import BUSY, FOREIGN, FULL, READONLY, GuardedConnection, StoreFault, fault_for

__all__ = ["MAX_LOG_LINE_CHARS", "PNG_COMPRESS_LEVEL", "RunListMark", "StoredFrame", "TrajectoryStore", "frame_digest",
           "image_digest"]
"""The repositories' names most callers know from here (the store's parts live in ``store_*.py``)."""

BUSY_TIMEOUT_S = 10.0
"""How long a write waits for another process's write lock before it gives up with a sentence."""
CORE_TABLES = frozenset({"runs", "steps", "frames", "findings", "judgments", "target_logs"})
"""Tables every PlayCoder database has since schema 1; a file without them belongs to another program."""


def _migration_1(db: sqlite_utils.Database) -> None:
    db.execute(
        """
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL DEFAULT 'test',
            target TEXT NOT NULL,
            target_path TEXT,
            bug TEXT,
            target_rev TEXT,
            tester TEXT NOT NULL,
            display TEXT,
            seed INTEGER,
            max_steps INTEGER,
            status TEXT NOT NULL DEFAULT 'running',
            verdict TEXT,
            reason TEXT,
            error TEXT,
            config TEXT,
            window_width INTEGER,
            window_height INTEGER,
            engine_pid INTEGER,
            started_at REAL NOT NULL,
            ended_at REAL
        )"""
    )
    db.execute(
        """
        CREATE TABLE frames (
            sha256 TEXT PRIMARY KEY,
            width INTEGER NOT NULL,
            height INTEGER NOT NULL,
            format TEXT NOT NULL,
            data BLOB NOT NULL
        )"""
    )
    db.execute(
        """
        CREATE TABLE steps (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            idx INTEGER NOT NULL,
            actor TEXT NOT NULL DEFAULT 'tester',
            action TEXT NOT NULL,
            outcome TEXT NOT NULL,
            rationale TEXT,
            frame_before TEXT REFERENCES frames(sha256),
            frame_after TEXT REFERENCES frames(sha256),
            changed_bbox TEXT,
            settle_ms REAL,
            settled INTEGER,
            decide_ms REAL,
            act_ms REAL,
            tokens_in INTEGER,
            tokens_out INTEGER,
            findings TEXT,
            started_at REAL NOT NULL,
            ended_at REAL NOT NULL,
            UNIQUE(run_id, idx)
        )"""
    )
    db.execute(
        """
        CREATE TABLE findings (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            step INTEGER,
            criterion TEXT,
            kind TEXT NOT NULL,
            message TEXT NOT NULL,
            evidence TEXT
        )"""
    )
    db.execute(
        """
        CREATE TABLE judgments (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            source TEXT NOT NULL CHECK (source IN ('tester', 'human')),
            author TEXT NOT NULL,
            verdict TEXT,
            criterion TEXT,
            note TEXT,
            undoes INTEGER REFERENCES judgments(id),
            at REAL NOT NULL
        )"""
    )
    db.execute(
        """
        CREATE TABLE target_logs (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            stream TEXT NOT NULL,
            t REAL NOT NULL,
            text TEXT NOT NULL
        )"""
    )
    db.execute(
        """
        CREATE TABLE llm_calls (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            step INTEGER,
            provider TEXT, model TEXT, phase TEXT,
            request TEXT, response TEXT,
            tokens_in INTEGER, tokens_out INTEGER, tokens_estimated INTEGER DEFAULT 0,
            latency_ms REAL, cost REAL, error TEXT, at REAL
        )"""
    )
    db.execute(
        """
        CREATE TABLE patches (
            id INTEGER PRIMARY KEY,
            run_id INTEGER REFERENCES runs(id),
            iteration INTEGER, diagnosis TEXT, diff TEXT, files TEXT,
            validation TEXT, retest_run INTEGER, tokens INTEGER, seconds REAL, at REAL
        )"""
    )
    db.execute(
        """
        CREATE TABLE validation_sets (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            seed INTEGER NOT NULL,
            successes INTEGER NOT NULL,
            failures INTEGER NOT NULL,
            created_at REAL NOT NULL
        )"""
    )
    db.execute(
        """
        CREATE TABLE validation_items (
            id INTEGER PRIMARY KEY,
            set_id INTEGER NOT NULL REFERENCES validation_sets(id),
            run_id INTEGER NOT NULL REFERENCES runs(id),
            tester_verdict TEXT NOT NULL,
            UNIQUE(set_id, run_id)
        )"""
    )
    db.execute(
        """
        CREATE TABLE annotations (
            id INTEGER PRIMARY KEY,
            item_id INTEGER NOT NULL REFERENCES validation_items(id),
            annotator TEXT NOT NULL,
            label TEXT NOT NULL CHECK (label IN ('pass', 'fail', 'unsure')),
            note TEXT,
            at REAL NOT NULL,
            promoted_judgment INTEGER REFERENCES judgments(id),
            UNIQUE(item_id, annotator)
        )"""
    )
    for sql in (
        "CREATE INDEX steps_run ON steps(run_id, idx)",
        "CREATE INDEX findings_run ON findings(run_id)",
        "CREATE INDEX judgments_run ON judgments(run_id, id)",
        "CREATE INDEX logs_run ON target_logs(run_id, t)",
        "CREATE INDEX llm_run ON llm_calls(run_id, step)",
    ):
        db.execute(sql)


def _migration_2(db: sqlite_utils.Database) -> None:
    """Runs remember the engine's pid, so a run whose engine died shows as interrupted."""
    if "engine_pid" not in db.table("runs").columns_dict:
        db.execute("ALTER TABLE runs ADD COLUMN engine_pid INTEGER")


def _migration_3(db: sqlite_utils.Database) -> None:
    """Labels remember the time their annotator spent on the item (agreement studies report the effort labelling took)."""
    if "seconds" not in db.table("annotations").columns_dict:
        db.execute("ALTER TABLE annotations ADD COLUMN seconds REAL")


def _migration_4(db: sqlite_utils.Database) -> None:
    """Runs have films: one row per segment file under ``<database>.films/`` (trace/film.py).

    ``t0`` is the wall time of the segment's first timestamp; ``t1``, ``frames`` and ``bytes`` are
    filled when the segment closes (NULL after a killed engine: the segment's index says how far it got)."""
    if "films" not in db.table_names():
        db.execute(
            """
            CREATE TABLE films (
                id INTEGER PRIMARY KEY,
                run_id INTEGER NOT NULL REFERENCES runs(id),
                seq INTEGER NOT NULL,
                file TEXT NOT NULL,
                codec TEXT NOT NULL,
                width INTEGER NOT NULL,
                height INTEGER NOT NULL,
                t0 REAL NOT NULL,
                t1 REAL,
                frames INTEGER,
                bytes INTEGER,
                UNIQUE(run_id, seq)
            )"""
        )


def _migration_5(db: sqlite_utils.Database) -> None:
    """Steps remember what the reference program showed after them (differential play).

    ``frame_reference`` is a frame's content address like ``frame_after``; NULL for every
    step of a run that had no reference and for a step the reference did not play (a take-over)."""
    if "frame_reference" not in db.table("steps").columns_dict:
        db.execute("ALTER TABLE steps ADD COLUMN frame_reference TEXT REFERENCES frames(sha256)")


def _migration_6(db: sqlite_utils.Database) -> None:
    """A repair's plays are linked to their session with the version they played
    (:mod:`app.engine.trace.repair_plays`); the plays already recorded are linked now."""
    plays_sql.create_table(db.conn)


def _migration_7(db: sqlite_utils.Database) -> None:
    """Runs record the lines each step ran and what they saw the program through
    (:mod:`app.engine.trace.coverage`): ``seen_through`` is 'inside' (a Python program that answered from
    inside) or 'pixels' (NULL for runs recorded before)."""
    coverage_sql.create_tables(db.conn)
    if "seen_through" not in db.table("runs").columns_dict:
        db.execute("ALTER TABLE runs ADD COLUMN seen_through TEXT")


def _migration_8(db: sqlite_utils.Database) -> None:
    """Steps record, of their settle time, how long the program was still reacting (``busy_ms``) and how long the
    engine waited after that (``waited_ms``) (:attr:`~app.engine.play.observer.Observation.busy_ms`).
    NULL for steps recorded before and where it is not known."""
    columns = db.table("steps").columns_dict
    for name in ("busy_ms", "waited_ms"):
        if name not in columns:
            db.execute(f"ALTER TABLE steps ADD COLUMN {name} REAL")


MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [_migration_1, _migration_2, _migration_3, _migration_4,
                                                             _migration_5, _migration_6, _migration_7, _migration_8]
SCHEMA_VERSION = len(MIGRATIONS)
_IN_FORCE = ("SELECT j.verdict FROM judgments j WHERE j.run_id = r.id AND j.source = '{source}' "
             "AND j.criterion IS NULL AND j.undoes IS NULL AND NOT EXISTS (SELECT 1 FROM judgments u "
             "WHERE u.run_id = r.id AND u.undoes = j.id AND u.criterion IS NULL) ORDER BY j.id DESC LIMIT 1")
RUN_ROWS_SQL = (
    "SELECT r.*, (SELECT count(*) FROM steps s WHERE s.run_id = r.id) AS step_count, "
    "CASE WHEN EXISTS (" + _IN_FORCE.format(source="human") + ") THEN (" + _IN_FORCE.format(source="human") + ") "
    "WHEN EXISTS (" + _IN_FORCE.format(source="tester") + ") THEN (" + _IN_FORCE.format(source="tester") + ") "
    "ELSE r.verdict END AS effective_verdict, rp.session_run AS repair_run, rp.iteration AS repair_iteration "
    "FROM runs r LEFT JOIN repair_plays rp ON rp.run_id = r.id {where} ORDER BY r.id DESC"
)
"""Runs with their step count, effective verdict and repair link (``repair_run``, ``repair_iteration``: see
:mod:`~app.engine.trace.repair_plays`; NULL for other runs) (the rule of :meth:`TrajectoryStore.effective_verdict`
for the run as a whole: the newest human judgment in force, else the newest tester one, else the run's own);
every lookup goes through an index, so reading a few runs costs a few lookups."""
RUN_LIST_SQL = RUN_ROWS_SQL.format(where="")
RUN_CHANGES_SQL = RUN_ROWS_SQL.format(where=(
    "WHERE r.id IN (SELECT id FROM runs WHERE id > ? OR ended_at IS NULL "
    "UNION SELECT value FROM json_each(?) "
    "UNION SELECT run_id FROM steps WHERE id > ? UNION SELECT run_id FROM judgments WHERE id > ?)"))
"""The runs that can have changed since a :class:`RunListMark`: new ones, those not ended now, those that
were not ended at the mark (they may have ended since, with no new step), and those with new steps or
judgments (rows are only ever appended; runs are never deleted)."""


@dataclass(frozen=True)
class RunListMark:
    """How far a read of the run list saw: the newest run, step and judgment ids."""

    runs: int
    steps: int
    judgments: int
    open: tuple[int, ...] = ()
    """The runs not ended at the read: the next read asks for them again, because ending a run changes
    its row and adds no id anywhere (a run that ended between two reads was once missed for good)."""


class TrajectoryStore(StepsRepository, MediaRepository, JudgmentsRepository):
    """Read and write the PlayCoder database.  One writer process, many readers."""

    _hold: sqlite_hold.Hold | None = None
    _opened: tuple[int, int] | None = None
    """The (device, inode) of the file the connection opened: another one at :attr:`path` replaced it."""
    _readonly = False

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.validation = ValidationRepository(self)
        """Validation sets, their items and labels (:mod:`.store_validation`)."""
        self.repairs = RepairRepository(self)
        """Repair sessions and their cycles (:mod:`.store_repairs`)."""
        self.llm = LLMCallsRepository(self)
        """Recorded model calls (:mod:`.store_llm`)."""
        self._reserve = DiskReserve(self.path)
        weakref.finalize(self, self._reserve.release)  # a store nobody closed still gives its reserve back
        if readonly and not self.path.exists():
            raise StoreError(f"The database {self.path} does not exist; pass --db with the path of a PlayCoder database.")
        if self.path.is_dir():
            raise StoreError(f"{self.path} is a folder, not a database file; pass --db with the path of a file.")
        if not readonly:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"the folder {self.path.parent} cannot be created ({exc.strerror or exc}); choose "
                                 "another file with --db.") from exc
        created = not readonly and not self.path.exists()
        try:
            self._connect(readonly)
        except BaseException:
            # A file this store made and never gave a schema (an interrupt or a signal during its creation) is
            # taken back: an empty file left behind would read as another program's database.
            if created and self.path.exists():
                with contextlib.suppress(Exception):
                    if self._schemaless():
                        for extra in ("", "-journal", "-wal", "-shm"):
                            Path(str(self.path) + extra).unlink(missing_ok=True)
            raise

    def _schemaless(self) -> bool:
        probe = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=1)
        try:
            return not probe.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        finally:
            probe.close()

    def _connect(self, readonly: bool) -> None:
        conn: GuardedConnection | None = None
        try:
            conn = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_S, check_same_thread=False,
                                   isolation_level=None, factory=GuardedConnection)
            conn.store_path = self.path
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            self.conn = conn
            self.db = sqlite_utils.Database(conn)
            if readonly:
                self._check_schema(int(conn.execute("PRAGMA user_version").fetchone()[0]))
            else:
                self._open_for_writing()
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # a read opens the WAL's -shm to hold
            self._hold = sqlite_hold.hold(self.path)  # other processes keep seeing it in use: see sqlite_hold
            self._readonly = readonly
            with contextlib.suppress(OSError):
                st = os.stat(self.path)
                self._opened = (st.st_dev, st.st_ino)
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()
            fault = fault_for(exc, self.path)
            if fault is not None:
                raise fault from exc
            raise StoreError(
                f"{self.path} is not a readable PlayCoder database ({exc}); choose another file with --db or restore a backup."
            ) from exc
        except BaseException:  # a StoreError, or an interrupt mid-schema: let go of the file before it is judged
            if conn is not None:
                conn.close()
            raise

    # -- schema --------------------------------------------------------------
    def _open_for_writing(self) -> None:
        """Check and migrate the schema holding the write lock, then switch to WAL.

        The version is read inside ``BEGIN IMMEDIATE``: of many processes opening a new
        file at once, one creates the tables and the others, waiting on the lock, find
        them made.  A file this process may only read is opened for reading when its
        schema is current (a write will then say it is read-only)."""
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except StoreFault as fault:
            if fault.kind != READONLY:
                raise
            self._check_schema(int(conn.execute("PRAGMA user_version").fetchone()[0]))
            if self.schema_version < SCHEMA_VERSION:
                raise
            return
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            self._check_schema(version)
            for number in range(version, SCHEMA_VERSION):
                MIGRATIONS[number](self.db)
                conn.execute(f"PRAGMA user_version = {number + 1}")
            conn.execute("COMMIT")
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        self._use_wal()

    def _use_wal(self) -> None:
        """WAL journal (persistent in the file); switching needs a moment alone with the file, so retry briefly."""
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                self.conn.execute("PRAGMA journal_mode = WAL")
                return
            except StoreFault as fault:
                if fault.kind != BUSY or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _check_schema(self, version: int) -> None:
        """Refuse another program's database (whatever its user_version says) and a newer PlayCoder's."""
        tables = {row[0] for row in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        foreign = (version == 0 and bool(tables)) or (version > 0 and not CORE_TABLES <= tables)
        if foreign:
            raise StoreFault(
                f"{self.path} is an SQLite file but not a PlayCoder database; choose another file with --db.", FOREIGN
            )
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer PlayCoder (schema {version}); upgrade PlayCoder to open it."
            )

    @property
    def schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def follow_replaced_file(self) -> bool:
        """Open the file at :attr:`path` again when another one took its name since this connection opened it
        (a copy moved over it, a restored backup); True when it did.  A file that is gone keeps the old one."""
        try:
            st = os.stat(self.path)
        except OSError:
            return False
        if (st.st_dev, st.st_ino) == self._opened or self._opened is None:
            return False
        old, held = self.conn, self._hold
        self._connect(self._readonly)  # raises as opening does; the old connection then stays
        sqlite_hold.let_go(held)
        old.close()
        sqlite_hold.after_close(held)
        return True

    def close(self) -> None:
        held, self._hold = self._hold, None
        sqlite_hold.let_go(held)  # before the connection: the last one anywhere still tidies -wal and -shm away
        self.conn.close()
        sqlite_hold.after_close(held)
        self._reserve.release()

    # -- runs ------------------------------------------------------------------
    def create_run(self, **fields: Any) -> int:
        self._reserve.hold()
        fields.setdefault("started_at", time.time())
        if isinstance(fields.get("config"), (dict, list)):
            fields["config"] = json.dumps(fields["config"])
        with self.transaction():
            play = plays_sql.link_new_run(self.conn, fields)  # a play of a repair's program copy says so
            run_id = _pk(self.db.table("runs").insert(fields).last_pk)
            if play is not None:
                plays_sql.record(self.conn, run_id, play)
            return run_id

    def update_run(self, run_id: int, **fields: Any) -> None:
        with self.transaction():
            self.db.table("runs").update(run_id, fields)

    def finish_run(self, run_id: int, *, status: str, verdict: str | None, reason: str = "", error: str = "") -> None:
        """Close a run and append the tester's judgment, atomically.

        On a full disk the run row alone is closed, in the space the store held back for
        it (:class:`~app.engine.trace.disk_reserve.DiskReserve`), so a run never stays 'running'."""
        now = time.time()
        try:
            with self.transaction():
                self.db.table("runs").update(
                    run_id, {"status": status, "verdict": verdict, "reason": reason, "error": error, "ended_at": now}
                )
                if verdict is not None:
                    self.db.table("judgments").insert(
                        {"run_id": run_id, "source": "tester", "author": "tester", "verdict": verdict, "note": reason,
                         "at": now}
                    )
        except StoreFault as fault:
            if fault.kind != FULL:
                raise
            self._reserve.release()  # the space held for this moment (see disk_reserve)
            with self.transaction():
                self.conn.execute("UPDATE runs SET status = ?, verdict = ?, reason = ?, error = ?, ended_at = ? "
                                  "WHERE id = ?", [status, verdict, reason[:200], error[:200], now, run_id])

    def run(self, run_id: int) -> dict[str, Any]:
        rows = list(self.db.query("SELECT * FROM runs WHERE id = ?", [run_id]))
        if not rows:
            raise StoreError(f"There is no run {run_id} in {self.path}; list runs with `playcoder runs`.")
        return _mark_interrupted(rows[0])

    def runs(self) -> list[dict[str, Any]]:
        """Every run with its step count and effective verdict, newest first."""
        rows = list(
            self.db.query(
                "SELECT r.*, (SELECT count(*) FROM steps s WHERE s.run_id = r.id) AS step_count, "
                "rp.session_run AS repair_run, rp.iteration AS repair_iteration "
                "FROM runs r LEFT JOIN repair_plays rp ON rp.run_id = r.id ORDER BY r.id DESC"
            )
        )
        for row in rows:
            row["effective_verdict"] = self.effective_verdict(row["id"], tester_verdict=row["verdict"])
            _mark_interrupted(row)
        return rows

    def target_path(self, run_id: int) -> str | None:
        """The folder a run's target was played from (its ``playcoder.toml`` holds the goal and criteria), and
        nothing else of the run: a blinded view may ask for it."""
        row = self.conn.execute("SELECT target_path FROM runs WHERE id = ?", [run_id]).fetchone()
        return str(row[0]) if row is not None and row[0] else None

    def repair_play(self, run_id: int) -> RepairPlay | None:
        """The repair session ``run_id`` was played for, and which version of its program (None: not a play)."""
        return plays_sql.play_of(self.conn, run_id)

    def repair_plays(self, session_run: int) -> list[tuple[int, RepairPlay]]:
        """The plays of the repair session ``session_run``, oldest first."""
        return plays_sql.plays_of(self.conn, session_run)

    def run_list(self) -> list[dict[str, Any]]:
        """The rows of :meth:`runs` (step count, effective verdict) in ONE query, for a list re-read often."""
        return self._run_rows(RUN_LIST_SQL, [])

    def run_list_changes(self, since: RunListMark | None) -> tuple[list[dict[str, Any]], RunListMark]:
        """The rows of :meth:`run_list` that may have changed since ``since`` (all of them for None), in ONE
        query, and the mark to pass next time; both read in one snapshot.  Costs O(runs changed)."""
        outer = not self.conn.in_transaction
        if outer:
            self.conn.execute("BEGIN")
        try:
            runs, steps, judgments = self.conn.execute(
                "SELECT coalesce((SELECT max(id) FROM runs), 0), coalesce((SELECT max(id) FROM steps), 0), "
                "coalesce((SELECT max(id) FROM judgments), 0)").fetchone()
            mark = RunListMark(runs, steps, judgments,
                               tuple(r for (r,) in self.conn.execute("SELECT id FROM runs WHERE ended_at IS NULL")))
            if since is None:
                return self._run_rows(RUN_LIST_SQL, []), mark
            return self._run_rows(RUN_CHANGES_SQL, [since.runs, json.dumps(since.open), since.steps,
                                                    since.judgments]), mark
        finally:
            if outer:
                self.end_read()  # a read that failed half-way must not leave the snapshot open either

    def end_read(self) -> None:
        """Leave the read transaction this connection may sit in, so its next read sees every commit.

        For a connection that only reads (the run list's, a change probe's): a snapshot left open
        by a failed COMMIT or a half-read statement would show the database as it was, forever."""
        if self.conn.in_transaction:
            try:
                self.conn.execute("COMMIT")
            except sqlite3.Error:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("ROLLBACK")

    def _run_rows(self, sql: str, args: list[Any]) -> list[dict[str, Any]]:
        cur = self.conn.execute(sql, args)
        names = [d[0] for d in cur.description]
        return [_mark_interrupted(dict(zip(names, values))) for values in cur.fetchall()]

    def data_version(self) -> int:
        """``PRAGMA data_version``: changes when any *other* connection committed since this one last looked."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def abort_when(self, stop: Callable[[], bool], every: int = 1000) -> None:
        """Abort this connection's statements (sqlite3.OperationalError) once ``stop()`` is true; checked every
        ``every`` SQLite VM steps.  For cancellable work on a connection of its own; a write rolls back whole."""
        self.conn.set_progress_handler(lambda: 1 if stop() else 0, every)

def _mark_interrupted(row: dict[str, Any]) -> dict[str, Any]:
    """A 'running' run whose engine process is gone was interrupted (killed, machine crash)."""
    pid = row.get("engine_pid")
    if row.get("status") == "running" and row.get("ended_at") is None and pid:  # no pid: not the engine's run
        alive = False
        if pid:
            try:
                proc = psutil.Process(int(pid))
                alive = proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE \
                    and proc.create_time() <= float(row["started_at"]) + 1.0
            except (psutil.Error, ValueError):
                alive = False
        if not alive:
            row["status"] = "interrupted"
    return row


