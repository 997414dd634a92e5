"""V8's precise coverage of one script, as lines of the program's file.

``Profiler.takePreciseCoverage`` (block granularity) gives each function's ranges as character offsets with
how often each ran since the last take; ranges nest, and the innermost range holding a position says whether
it ran.  A line counts by its first character that is not a space: it *ran* when the innermost range holding
that character ran, and it is *executable* when any range holds it and it is not only a comment or closing
brackets.  The offsets are those of the source the browser ran: a file a server transforms before serving
is mapped by the text it served (:func:`text_lines`), not by the file it came from.
"""

from __future__ import annotations

from bisect import bisect_right
from pathlib import Path
from typing import Any

MAX_SCRIPT_BYTES = 4 * 1024 * 1024
"""A larger script is not mapped (a bundle of libraries is not the program's own code to cover)."""
_NOT_CODE = ("//", "/*", "*")
_CLOSERS = "})];, "
"""A line of nothing but these closes what an earlier line opened: no code of its own."""


def covered_lines(path: Path, functions: Any) -> tuple[set[int], set[int]] | None:
    """(lines that ran, executable lines) of the file at ``path``; None when it cannot be read or mapped."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_SCRIPT_BYTES:
            return None
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text_lines(text, functions)


def text_lines(text: str, functions: Any) -> tuple[set[int], set[int]] | None:
    """(lines that ran, executable lines) of a script's source ``text`` (as the browser ran it)."""
    if len(text) > MAX_SCRIPT_BYTES:
        return None
    ranges = _ranges(functions)
    if not ranges:
        return None
    starts = sorted(ranges, key=lambda r: (r[0], -r[1]))
    keys = [r[0] for r in starts]
    ran: set[int] = set()
    executable: set[int] = set()
    offset = 0
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip()
        at = offset + len(line) - len(stripped)
        offset += len(line) + 1
        if not stripped or stripped.startswith(_NOT_CODE) or not stripped.strip(_CLOSERS):
            continue
        count = _innermost(starts, keys, at)
        if count is None:
            continue
        executable.add(number)
        if count > 0:
            ran.add(number)
    return ran, executable


def _ranges(functions: Any) -> list[tuple[int, int, int]]:
    out: list[tuple[int, int, int]] = []
    if not isinstance(functions, list):
        return out
    for function in functions:
        for r in (function.get("ranges") or []) if isinstance(function, dict) else ():
            try:
                out.append((int(r["startOffset"]), int(r["endOffset"]), int(r["count"])))
            except (KeyError, TypeError, ValueError):
                continue
    return out


def _innermost(starts: list[tuple[int, int, int]], keys: list[int], at: int) -> int | None:
    """The count of the smallest range holding offset ``at`` (None: no range holds it)."""
    best: tuple[int, int] | None = None
    for i in range(bisect_right(keys, at) - 1, -1, -1):
        start, end, count = starts[i]
        if start <= at < end and (best is None or end - start < best[0]):
            best = (end - start, count)
    return best[1] if best is not None else None
