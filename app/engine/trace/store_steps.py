"""Steps, their pictures and findings, and the lines each step ran: the step tables of the store.

Frames are content-addressed (sha256 of the size and the visible pixels, see
:func:`frame_digest`) and stored once as PNG, so an imported frame can be
checked against its address.  A step and its findings commit together.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping

import numpy as np
from PIL import Image

from app.engine.errors import StoreError
from app.engine.trace import coverage as coverage_sql
from app.engine.trace.coverage import FileCoverage
from app.engine.trace.store_base import StoreCore

PNG_COMPRESS_LEVEL = 1
"""Fast PNG: frames are written inside the step loop (see benchmark/engine_speed.py)."""


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


class StepsRepository(StoreCore):
    """Frames, steps, findings and coverage."""

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

    def step_times(self, run_id: int) -> list[tuple[int, float, float, bool]]:
        """Every step's (idx, started_at, ended_at, has findings), in order: the marks of a time axis."""
        return [(int(i), float(a), float(b), bool(f)) for i, a, b, f in self.conn.execute(
            "SELECT idx, started_at, ended_at, findings IS NOT NULL FROM steps WHERE run_id = ? ORDER BY idx",
            [run_id])]
