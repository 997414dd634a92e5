"""Trace bundles: one run as a self-contained zip that another database can import.

A bundle holds the run's rows exactly as stored (JSON-text columns stay text, so
a round trip is lossless), every frame its steps show as ``frames/<sha256>.png``
(the frame's content address, not the file hash) and a ``manifest.json`` that
names the format, the schema the rows follow, row counts and the sha256 of every
other member.  Import trusts nothing: it checks the zip, the member names, the
sizes, every hash and every reference before it writes, then inserts everything
in one transaction under fresh ids, so a bad bundle leaves the database as it was.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import sqlite3
import zipfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from PIL import Image

from app import __version__
from app.engine.trace.atomic_file import atomic_path
from app.engine.errors import StoreError, UserError
from app.engine.trace.store import TrajectoryStore

BUNDLE_FORMAT = "playcoder-bundle"
BUNDLE_VERSION = 1
MANIFEST = "manifest.json"
MAX_UNCOMPRESSED_BYTES = 2 * 1024**3
"""Refuse bundles that would inflate past this (zip-bomb guard)."""
MAX_MEMBERS = 50_000
"""Refuse bundles with more members than this; a 10 000-step run needs about 20 000."""
FRAME_FORMAT = "png"
FRAME_MEMBER_RE = re.compile(r"frames/([0-9a-f]{64})\.png")
AGAIN = "export it again with `playcoder export`"

TABLES: dict[str, tuple[str, str]] = {
    # member name -> (table, "one" | "json" list | "jsonl" lines)
    "run.json": ("runs", "one"),
    "steps.jsonl": ("steps", "jsonl"),
    "findings.json": ("findings", "json"),
    "judgments.json": ("judgments", "json"),
    "logs.jsonl": ("target_logs", "jsonl"),
    "llm_calls.jsonl": ("llm_calls", "jsonl"),
    "patches.json": ("patches", "json"),
}
"""Every row member and the table it holds; only these names and frames/ are accepted."""
COUNT_KEYS = {"steps.jsonl": "steps", "findings.json": "findings", "judgments.json": "judgments",
              "logs.jsonl": "logs", "llm_calls.jsonl": "llm_calls", "patches.json": "patches"}
_SECRET_WORDS = ("api_key", "apikey", "secret", "password")


class BundleError(UserError):
    """The file is not an importable trace bundle; the sentence says which check failed."""


# -- export ------------------------------------------------------------------------
def export_bundle(store: TrajectoryStore, run_id: int, path: str | Path) -> Path:
    """Write run ``run_id`` as a zip trace bundle at ``path`` (replaced atomically) and return it."""
    path = Path(path)
    with _read_snapshot(store.conn):
        run = store.run(run_id)
        run["config"] = _strip_secrets(run.get("config"))
        rows = {name: _rows(store.conn, table, run_id) for name, (table, kind) in TABLES.items() if kind != "one"}
        for call in rows["llm_calls.jsonl"]:
            call["request"] = _strip_secrets(call.get("request"))
        shas = sorted({s[k] for s in rows["steps.jsonl"] for k in ("frame_before", "frame_after") if s.get(k)})
        members: dict[str, bytes] = {"run.json": _dump(run)}
        for name, table_rows in rows.items():
            members[name] = _dump_lines(table_rows) if name.endswith(".jsonl") else _dump(table_rows)
        hashes = {name: _sha256(data) for name, data in members.items()}
        with atomic_path(path, BundleError) as tmp, open(tmp, "xb") as fh, zipfile.ZipFile(fh, "w") as zf:
            for name, data in members.items():
                zf.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
            for sha in shas:
                data = _frame_png(store.conn, sha)
                name = f"frames/{sha}.{FRAME_FORMAT}"
                hashes[name] = _sha256(data)
                zf.writestr(name, data, compress_type=zipfile.ZIP_STORED)  # PNG is compressed already
            manifest = {
                "format": BUNDLE_FORMAT, "version": BUNDLE_VERSION, "schema_version": store.schema_version,
                "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "app_version": __version__, "run_id": run_id,
                "counts": {**{COUNT_KEYS[n]: len(r) for n, r in rows.items()}, "frames": len(shas)},
                "members": hashes,
            }
            zf.writestr(MANIFEST, json.dumps(manifest, indent=2), compress_type=zipfile.ZIP_DEFLATED)
    return path


def _rows(conn: sqlite3.Connection, table: str, run_id: int) -> list[dict[str, Any]]:
    cur = conn.execute(f"SELECT * FROM {table} WHERE run_id = ? ORDER BY id", [run_id])
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def _frame_png(conn: sqlite3.Connection, sha: str) -> bytes:
    row = conn.execute("SELECT format, data FROM frames WHERE sha256 = ?", [sha]).fetchone()
    if row is None or row[0] != FRAME_FORMAT:
        raise BundleError(f"Frame {sha[:12]} is missing from the database or not a PNG; restore a backup of it.")
    return bytes(row[1])


def _strip_secrets(text: Any) -> Any:
    """Drop keys that look like credentials from a JSON text; other values pass unchanged."""
    if not isinstance(text, str):
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return text
    cleaned, removed = _without_secrets(value)
    return json.dumps(cleaned) if removed else text


def _without_secrets(value: Any) -> tuple[Any, bool]:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        removed = False
        for key, item in value.items():
            if _is_secret_key(str(key)):
                removed = True
                continue
            out[key], sub = _without_secrets(item)
            removed = removed or sub
        return out, removed
    if isinstance(value, list):
        pairs = [_without_secrets(item) for item in value]
        return [p[0] for p in pairs], any(p[1] for p in pairs)
    return value, False


def _is_secret_key(key: str) -> bool:
    """``api_key``, ``OPENAI_API_KEY``, ``client_secret``, ``auth_token``, ``token`` — not ``max_tokens``."""
    low = key.lower().replace("-", "_")
    return any(word in low for word in _SECRET_WORDS) or "token" in low.split("_")


def _dump(value: Any) -> bytes:
    return json.dumps(value, indent=1, ensure_ascii=False).encode()


def _dump_lines(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class _read_snapshot:
    """A deferred read transaction, so the export is one consistent view while a run writes."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.outer = False

    def __enter__(self) -> None:
        self.outer = not self.conn.in_transaction
        if self.outer:
            self.conn.execute("BEGIN")

    def __exit__(self, *exc: Any) -> None:
        if self.outer and self.conn.in_transaction:
            self.conn.execute("COMMIT")


# -- import ------------------------------------------------------------------------
@dataclass
class _Checked:
    """A bundle that passed every check, ready to insert."""

    run: dict[str, Any]
    tables: dict[str, list[dict[str, Any]]]
    frames: dict[str, tuple[int, int, str, str]]  # sha -> (width, height, member name, member sha256)


def import_bundle(store: TrajectoryStore, path: str | Path) -> int:
    """Import a trace bundle as a new run and return its id; all or nothing."""
    path = Path(path)
    with _open_zip(path) as zf:
        checked = _verify(store, zf, path)
        try:
            with store.transaction():
                return _insert(store, zf, path, checked)
        except sqlite3.IntegrityError as exc:
            raise BundleError(f"{path} has rows this database refuses ({_why(exc)}); {AGAIN}.") from exc
        except sqlite3.OperationalError as exc:
            raise StoreError(f"{store.path} could not take the import ({_why(exc)}); try again when no run is "
                             "writing to it.") from exc


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
            self.zf = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
            if magic.startswith(b"PK"):
                raise BundleError(f"{self.path} is a damaged or truncated zip file; {AGAIN}.") from exc
            raise BundleError(f"{self.path} is not a PlayCoder trace bundle (it is not a zip file); {AGAIN}.") from exc
        return self.zf

    def __exit__(self, *exc: Any) -> None:
        if self.zf is not None:
            self.zf.close()


def _verify(store: TrajectoryStore, zf: zipfile.ZipFile, path: Path) -> _Checked:
    infos = _check_members(zf, path)
    manifest = _json(_read(zf, infos[MANIFEST], path), MANIFEST, path)
    _check_manifest(store, manifest, path)
    hashes: dict[str, Any] = manifest["members"]
    listed, present = set(hashes), set(infos) - {MANIFEST}
    if listed != present:
        name = sorted(listed ^ present)[0]
        where = "missing from the zip" if name in listed else "not listed in the manifest"
        raise BundleError(f"{path} is incomplete ({_short(name)} is {where}); {AGAIN}.")
    missing_tables = [n for n in TABLES if n not in present]
    if missing_tables:
        raise BundleError(f"{path} is incomplete ({missing_tables[0]} is missing); {AGAIN}.")
    frames: dict[str, tuple[int, int, str, str]] = {}
    tables: dict[str, list[dict[str, Any]]] = {}
    for name, info in sorted(infos.items()):
        if name == MANIFEST:
            continue
        data = _read(zf, info, path)
        if not isinstance(hashes[name], str) or _sha256(data) != hashes[name].lower():
            raise BundleError(f"{path} is damaged ({_short(name)} does not match its checksum); {AGAIN}.")
        match = FRAME_MEMBER_RE.fullmatch(name)
        if match:
            frames[match.group(1)] = (*_png_size(data, name, path), name, hashes[name].lower())
        else:
            tables[name] = _parse_rows(data, name, path)
    run = tables.pop("run.json")[0]
    _check_rows(store.conn, run, tables, frames, manifest, path)
    return _Checked(run, tables, frames)


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
        if name != MANIFEST and name not in TABLES and not FRAME_MEMBER_RE.fullmatch(name):
            raise BundleError(f"{path} contains an unexpected member {name[:80]!r}; only bundles written by "
                              "`playcoder export` can be imported.")
        if name in infos:
            raise BundleError(f"{path} contains {_short(name)} twice; {AGAIN}.")
        if info.flag_bits & 0x1:
            raise BundleError(f"{path} is encrypted; {AGAIN} without a password.")
        total += info.file_size
        if total > MAX_UNCOMPRESSED_BYTES:
            raise BundleError(f"{path} would unpack to more than {_size(MAX_UNCOMPRESSED_BYTES)}, "
                              f"which no trace bundle needs; {AGAIN}.")
        infos[name] = info
    return infos


def _read(zf: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> bytes:
    """A member's bytes, never more than it declares (the zip reader also checks the CRC)."""
    try:
        with zf.open(info) as fh:
            data = fh.read(info.file_size + 1)
    except zipfile.BadZipFile as exc:
        raise BundleError(f"{path} is damaged ({_short(info.filename)} fails the zip's own check); {AGAIN}.") from exc
    except (OSError, EOFError, ValueError, NotImplementedError, RuntimeError) as exc:
        raise BundleError(f"{path} is damaged ({_short(info.filename)}: {_why(exc)}); {AGAIN}.") from exc
    if len(data) != info.file_size:
        raise BundleError(f"{path} is damaged ({_short(info.filename)} has the wrong size); {AGAIN}.")
    return data


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


def _png_size(data: bytes, name: str, path: Path) -> tuple[int, int]:
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.format != "PNG":
                raise ValueError("not a PNG")
            return image.size
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise BundleError(f"{path} is damaged ({_short(name)} is not a PNG image); {AGAIN}.") from exc


def _parse_rows(data: bytes, name: str, path: Path) -> list[dict[str, Any]]:
    kind = TABLES[name][1]
    if kind == "jsonl":
        rows = [_json(line, name, path) for line in data.split(b"\n") if line.strip()]
    else:
        value = _json(data, name, path)
        rows = [value] if kind == "one" else value
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise BundleError(f"{path} is damaged ({name} does not hold rows); {AGAIN}.")
    for row in rows:
        bad = [k for k, v in row.items() if not isinstance(v, (str, int, float, type(None)))]
        if bad:
            raise BundleError(f"{path} is damaged ({name} has a nested value in {bad[0][:40]!r}); {AGAIN}.")
    return rows


def _check_rows(conn: sqlite3.Connection, run: dict[str, Any], tables: dict[str, list[dict[str, Any]]],
                frames: dict[str, tuple[int, int, str, str]], manifest: dict[str, Any], path: Path) -> None:
    _check_columns(conn, "runs", [run], "run.json", path)
    for name, rows in tables.items():
        _check_columns(conn, TABLES[name][0], rows, name, path)
        if manifest["counts"].get(COUNT_KEYS[name]) != len(rows):
            raise BundleError(f"{path} is damaged ({name} holds {len(rows)} rows, not the manifest's count); {AGAIN}.")
    if manifest["counts"].get("frames") != len(frames):
        raise BundleError(f"{path} is damaged (its frame count does not match the manifest); {AGAIN}.")
    idxs = [s.get("idx") for s in tables["steps.jsonl"]]
    if len(set(idxs)) != len(idxs):
        raise BundleError(f"{path} is damaged (two steps share an index); {AGAIN}.")
    for step in tables["steps.jsonl"]:
        for key in ("frame_before", "frame_after"):
            sha = step.get(key)
            if sha is not None and sha not in frames:
                raise BundleError(f"{path} is damaged (step {step.get('idx')} shows frame {str(sha)[:12]}, "
                                  f"which the bundle lacks); {AGAIN}.")
    ids = [j.get("id") for j in tables["judgments.json"]]
    if not all(isinstance(i, int) for i in ids) or len(set(ids)) != len(ids):
        raise BundleError(f"{path} is damaged (its judgments lack distinct ids); {AGAIN}.")
    seen: set[Any] = set()
    for judgment in sorted(tables["judgments.json"], key=lambda j: int(j["id"])):
        if judgment.get("undoes") is not None and judgment["undoes"] not in seen:
            raise BundleError(f"{path} is damaged (judgment {judgment.get('id')} undoes a judgment the bundle "
                              f"lacks); {AGAIN}.")
        seen.add(judgment.get("id"))


def _check_columns(conn: sqlite3.Connection, table: str, rows: list[dict[str, Any]], name: str, path: Path) -> None:
    info = conn.execute(f"PRAGMA table_info({table})").fetchall()
    known = {col[1] for col in info}
    required = {col[1] for col in info if col[3] and col[4] is None and not col[5] and col[1] != "run_id"}
    for row in rows:
        unknown = set(row) - known
        if unknown:
            raise BundleError(f"{path} is damaged ({name} has an unknown field {sorted(unknown)[0][:40]!r}); {AGAIN}.")
        absent = sorted(k for k in required if row.get(k) is None)
        if absent:
            raise BundleError(f"{path} is damaged ({name} lacks the required field {absent[0]!r}); {AGAIN}.")


def _insert(store: TrajectoryStore, zf: zipfile.ZipFile, path: Path, checked: _Checked) -> int:
    conn = store.conn
    for sha, (width, height, member, digest) in checked.frames.items():
        if conn.execute("SELECT 1 FROM frames WHERE sha256 = ?", [sha]).fetchone() is None:
            data = _read(zf, zf.getinfo(member), path)
            if _sha256(data) != digest:
                raise BundleError(f"{path} changed while it was being imported; import it again.")
            conn.execute("INSERT INTO frames (sha256, width, height, format, data) VALUES (?, ?, ?, ?, ?)",
                         [sha, width, height, FRAME_FORMAT, data])
    run = {k: v for k, v in checked.run.items() if k != "id"}
    run_id = _insert_row(conn, "runs", run)
    judgment_ids: dict[Any, int] = {}
    for name, rows in checked.tables.items():
        table = TABLES[name][0]
        if table == "judgments":
            rows = sorted(rows, key=lambda j: int(j["id"]))
        for row in rows:
            new = {k: v for k, v in row.items() if k != "id"}
            new["run_id"] = run_id
            if table == "judgments" and new.get("undoes") is not None:
                new["undoes"] = judgment_ids[new["undoes"]]
            if table == "patches" and new.get("retest_run") is not None:
                # Only this run travels with the bundle; another run's id would name a stranger here.
                new["retest_run"] = run_id if new["retest_run"] == checked.run.get("id") else None
            new_id = _insert_row(conn, table, new)
            if table == "judgments":
                judgment_ids[row.get("id")] = new_id
    return run_id


def _insert_row(conn: sqlite3.Connection, table: str, row: dict[str, Any]) -> int:
    """Insert with column names already checked against the table (see _check_columns)."""
    cols = list(row)
    sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})"
    cur = conn.execute(sql, [row[c] for c in cols])
    return int(cur.lastrowid or 0)


def _short(member: str) -> str:
    """A member name fit for a one-line message (names in a manifest are untrusted text)."""
    match = FRAME_MEMBER_RE.fullmatch(member)
    if match:
        return f"frame {match.group(1)[:12]}"
    return member[:80] if member.isprintable() else repr(member[:80])


def _size(n: int) -> str:
    return f"{n / 1024**3:g} GB" if n >= 1024**3 else f"{n / 1024**2:.3g} MB"


def _why(exc: BaseException) -> str:
    text = str(exc).strip().rstrip(".") or type(exc).__name__
    return text.splitlines()[0][:120]

