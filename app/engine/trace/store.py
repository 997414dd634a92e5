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
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import sqlite3
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

import numpy as np
import psutil
import sqlite_utils
from PIL import Image

from app.engine.errors import StoreError
from app.engine.trace import coverage as coverage_sql
from app.engine.trace import repair_plays as plays_sql
from app.engine.trace.coverage import FileCoverage
from app.engine.trace.repair_plays import RepairPlay
from app.engine.trace.disk_reserve import DiskReserve
from app.engine.trace.sqlite_faults import BUSY, FOREIGN, FULL, READONLY, GuardedConnection, StoreFault, fault_for

BUSY_TIMEOUT_S = 10.0
"""How long a write waits for another process's write lock before it gives up with a sentence."""
CORE_TABLES = frozenset({"runs", "steps", "frames", "findings", "judgments", "target_logs"})
"""Tables every PlayCoder database has since schema 1; a file without them belongs to another program."""
MAX_LOG_LINE_CHARS = 64 * 1024
"""A target's output line is kept up to this long (a program can print megabytes without a newline)."""
PNG_COMPRESS_LEVEL = 1
"""Fast PNG: frames are written inside the step loop (see benchmark/engine_speed.py)."""


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
    """Labels remember the time their annotator spent on the item (issue 17)."""
    if "seconds" not in db.table("annotations").columns_dict:
        db.execute("ALTER TABLE annotations ADD COLUMN seconds REAL")


def _migration_4(db: sqlite_utils.Database) -> None:
    """Runs have films (issue 16): one row per segment file under ``<database>.films/`` (trace/film.py).

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
    """Steps remember what the reference program showed after them (issue 14, differential play).

    ``frame_reference`` is a frame's content address like ``frame_after``; NULL for every
    step of a run that had no reference and for a step the reference did not play (a take-over)."""
    if "frame_reference" not in db.table("steps").columns_dict:
        db.execute("ALTER TABLE steps ADD COLUMN frame_reference TEXT REFERENCES frames(sha256)")


def _migration_6(db: sqlite_utils.Database) -> None:
    """A repair's plays are linked to their session with the version they played (issue 28,
    :mod:`app.engine.trace.repair_plays`); the plays already recorded are linked now."""
    plays_sql.create_table(db.conn)


def _migration_7(db: sqlite_utils.Database) -> None:
    """Runs record the lines each step ran and what they saw the program through (issue 23,
    :mod:`app.engine.trace.coverage`): ``seen_through`` is 'inside' (a Python program that answered from
    inside) or 'pixels' (NULL for runs recorded before)."""
    coverage_sql.create_tables(db.conn)
    if "seen_through" not in db.table("runs").columns_dict:
        db.execute("ALTER TABLE runs ADD COLUMN seen_through TEXT")


def _migration_8(db: sqlite_utils.Database) -> None:
    """Steps record, of their settle time, how long the program was still reacting (``busy_ms``) and how long the
    engine waited after that (``waited_ms``) (issue 27; :attr:`~app.engine.play.observer.Observation.busy_ms`).
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


@dataclass(frozen=True)
class StoredFrame:
    sha256: str
    width: int
    height: int
    format: str
    data: bytes

    def image(self) -> Image.Image:
        return Image.open(io.BytesIO(self.data)).convert("RGB")


def frame_digest(width: int, height: int, pixels: bytes, mode: str = "BGRX") -> str:
    """Content address of a picture: sha256 of ``"WxH:"`` and its pixels as B, G, R, 0 (4 bytes each, row by row).

    ``pixels`` are raw in ``mode`` (``BGRX`` as captured, or ``RGB``).  The X byte of a
    capture is whatever the X server left there, so it is zeroed, not hashed: equal
    pictures share one row, and a PNG (which cannot keep that byte) can be checked
    against its address (:func:`image_digest`).
    """
    if mode != "BGRX" or len(pixels) != width * height * 4:
        return image_digest(Image.frombuffer("RGB", (width, height), pixels, "raw", mode, 0, 1))
    h = hashlib.sha256(f"{width}x{height}:".encode())
    h.update(_zero_x(pixels))
    return h.hexdigest()


DIGEST_ROWS = 256
"""Rows hashed at a time by :func:`image_digest`, so a large picture is never copied whole."""


def image_digest(image: Image.Image) -> str:
    """:func:`frame_digest` of a decoded picture (any mode; alpha is dropped, as a capture's X byte is)."""
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    width, height = rgb.size
    h = hashlib.sha256(f"{width}x{height}:".encode())
    for top in range(0, height, DIGEST_ROWS):
        h.update(_zero_x(rgb.crop((0, top, width, min(height, top + DIGEST_ROWS))).tobytes("raw", "BGRX")))
    return h.hexdigest()


def _zero_x(bgrx: bytes) -> bytes:
    """The pixels with every fourth byte (X) set to 0; little-endian words make it byte-order proof."""
    words = np.frombuffer(bgrx, dtype="<u4") & np.uint32(0x00FFFFFF)
    return words.astype("<u4", copy=False).tobytes()


class TrajectoryStore:
    """Read and write the PlayCoder database.  One writer process, many readers."""

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
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
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()
            fault = fault_for(exc, self.path)
            if fault is not None:
                raise fault from exc
            raise StoreError(
                f"{self.path} is not a readable PlayCoder database ({exc}); choose another file with --db or restore a backup."
            ) from exc
        except StoreError:
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

    def transaction(self) -> Any:
        """Context manager: BEGIN IMMEDIATE … COMMIT, or ROLLBACK on error."""
        return _Transaction(self.conn)

    def close(self) -> None:
        self.conn.close()
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

    # -- frames and steps ------------------------------------------------------
    def put_frame(self, width: int, height: int, pixels: bytes, *, mode: str = "BGRX") -> str:
        """Store raw pixels once; returns the content hash.  Must run inside a transaction."""
        digest = frame_digest(width, height, pixels, mode)
        if self.conn.execute("SELECT 1 FROM frames WHERE sha256 = ?", [digest]).fetchone() is None:
            image = Image.frombuffer("RGB", (width, height), pixels, "raw", mode, 0, 1)
            buf = io.BytesIO()
            image.save(buf, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
            self.conn.execute(
                "INSERT INTO frames (sha256, width, height, format, data) VALUES (?, ?, ?, 'png', ?)",
                [digest, width, height, buf.getvalue()],
            )
        return digest

    def put_image(self, image: Image.Image) -> str:
        rgb = image.convert("RGB")
        with self.transaction():
            return self.put_frame(rgb.width, rgb.height, rgb.tobytes(), mode="RGB")

    def frame(self, sha256: str) -> StoredFrame | None:
        row = self.conn.execute(
            "SELECT sha256, width, height, format, data FROM frames WHERE sha256 = ?", [sha256]
        ).fetchone()
        return StoredFrame(*row) if row else None

    def add_step(
        self, run_id: int, idx: int, step: dict[str, Any], findings: Iterable[dict[str, Any]] = ()
    ) -> None:
        """Commit one step and its findings together."""
        row = dict(step, run_id=run_id, idx=idx)
        for key in ("action", "changed_bbox", "findings"):
            if key in row and not isinstance(row[key], (str, type(None))):
                row[key] = json.dumps(row[key])
        with self.transaction():
            self.db.table("steps").insert(row)
            for finding in findings:
                self._insert_finding(run_id, finding)

    def set_step_reference(self, run_id: int, idx: int, sha256: str) -> None:
        """Record the reference program's frame after step ``idx`` (a stored frame's address).

        Differential play learns it as the step is observed, before the session commits the
        step, so it is written afterwards in a short transaction of its own."""
        with self.transaction():
            cur = self.conn.execute("UPDATE steps SET frame_reference = ? WHERE run_id = ? AND idx = ?",
                                    [sha256, run_id, idx])
            if cur.rowcount == 0:
                raise StoreError(f"There is no step {idx} of run {run_id} in {self.path} to give a reference frame; "
                                 "record the step first.")

    def has_reference_frames(self, run_id: int) -> bool:
        """Does any step of the run carry a reference frame (a differential run)?"""
        return self.conn.execute("SELECT 1 FROM steps WHERE run_id = ? AND frame_reference IS NOT NULL LIMIT 1",
                                 [run_id]).fetchone() is not None

    # -- coverage (app.engine.trace.coverage) -------------------------------------------------
    def add_coverage(self, run_id: int, step: int, by_file: dict[str, list[int]]) -> None:
        """Record the lines of the program's own files the run reached first at ``step`` (START_STEP: start-up)."""
        with self.transaction():
            coverage_sql.add(self.conn, run_id, step, by_file)

    def set_coverage_files(self, run_id: int, by_file: Mapping[str, Iterable[int]]) -> None:
        """Record each own file's executable lines (what the run's coverage is counted against)."""
        with self.transaction():
            coverage_sql.set_files(self.conn, run_id, by_file)

    def step_coverage(self, run_id: int, step: int) -> dict[str, list[int]]:
        """The lines the run reached for the first time at step ``step``, per file ({}: none, or no coverage
        recorded for the run)."""
        return coverage_sql.of_step(self.conn, run_id, step)

    def run_coverage(self, run_id: int) -> list[FileCoverage]:
        """Each own file of the run with its executable lines and those reached ([]: no coverage)."""
        return coverage_sql.of_run(self.conn, run_id)

    def coverage_steps(self, run_id: int) -> dict[int, dict[str, list[int]]]:
        """Each step's first-reached lines per file, for the whole run in one read ({}: no coverage)."""
        return coverage_sql.by_step(self.conn, run_id)

    def coverage_by_step(self, run_id: int) -> dict[int, int]:
        """How many lines each step ran first (-1: the start-up), for the steps that ran any."""
        return coverage_sql.lines_by_step(self.conn, run_id)

    def add_finding(self, run_id: int, finding: dict[str, Any]) -> None:
        with self.transaction():
            self._insert_finding(run_id, finding)

    def _insert_finding(self, run_id: int, finding: dict[str, Any]) -> None:
        row = dict(finding, run_id=run_id)
        if not isinstance(row.get("evidence"), (str, type(None))):
            row["evidence"] = json.dumps(row["evidence"])
        self.db.table("findings").insert(row)

    def step_count(self, run_id: int) -> int:
        return int(self.conn.execute("SELECT count(*) FROM steps WHERE run_id = ?", [run_id]).fetchone()[0])

    def steps(self, run_id: int, offset: int = 0, limit: int = -1) -> list[dict[str, Any]]:
        return self._decode_steps(
            self.db.query("SELECT * FROM steps WHERE run_id = ? ORDER BY idx LIMIT ? OFFSET ?", [run_id, limit, offset])
        )

    @staticmethod
    def _decode_steps(rows: Iterator[dict[str, Any]]) -> list[dict[str, Any]]:
        out = list(rows)
        for row in out:
            for key in ("action", "changed_bbox", "findings"):
                if row.get(key):
                    row[key] = json.loads(row[key])
        return out

    def step(self, run_id: int, idx: int) -> dict[str, Any] | None:
        rows = self._decode_steps(self.db.query("SELECT * FROM steps WHERE run_id = ? AND idx = ?", [run_id, idx]))
        return rows[0] if rows else None

    def findings(self, run_id: int) -> list[dict[str, Any]]:
        rows = list(self.db.query("SELECT * FROM findings WHERE run_id = ? ORDER BY id", [run_id]))
        for row in rows:
            if row.get("evidence"):
                try:
                    row["evidence"] = json.loads(row["evidence"])
                except ValueError:
                    pass
        return rows

    # -- films ----------------------------------------------------------------------------
    @property
    def films_dir(self) -> Path:
        """Where this database's films live: ``<database>.films/`` beside the file."""
        return self.path.with_name(self.path.name + ".films")

    def add_film(self, run_id: int, *, seq: int, file: str, codec: str, width: int, height: int, t0: float) -> int:
        """Register a film segment as it starts (its file name inside :attr:`films_dir`)."""
        with self.transaction():
            return _pk(self.db.table("films").insert(
                {"run_id": run_id, "seq": seq, "file": file, "codec": codec, "width": width, "height": height,
                 "t0": t0}).last_pk)

    def finish_film(self, film_id: int, *, t1: float, frames: int, size: int) -> None:
        with self.transaction():
            self.conn.execute("UPDATE films SET t1 = ?, frames = ?, bytes = ? WHERE id = ?", [t1, frames, size, film_id])

    def films(self, run_id: int) -> list[dict[str, Any]]:
        """A run's film segments in order (none for a run recorded without a film)."""
        return list(self.db.query("SELECT * FROM films WHERE run_id = ? ORDER BY seq", [run_id]))

    def step_times(self, run_id: int) -> list[tuple[int, float, float, bool]]:
        """Every step's (idx, started_at, ended_at, has findings), in order: the marks of a time axis."""
        return [(int(i), float(a), float(b), bool(f)) for i, a, b, f in self.conn.execute(
            "SELECT idx, started_at, ended_at, findings IS NOT NULL FROM steps WHERE run_id = ? ORDER BY idx",
            [run_id])]

    # -- target logs -------------------------------------------------------------
    def add_logs(self, run_id: int, lines: list[tuple[str, float, str]]) -> None:
        """Record the target's output lines; a line past :data:`MAX_LOG_LINE_CHARS` keeps its head and says so."""
        if not lines:
            return
        with self.transaction():
            self.conn.executemany(
                "INSERT INTO target_logs (run_id, stream, t, text) VALUES (?, ?, ?, ?)",
                [(run_id, stream, t, _log_text(text)) for stream, t, text in lines],
            )

    def logs(self, run_id: int, t0: float | None = None, t1: float | None = None) -> list[dict[str, Any]]:
        sql = "SELECT stream, t, text FROM target_logs WHERE run_id = ?"
        args: list[Any] = [run_id]
        if t0 is not None:
            sql += " AND t >= ?"
            args.append(t0)
        if t1 is not None:
            sql += " AND t <= ?"
            args.append(t1)
        return list(self.db.query(sql + " ORDER BY t, id", args))

    # -- model calls -------------------------------------------------------------
    def llm_calls(self, run_id: int, step: int | None = None) -> list[dict[str, Any]]:
        """The recorded model calls (one row per attempt) of a run, or of one of its steps; oldest first."""
        if step is None:
            return list(self.db.query("SELECT * FROM llm_calls WHERE run_id = ? ORDER BY id", [run_id]))
        return list(self.db.query("SELECT * FROM llm_calls WHERE run_id = ? AND step = ? ORDER BY id", [run_id, step]))

    def llm_usage(self, run_id: int) -> dict[str, Any]:
        """Totals over a run's model calls: ``calls``, ``tokens_in``, ``tokens_out``, ``cost`` (None when no
        call had a known price), ``priced`` (calls with a cost) and ``estimated`` (calls whose tokens were counted
        locally because the provider sent no usage)."""
        row = self.conn.execute(
            "SELECT count(*), coalesce(sum(tokens_in), 0), coalesce(sum(tokens_out), 0), sum(cost), count(cost), "
            "coalesce(sum(tokens_estimated), 0) FROM llm_calls WHERE run_id = ?", [run_id]).fetchone()
        return {"calls": int(row[0]), "tokens_in": int(row[1]), "tokens_out": int(row[2]),
                "cost": None if row[3] is None else float(row[3]), "priced": int(row[4]), "estimated": int(row[5])}

    # -- judgments -------------------------------------------------------------
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


def _log_text(text: str) -> str:
    if len(text) <= MAX_LOG_LINE_CHARS:
        return text
    return f"{text[:MAX_LOG_LINE_CHARS]} … [{len(text) - MAX_LOG_LINE_CHARS} more characters not kept]"


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


def _pk(value: Any) -> int:
    if value is None:
        raise StoreError("the database did not return a row id; check that the file is writable.")
    return int(value)


class _Transaction:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.outer = False

    def __enter__(self) -> sqlite3.Connection:
        self.outer = not self.conn.in_transaction
        if self.outer:
            self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if not self.outer:
            return
        if exc_type is None:
            try:
                self.conn.execute("COMMIT")
            except BaseException:
                self._rollback()  # a failed COMMIT (full disk) leaves the transaction open
                raise
        else:
            self._rollback()

    def _rollback(self) -> None:
        """Roll back if SQLite has not already (it does by itself on a full disk); never mask the first error."""
        if self.conn.in_transaction:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass


