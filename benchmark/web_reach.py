"""Was a web mutant's line run?  Read from the run's JavaScript coverage, never from a tester's verdict.

The engine records, per run, which lines of the page's own scripts ran (the ``coverage`` table of the
run's database, :mod:`app.engine.trace.coverage`; for a web page from the DevTools protocol's precise
coverage).  A mutant is *reached* in a run when its line is among them.  A file is matched by its path
in the program folder: a coverage entry named by URL (``http://127.0.0.1:PORT/js/app.js?body=1``) or by
path counts for ``js/app.js`` when its path ends with it.

A TypeScript mutant runs as the JavaScript ``tsc`` made of it: :func:`ts_to_js_lines` reads the build's
source map and says which generated lines came from the mutated line, and those are looked for.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from urllib.parse import urlsplit

from app.engine.trace.coverage import expand

B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}

Lines = dict[str, set[int]]
"""Lines by file (a path in the program folder, or the name the coverage gives)."""


def run_coverage(db: Path, run_id: int | None) -> Lines | None:
    """The lines the run ran, by file; None when the run recorded no coverage at all (it cannot tell)."""
    if run_id is None:
        return None
    try:
        with sqlite3.connect(db, timeout=30) as conn:
            rows = conn.execute("SELECT file, lines FROM coverage WHERE run_id = ?", (run_id,)).fetchall()
    except sqlite3.Error:
        return None
    if not rows:
        return None
    out: Lines = {}
    for file, lines in rows:
        out.setdefault(str(file), set()).update(expand(str(lines)))
    return out


def _path_of(name: str) -> str:
    """A coverage file name as a path: a URL's path without its query, no leading slash."""
    if "://" in name:
        name = urlsplit(name).path
    return name.split("?", 1)[0].lstrip("/")


def lines_of(coverage: Lines, rel: str) -> set[int]:
    """The lines that ran of the program file ``rel`` (every coverage entry that names it)."""
    rel = rel.lstrip("/")
    out: set[int] = set()
    for name, lines in coverage.items():
        path = _path_of(name)
        if path == rel or path.endswith("/" + rel):
            out |= lines
    return out


def reached(coverage: Lines | None, wanted: dict[str, list[int]]) -> bool | None:
    """Did any wanted line run?  None when there is no coverage to tell."""
    if coverage is None:
        return None
    return any(set(lines) & lines_of(coverage, rel) for rel, lines in wanted.items())


def _vlq(segment: str) -> list[int]:
    values, shift, value = [], 0, 0
    for ch in segment:
        digit = B64[ch]
        value += (digit & 31) << shift
        if digit & 32:
            shift += 5
            continue
        values.append(-(value >> 1) if value & 1 else value >> 1)
        shift = value = 0
    return values


def source_map_lines(map_text: str) -> dict[tuple[str, int], set[int]]:
    """(source path as the map names it, 1-based source line) -> the 1-based generated lines made from it."""
    data = json.loads(map_text)
    sources = [str(s) for s in data.get("sources", [])]
    out: dict[tuple[str, int], set[int]] = {}
    src = src_line = 0
    for gen_line, group in enumerate(str(data.get("mappings", "")).split(";"), start=1):
        for segment in filter(None, group.split(",")):
            fields = _vlq(segment)
            if len(fields) < 4:
                continue
            src += fields[1]
            src_line += fields[2]
            if 0 <= src < len(sources):
                out.setdefault((sources[src], src_line + 1), set()).add(gen_line)
    return out


def ts_to_js_lines(build: Path, served_dir: str, ts_file: str, line: int) -> dict[str, list[int]]:
    """The generated lines of ``ts_file``'s ``line``, by served path (``dist/calc.js``), from the maps under
    ``build`` (the folder tsc wrote, served as ``served_dir``)."""
    wanted: dict[str, list[int]] = {}
    for map_path in sorted(build.rglob("*.js.map")):
        js_rel = f"{served_dir.rstrip('/')}/{map_path.relative_to(build).as_posix()[:-len('.map')]}"
        for (source, src_line), gen in source_map_lines(map_path.read_text(encoding="utf-8")).items():
            if src_line == line and Path(source).name == Path(ts_file).name:
                wanted.setdefault(js_rel, []).extend(sorted(gen))
    return wanted
