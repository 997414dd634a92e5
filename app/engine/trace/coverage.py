"""Line coverage of a run: which lines of the program's own files each step ran.

The program tells the engine from inside (:mod:`app.engine.play.inside`) which
lines ran for the first time in that program start; the session records them
with the step that ran them.  Two tables, created by the store's migration 7
and written only through :class:`~app.engine.trace.store.TrajectoryStore`:

* ``coverage(run_id, step, file, lines)``: the lines the run reached first at
  step ``step`` (-1: while the program started, before the first step); a
  line run again after a restart is not recorded again;
* ``coverage_files(run_id, file, lines)``: each own file's executable lines,
  the run's denominator (what "lines not reached" are counted from).

Both travel in trace bundles (``coverage.jsonl``, ``coverage_files.json``; optional members).

``lines`` is compact text: sorted runs of line numbers, ``"1-5,8,10-12"``.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Iterable, Mapping

START_STEP = -1
"""The step the start-up's lines are recorded with (the program's module code, its first window)."""


def create_tables(conn: sqlite3.Connection) -> None:
    conn.execute("""
        CREATE TABLE IF NOT EXISTS coverage (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            step INTEGER NOT NULL,
            file TEXT NOT NULL,
            lines TEXT NOT NULL
        )""")
    conn.execute("CREATE INDEX IF NOT EXISTS coverage_run ON coverage(run_id, step)")
    conn.execute("""
        CREATE TABLE IF NOT EXISTS coverage_files (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            file TEXT NOT NULL,
            lines TEXT NOT NULL,
            UNIQUE (run_id, file)
        )""")


def compact(lines: Iterable[int]) -> str:
    """Line numbers as sorted ranges: ``[1, 2, 3, 5]`` -> ``"1-3,5"``."""
    parts: list[str] = []
    start = prev = None
    for n in sorted(set(lines)):
        if prev is not None and n == prev + 1:
            prev = n
            continue
        if start is not None:
            parts.append(f"{start}-{prev}" if prev != start else str(start))
        start = prev = n
    if start is not None:
        parts.append(f"{start}-{prev}" if prev != start else str(start))
    return ",".join(parts)


def expand(text: str) -> list[int]:
    """The inverse of :func:`compact` (an unreadable part is skipped)."""
    out: list[int] = []
    for part in filter(None, (text or "").split(",")):
        try:
            first, _, last = part.partition("-")
            out.extend(range(int(first), int(last or first) + 1))
        except ValueError:
            continue
    return out


def add(conn: sqlite3.Connection, run_id: int, step: int, by_file: dict[str, list[int]]) -> None:
    conn.executemany("INSERT INTO coverage (run_id, step, file, lines) VALUES (?, ?, ?, ?)",
                     [(run_id, step, file, compact(lines)) for file, lines in sorted(by_file.items()) if lines])


def set_files(conn: sqlite3.Connection, run_id: int, by_file: Mapping[str, Iterable[int]]) -> None:
    conn.executemany("INSERT OR REPLACE INTO coverage_files (run_id, file, lines) VALUES (?, ?, ?)",
                     [(run_id, file, compact(lines)) for file, lines in sorted(by_file.items())])


def of_step(conn: sqlite3.Connection, run_id: int, step: int) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for file, lines in conn.execute("SELECT file, lines FROM coverage WHERE run_id = ? AND step = ?", [run_id, step]):
        out.setdefault(file, []).extend(expand(lines))
    return {file: sorted(set(lines)) for file, lines in sorted(out.items())}


@dataclass(frozen=True)
class FileCoverage:
    """One own file of a run: its executable lines and those the run reached."""

    file: str
    total: tuple[int, ...]
    hit: tuple[int, ...]

    @property
    def missed(self) -> tuple[int, ...]:
        reached = set(self.hit)
        return tuple(n for n in self.total if n not in reached)


def of_run(conn: sqlite3.Connection, run_id: int) -> list[FileCoverage]:
    """Each own file with what the whole run reached (empty: the run had no coverage, e.g. not Python)."""
    hit: dict[str, set[int]] = {}
    for file, lines in conn.execute("SELECT file, lines FROM coverage WHERE run_id = ?", [run_id]):
        hit.setdefault(file, set()).update(expand(lines))
    out = []
    for file, lines in conn.execute("SELECT file, lines FROM coverage_files WHERE run_id = ? ORDER BY file",
                                    [run_id]):
        total = tuple(expand(lines))
        out.append(FileCoverage(file, total, tuple(sorted(hit.get(file, set()) & set(total)))))
    return out


def by_step(conn: sqlite3.Connection, run_id: int) -> dict[int, dict[str, list[int]]]:
    """Every step's first-reached lines per file, in one read (the workbench's Code tab walks a run with it)."""
    out: dict[int, dict[str, set[int]]] = {}
    for step, file, lines in conn.execute("SELECT step, file, lines FROM coverage WHERE run_id = ? ORDER BY step",
                                          [run_id]):
        out.setdefault(int(step), {}).setdefault(file, set()).update(expand(lines))
    return {step: {f: sorted(ls) for f, ls in sorted(files.items())} for step, files in out.items()}


def lines_by_step(conn: sqlite3.Connection, run_id: int) -> dict[int, int]:
    """How many lines each step ran first (START_STEP: the start-up), for the steps that ran any."""
    out: dict[int, int] = {}
    for step, lines in conn.execute("SELECT step, lines FROM coverage WHERE run_id = ? ORDER BY step", [run_id]):
        out[int(step)] = out.get(int(step), 0) + len(expand(lines))
    return out
