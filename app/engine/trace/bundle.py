"""Trace bundles: one run as a self-contained zip that another database can import.

A bundle holds the run's rows exactly as stored (JSON-text columns stay text, so
a round trip is lossless), every frame its steps show (before, after and, for
differential play, the reference's) and every frame a finding holds as evidence (a
divergence's candidate and reference) as ``frames/<sha256>.png``
(the frame's content address, not the file hash), the run's film as
``films/<seq>.mkv`` and ``.idx`` (:mod:`app.engine.trace.bundle_films`) and a ``manifest.json`` that
names the format, the schema the rows follow, row counts and the sha256 of every
other member.  Import (:mod:`app.engine.trace.bundle_import`) trusts nothing:
it checks everything, frames' pixels against their addresses too, before it
writes, then inserts in one transaction under fresh ids.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import sqlite3
import zipfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from PIL import Image

from app import __version__
from app.engine.trace.atomic_file import atomic_path
from app.engine.trace.bundle_format import (
    BUNDLE_FORMAT, BUNDLE_VERSION, COUNT_KEYS, FRAME_FORMAT, MANIFEST, STEP_FRAMES, TABLES, BundleError,
)
from app.engine.trace.bundle_films import exportable, write_films
from app.engine.trace.bundle_import import import_bundle
from app.engine.trace.store import TrajectoryStore, image_digest

__all__ = ["BundleError", "export_bundle", "import_bundle"]

_SECRET_WORDS = ("api_key", "apikey", "secret", "password")
_SHA_RE = re.compile(r"\b[0-9a-f]{64}\b")


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
        rows["films.json"] = exportable(store, rows["films.json"])
        stored = sorted({s[k] for s in rows["steps.jsonl"] for k in STEP_FRAMES if s.get(k)}
                        | _evidence_frames(store.conn, rows["findings.json"]))
        addresses = _content_addresses(store.conn, stored)
        _readdress(rows, addresses)
        shas = {new: old for old, new in addresses.items()}  # content address -> a stored frame with that picture
        members: dict[str, bytes] = {"run.json": _dump(run)}
        for name, table_rows in rows.items():
            members[name] = _dump_lines(table_rows) if name.endswith(".jsonl") else _dump(table_rows)
        hashes = {name: _sha256(data) for name, data in members.items()}
        with atomic_path(path, BundleError) as tmp, open(tmp, "xb") as fh, zipfile.ZipFile(fh, "w") as zf:
            for name, data in members.items():
                zf.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
            for sha in sorted(shas):
                data = _frame_png(store.conn, shas[sha])
                name = f"frames/{sha}.{FRAME_FORMAT}"
                hashes[name] = _sha256(data)
                zf.writestr(name, data, compress_type=zipfile.ZIP_STORED)  # PNG is compressed already
            write_films(store, rows["films.json"], zf, hashes)
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


def _content_addresses(conn: sqlite3.Connection, shas: list[str]) -> dict[str, str]:
    """Each stored frame's address as import checks it, from its pixels.

    Frames an older PlayCoder stored were addressed with the capture's X byte, which
    a PNG cannot keep; they travel under their current address, so their bundle imports."""
    out: dict[str, str] = {}
    for sha in shas:
        try:
            with Image.open(io.BytesIO(_frame_png(conn, sha))) as image:
                out[sha] = image_digest(image)
        except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
            raise BundleError(f"Frame {sha[:12]} in the database does not decode ({exc}); restore a backup of it.") \
                from exc
    return out


def _readdress(rows: dict[str, list[dict[str, Any]]], addresses: dict[str, str]) -> None:
    """Point steps, recorded model requests and findings' evidence at the frames' content addresses."""
    moved = {old: new for old, new in addresses.items() if old != new}
    if not moved:
        return
    for step in rows["steps.jsonl"]:
        for key in STEP_FRAMES:
            if step.get(key) in moved:
                step[key] = moved[step[key]]
    for table, column in (("llm_calls.jsonl", "request"), ("findings.json", "evidence")):
        for row in rows[table]:
            if isinstance(row.get(column), str):
                row[column] = _SHA_RE.sub(lambda m: moved.get(m.group(0), m.group(0)), row[column])


def _evidence_frames(conn: sqlite3.Connection, findings: list[dict[str, Any]]) -> set[str]:
    """Frames a finding holds as evidence (a divergence's candidate and reference frames), when stored."""
    named: set[str] = set()
    for finding in findings:
        if isinstance(finding.get("evidence"), str):
            named.update(_SHA_RE.findall(finding["evidence"]))
    return {sha for sha in named
            if conn.execute("SELECT 1 FROM frames WHERE sha256 = ?", [sha]).fetchone() is not None}


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
