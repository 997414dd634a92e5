"""A run's film segments, its program's output and its model calls: the media tables of the store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.engine.trace.store_base import StoreCore, _pk

MAX_LOG_LINE_CHARS = 64 * 1024
"""A target's output line is kept up to this long (a program can print megabytes without a newline)."""


class MediaRepository(StoreCore):
    """Films, target logs and model calls."""

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


def _log_text(text: str) -> str:
    if len(text) <= MAX_LOG_LINE_CHARS:
        return text
    return f"{text[:MAX_LOG_LINE_CHARS]} … [{len(text) - MAX_LOG_LINE_CHARS} more characters not kept]"
