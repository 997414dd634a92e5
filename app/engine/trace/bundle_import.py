"""Importing a trace bundle: every check first, then one transaction under fresh ids.

Import trusts nothing.  It checks the zip, the member names and sizes, every
member's sha256, every frame's pixels against its content address (a frame
that decodes to another picture is refused, so a bundle can never put a
picture under an address the store already uses), every row's fields and every
reference, reading with bounded memory (:mod:`app.engine.trace.bundle_reader`).
Rows are streamed twice, checked and then inserted, never all held at once; the
second pass checks the sha256 sums again, so a file changed in between is
refused and the transaction rolled back: a bad bundle leaves the database as it was.
"""

from __future__ import annotations

import json
import re
import sqlite3
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from app.engine.errors import StoreError
from app.engine.trace.bundle_films import FilmFiles, FilmMember, check_films, member_limit
from app.engine.trace.bundle_format import (
    AGAIN, BUNDLE_FORMAT, BUNDLE_VERSION, COUNT_KEYS, FRAME_FORMAT, FRAME_MEMBER_RE, MANIFEST, OPTIONAL_MEMBERS,
    STEP_FRAMES, TABLES, BundleError,
)
from app.engine.trace.bundle_reader import FrameInfo, Limits, MemberReader, check_frame
from app.engine.trace.bundle_reader import short as _short, size as _size, why as _why
from app.engine.trace.store import TrajectoryStore

MAX_UNCOMPRESSED_BYTES = 2 * 1024**3
"""Refuse bundles that would inflate past this (zip-bomb guard)."""
MAX_MEMBERS = 50_000
"""Refuse bundles with more members than this; a 10 000-step run needs about 20 000."""
MAX_ROWS_MEMBER_BYTES = 512 * 1024**2
"""One .jsonl member (steps, logs, model calls) may inflate to this much; it is streamed, never held."""
MAX_JSON_MEMBER_BYTES = 32 * 1024**2
"""One .json member (run, findings, judgments, patches, manifest) is parsed whole, so it stays small."""
MAX_LINE_BYTES = 16 * 1024**2
"""One row of a .jsonl member."""
MAX_FRAME_BYTES = 64 * 1024**2
MAX_FRAME_SIDE = 16384
MAX_FRAME_PIXELS = 40_000_000
"""A frame is one window capture: larger pictures are refused before their pixels are decoded."""
SQLITE_INT = (-(2**63), 2**63 - 1)
"""What an SQLite INTEGER holds."""


@dataclass
class _Checked:
    """A bundle that passed every check, ready to insert (rows are read again from the zip)."""

    run: dict[str, Any]
    judgments: list[dict[str, Any]]
    frames: dict[str, FrameInfo]
    digests: dict[str, str]
    infos: dict[str, zipfile.ZipInfo]
    films: list[FilmMember]


COVERAGE_MEMBERS = ("coverage.jsonl", "coverage_files.json")
"""The run's line coverage (optional: bundles before schema 7, and runs of programs that are not Python)."""


def import_bundle(store: TrajectoryStore, path: str | Path) -> int:
    """Import a trace bundle as a new run and return its id; all or nothing (its film's files too)."""
    path = Path(path)
    with _open_zip(path) as zf:
        checked = _verify(store, zf, path)
        files = FilmFiles(store)
        try:
            try:
                with store.transaction():
                    return _insert(store, zf, path, checked, files)
            except StoreError:
                raise
            except sqlite3.IntegrityError as exc:
                raise BundleError(f"{path} has rows this database refuses ({_why(exc)}); {AGAIN}.") from exc
            except sqlite3.OperationalError as exc:
                raise StoreError(f"{store.path} could not take the import ({_why(exc)}); try again when no run is "
                                 "writing to it.") from exc
            except (UnicodeEncodeError, OverflowError) as exc:
                raise BundleError(f"{path} is damaged (it holds text or a number SQLite cannot store); {AGAIN}.") \
                    from exc
            except OSError as exc:
                raise StoreError(f"the film could not be written beside {store.path} ({exc.strerror or exc}); "
                                 "free some disk space and import again.") from exc
        except BaseException:
            files.discard()  # the rows were rolled back: so are the film's files
            raise


def _limits() -> Limits:
    """The limits as this module sets them now (tests lower them)."""
    return Limits(MAX_UNCOMPRESSED_BYTES, MAX_ROWS_MEMBER_BYTES, MAX_JSON_MEMBER_BYTES, MAX_LINE_BYTES,
                  MAX_FRAME_BYTES, MAX_FRAME_SIDE, MAX_FRAME_PIXELS)


def _member_limit(name: str) -> int:
    film = member_limit(name)
    if film is not None:
        return film
    if FRAME_MEMBER_RE.fullmatch(name):
        return MAX_FRAME_BYTES
    return MAX_ROWS_MEMBER_BYTES if name.endswith(".jsonl") else MAX_JSON_MEMBER_BYTES


class _open_zip:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.zf: zipfile.ZipFile | None = None

    def __enter__(self) -> zipfile.ZipFile:
        magic = b""
        if not self.path.exists():
            raise BundleError(f"{self.path} does not exist; give the path of a .zip written by `playcoder export`.")
        if not self.path.is_file():
            raise BundleError(f"{self.path} is not a file; give the path of a .zip written by `playcoder export`.")
        if self.path.stat().st_size > MAX_UNCOMPRESSED_BYTES:
            raise BundleError(f"{self.path} is larger than {_size(MAX_UNCOMPRESSED_BYTES)}, "
                              f"which no trace bundle needs; {AGAIN}.")
        try:
            with open(self.path, "rb") as fh:
                magic = fh.read(4)
                declared = declared_members(fh)
            if declared is not None and declared > MAX_MEMBERS:
                raise BundleError(f"{self.path} has {declared} members, more than the {MAX_MEMBERS} a bundle may "
                                  f"have; {AGAIN}.")
            self.zf = zipfile.ZipFile(self.path)
        except BundleError:
            raise
        except Exception as exc:  # zipfile fails in many ways (BadZipFile, NotImplementedError, struct.error...)
            if magic.startswith(b"PK"):
                raise BundleError(f"{self.path} is a damaged or truncated zip file; {AGAIN}.") from exc
            raise BundleError(f"{self.path} is not a PlayCoder trace bundle (it is not a zip file); {AGAIN}.") from exc
        return self.zf

    def __exit__(self, *exc: Any) -> None:
        if self.zf is not None:
            self.zf.close()


def _verify(store: TrajectoryStore, zf: zipfile.ZipFile, path: Path) -> _Checked:
    limits = _limits()
    infos = _check_members(zf, path)
    reader = MemberReader(zf, path, limits)
    manifest = _json(reader.read(infos[MANIFEST], MAX_JSON_MEMBER_BYTES), MANIFEST, path)
    _check_manifest(store, manifest, path)
    hashes: dict[str, Any] = manifest["members"]
    listed, present = set(hashes), set(infos) - {MANIFEST}
    if listed != present:
        name = sorted(listed ^ present)[0]
        where = "missing from the zip" if name in listed else "not listed in the manifest"
        raise BundleError(f"{path} is incomplete ({_short(name)} is {where}); {AGAIN}.")
    missing_tables = [n for n in TABLES if n not in present and n not in OPTIONAL_MEMBERS]
    if missing_tables:
        raise BundleError(f"{path} is incomplete ({missing_tables[0]} is missing); {AGAIN}.")
    digests = _digests(hashes, present, path)
    counts: dict[str, Any] = manifest["counts"]
    columns = _Columns(store.conn, path)
    rows = _RowReader(reader, infos, digests, path)
    (run,) = _counted(rows.rows("run.json"), 1, "run.json", path)
    columns.check("run.json", run)

    frames: dict[str, FrameInfo] = {}
    for name in sorted(n for n in present if FRAME_MEMBER_RE.fullmatch(n)):
        sha = name[len("frames/"):-len(".png")]
        data = reader.read(infos[name], MAX_FRAME_BYTES, digests[name])
        width, height = check_frame(data, sha, name, path, limits)
        frames[sha] = FrameInfo(width, height, name, digests[name])
    if counts.get("frames") != len(frames):
        raise BundleError(f"{path} is damaged (its frame count does not match the manifest); {AGAIN}.")

    judgments = _counted(rows.rows("judgments.json"), counts.get("judgments"), "judgments.json", path)
    for judgment in judgments:
        columns.check("judgments.json", judgment)
    _check_judgments(judgments, path)
    for name in ("findings.json", "patches.json", "logs.jsonl", "llm_calls.jsonl", *COVERAGE_MEMBERS):
        if name in COVERAGE_MEMBERS and name not in present:
            continue
        n = 0
        for row in rows.rows(name):
            columns.check(name, row)
            n += 1
        _check_count(n, counts.get(COUNT_KEYS[name]), name, path)
    films: list[dict[str, Any]] = []
    if "films.json" in present:
        films = _counted(rows.rows("films.json"), counts.get("films"), "films.json", path)
        for film in films:
            columns.check("films.json", film)
    checked_films = check_films(films, infos, reader, digests, path)
    idxs: set[Any] = set()
    n = 0
    for step in rows.rows("steps.jsonl"):
        columns.check("steps.jsonl", step)
        _check_step(step, idxs, frames, path)
        n += 1
    _check_count(n, counts.get("steps"), "steps.jsonl", path)
    return _Checked(run, sorted(judgments, key=lambda j: int(j["id"])), frames, digests, infos, checked_films)


def _digests(hashes: dict[str, Any], present: set[str], path: Path) -> dict[str, str]:
    """Each member's SHA-256 as the manifest lists it (lower case); a malformed one is damage."""
    digests: dict[str, str] = {}
    for name in sorted(present):
        digest = hashes[name]
        if not isinstance(digest, str) or not re.fullmatch(r"[0-9a-fA-F]{64}", digest):
            raise BundleError(f"{path} is damaged ({_short(name)} does not match its checksum); {AGAIN}.")
        digests[name] = digest.lower()
    return digests


def declared_members(fh: Any) -> int | None:
    """The member count the zip's end record declares (None when there is no plain end record to read)."""
    try:
        fh.seek(0, 2)
        end = fh.tell()
        fh.seek(max(0, end - 65557))
        tail = fh.read()
    except OSError:
        return None
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) < at + 22:
        return None
    entries = int.from_bytes(tail[at + 10:at + 12], "little")
    return None if entries == 0xFFFF else entries  # zip64: zipfile reads the real count


def _check_members(zf: zipfile.ZipFile, path: Path) -> dict[str, zipfile.ZipInfo]:
    infos: dict[str, zipfile.ZipInfo] = {}
    total = 0
    members = zf.infolist()
    if not any(info.filename == MANIFEST for info in members):
        raise BundleError(f"{path} is not a PlayCoder trace bundle (manifest.json missing); {AGAIN}.")
    if len(members) > MAX_MEMBERS:
        raise BundleError(f"{path} has {len(members)} members, more than the {MAX_MEMBERS} a bundle may have; {AGAIN}.")
    for info in members:
        name = info.filename
        if name != MANIFEST and name not in TABLES and not FRAME_MEMBER_RE.fullmatch(name) \
                and member_limit(name) is None:
            raise BundleError(f"{path} contains an unexpected member {name[:80]!r}; only bundles written by "
                              "`playcoder export` can be imported.")
        if name in infos:
            raise BundleError(f"{path} contains {_short(name)} twice; {AGAIN}.")
        if info.flag_bits & 0x1:
            raise BundleError(f"{path} is encrypted; {AGAIN} without a password.")
        limit = _member_limit(name)
        if info.file_size > limit:
            raise BundleError(f"{path} is refused ({_short(name)} would inflate to {_size(info.file_size)}, more "
                              f"than the {_size(limit)} any trace bundle needs); {AGAIN}.")
        total += info.file_size
        if total > MAX_UNCOMPRESSED_BYTES:
            raise BundleError(f"{path} would unpack to more than {_size(MAX_UNCOMPRESSED_BYTES)}, "
                              f"which no trace bundle needs; {AGAIN}.")
        infos[name] = info
    return infos


def _json(data: bytes, name: str, path: Path) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise BundleError(f"{path} is damaged ({name} is not valid JSON); {AGAIN}.") from exc


def _check_manifest(store: TrajectoryStore, manifest: Any, path: Path) -> None:
    if not isinstance(manifest, dict) or manifest.get("format") != BUNDLE_FORMAT:
        raise BundleError(f"{path} is not a PlayCoder trace bundle (its manifest names another format); {AGAIN}.")
    version = manifest.get("version")
    if version != BUNDLE_VERSION:
        raise BundleError(f"{path} is a version {str(version)[:20]} trace bundle but this PlayCoder reads "
                          f"version {BUNDLE_VERSION}; import it with the PlayCoder that wrote it or {AGAIN}.")
    schema = manifest.get("schema_version")
    if not isinstance(schema, int) or schema < 1:
        raise BundleError(f"{path} has no valid schema_version in its manifest; {AGAIN}.")
    if schema > store.schema_version:
        raise BundleError(f"{path} was written by a newer PlayCoder (schema {schema}); upgrade PlayCoder to import it.")
    if not isinstance(manifest.get("members"), dict) or not isinstance(manifest.get("counts"), dict):
        raise BundleError(f"{path} has a manifest without members or counts; {AGAIN}.")


class _RowReader:
    """Rows of a table member: a .jsonl member a line at a time, a (small) .json member parsed whole."""

    def __init__(self, reader: MemberReader, infos: dict[str, zipfile.ZipInfo], digests: dict[str, str],
                 path: Path) -> None:
        self.reader, self.infos, self.digests, self.path = reader, infos, digests, path

    def rows(self, name: str) -> Iterator[dict[str, Any]]:
        info, digest = self.infos[name], self.digests[name]
        kind = TABLES[name][1]
        if kind == "jsonl":
            for line in self.reader.lines(info, digest):
                yield self._row(_json(line, name, self.path), name)
            return
        value = _json(self.reader.read(info, MAX_JSON_MEMBER_BYTES, digest), name, self.path)
        values = [value] if kind == "one" else value
        if not isinstance(values, list):
            raise BundleError(f"{self.path} is damaged ({name} does not hold rows); {AGAIN}.")
        for item in values:
            yield self._row(item, name)

    def _row(self, row: Any, name: str) -> dict[str, Any]:
        if not isinstance(row, dict):
            raise BundleError(f"{self.path} is damaged ({name} does not hold rows); {AGAIN}.")
        for key, value in row.items():
            if not isinstance(value, (str, int, float, type(None))):
                raise BundleError(f"{self.path} is damaged ({name} has a nested value in {key[:40]!r}); {AGAIN}.")
            if isinstance(value, int) and not SQLITE_INT[0] <= value <= SQLITE_INT[1]:
                raise BundleError(f"{self.path} is damaged ({name} has a number out of range in {key[:40]!r}); "
                                  f"{AGAIN}.")
        return row


def _counted(rows: Iterator[dict[str, Any]], expected: Any, name: str, path: Path) -> list[dict[str, Any]]:
    out = list(rows)
    _check_count(len(out), expected, name, path)
    return out


def _check_count(n: int, expected: Any, name: str, path: Path) -> None:
    if expected != n:
        what = "one row" if name == "run.json" else "the manifest's count"
        raise BundleError(f"{path} is damaged ({name} holds {n} rows, not {what}); {AGAIN}.")


class _Columns:
    """Each table's columns, read once: a row may name only those and must give the required ones."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn, self.path = conn, path
        self.tables: dict[str, tuple[set[str], list[str]]] = {}

    def check(self, name: str, row: dict[str, Any]) -> None:
        table = TABLES[name][0]
        if table not in self.tables:
            info = self.conn.execute(f"PRAGMA table_info({table})").fetchall()
            required = sorted(col[1] for col in info if col[3] and col[4] is None and not col[5] and col[1] != "run_id")
            self.tables[table] = ({col[1] for col in info}, required)
        known, required = self.tables[table]
        unknown = set(row) - known
        if unknown:
            raise BundleError(f"{self.path} is damaged ({name} has an unknown field {sorted(unknown)[0][:40]!r}); "
                              f"{AGAIN}.")
        absent = [k for k in required if row.get(k) is None]
        if absent:
            raise BundleError(f"{self.path} is damaged ({name} lacks the required field {absent[0]!r}); {AGAIN}.")


def _check_judgments(judgments: list[dict[str, Any]], path: Path) -> None:
    ids = [j.get("id") for j in judgments]
    if not all(isinstance(i, int) for i in ids) or len(set(ids)) != len(ids):
        raise BundleError(f"{path} is damaged (its judgments lack distinct ids); {AGAIN}.")
    seen: set[Any] = set()
    for judgment in sorted(judgments, key=lambda j: int(j["id"])):
        if judgment.get("undoes") is not None and judgment["undoes"] not in seen:
            raise BundleError(f"{path} is damaged (judgment {judgment.get('id')} undoes a judgment the bundle "
                              f"lacks); {AGAIN}.")
        seen.add(judgment.get("id"))


def _check_step(step: dict[str, Any], idxs: set[Any], frames: dict[str, FrameInfo], path: Path) -> None:
    """Index unique, frames present, and what the step says changed lies inside the frame it shows after."""
    idx = step.get("idx")
    if idx in idxs:
        raise BundleError(f"{path} is damaged (two steps share an index); {AGAIN}.")
    idxs.add(idx)
    for key in STEP_FRAMES:
        sha = step.get(key)
        if sha is not None and sha not in frames:
            raise BundleError(f"{path} is damaged (step {str(idx)[:20]} shows frame {str(sha)[:12]}, "
                              f"which the bundle lacks); {AGAIN}.")
    after = frames.get(step.get("frame_after") or "")
    bbox = step.get("changed_bbox")
    if after is not None and isinstance(bbox, str) and bbox:
        try:
            box = json.loads(bbox)
        except ValueError:
            box = None
        fits = isinstance(box, list) and len(box) == 4 and all(isinstance(v, int) for v in box) \
            and 0 <= box[0] <= box[2] <= after.width and 0 <= box[1] <= box[3] <= after.height
        if not fits:
            raise BundleError(f"{path} is damaged (step {str(idx)[:20]} marks a change outside its "
                              f"{after.width}×{after.height} window); {AGAIN}.")


def _insert(store: TrajectoryStore, zf: zipfile.ZipFile, path: Path, checked: _Checked, files: FilmFiles) -> int:
    """Insert in one transaction, reading the members again: their checksums are checked anew as they end."""
    conn = store.conn
    reader = MemberReader(zf, path, _limits())
    rows = _RowReader(reader, checked.infos, checked.digests, path)
    columns = _Columns(conn, path)
    for sha, frame in checked.frames.items():
        if conn.execute("SELECT 1 FROM frames WHERE sha256 = ?", [sha]).fetchone() is None:
            data = reader.read(checked.infos[frame.member], MAX_FRAME_BYTES, frame.member_sha256)
            conn.execute("INSERT INTO frames (sha256, width, height, format, data) VALUES (?, ?, ?, ?, ?)",
                         [sha, frame.width, frame.height, FRAME_FORMAT, data])
    inserter = _Inserter(conn)
    run_id = inserter.insert("runs", {k: v for k, v in checked.run.items() if k != "id"})
    judgment_ids: dict[Any, int] = {}
    for row in checked.judgments:
        new = {k: v for k, v in row.items() if k != "id"}
        new["run_id"] = run_id
        if new.get("undoes") is not None:
            new["undoes"] = judgment_ids[new["undoes"]]
        judgment_ids[row.get("id")] = inserter.insert("judgments", new)
    for name in ("steps.jsonl", "findings.json", "logs.jsonl", "llm_calls.jsonl", "patches.json", *COVERAGE_MEMBERS):
        if name in COVERAGE_MEMBERS and name not in checked.infos:
            continue
        table = TABLES[name][0]
        for row in rows.rows(name):
            columns.check(name, row)  # again: the file could have changed since it was checked
            new = {k: v for k, v in row.items() if k != "id"}
            new["run_id"] = run_id
            if table == "patches" and new.get("retest_run") is not None:
                # Only this run travels with the bundle; another run's id would name a stranger here.
                new["retest_run"] = run_id if new["retest_run"] == checked.run.get("id") else None
            inserter.insert(table, new)
    for film in checked.films:
        row = files.write(film, run_id, reader, checked.digests)
        row["run_id"] = run_id
        inserter.insert("films", row)
    return run_id


@dataclass
class _Inserter:
    """INSERTs with column names already checked against the table (see :class:`_Columns`)."""

    conn: sqlite3.Connection
    sql: dict[tuple[str, tuple[str, ...]], str] = field(default_factory=dict)

    def insert(self, table: str, row: dict[str, Any]) -> int:
        cols = tuple(row)
        sql = self.sql.get((table, cols))
        if sql is None:
            sql = self.sql[(table, cols)] = \
                f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})"
        cur = self.conn.execute(sql, [row[c] for c in cols])
        return int(cur.lastrowid or 0)
