"""How near a forked branch came to making the program's own equality tests true: a branch distance.

Search-based testing steers toward a branch not yet taken by how far its
condition was from holding (Korel's *branch distance*: ``|a - b|`` for
``a == b``).  Here it steers the survival search toward what a game's code
waits for: ``head == food`` is false on every frame until the snake eats, and
lines run and pictures shown cannot tell the plan that turned toward the food
from one that turned away; the distance can.

Only the program's own files are read, and only equality tests (``==``,
``!=``) whose two sides are *variables*: names, attributes, subscripts by a
name or a constant, or tuples of those.  A side that is a literal, an
upper-case name or attribute (``K_UP``, ``WIDTH``), an attribute of a module
(``pygame.K_r``: seen when the test runs), or a call is left out: ``event.key == K_UP`` compares an input with a constant, and
nothing is evaluated that could run the program's code beyond reading values
(an attribute may still be a property: a branch is a throw-away fork, and any
error is ignored).  The sides are evaluated when the test's line starts, in
the frame that runs it.

Distances: numbers ``|a - b|``; sequences of up to 4 numbers, and objects with
numeric ``x`` and ``y`` (a vector, a rectangle), the sum over the parts.
Anything else (text, flags, objects) has no distance and is left out.

Parsing happens only in a forked branch (one thread: CPython 3.11's parser is
not safe in two threads at once), once per file per branch.
"""

from __future__ import annotations

import ast
import math
from types import CodeType, FrameType, ModuleType
from typing import Any, Optional

Test = tuple[int, CodeType, CodeType, frozenset]
"""An equality test of a file: its column, its two sides compiled for ``eval``, the names they start from."""

MAX_SITES = 2000
"""Equality tests read per file at most."""
MAX_BYTES = 4 << 20
"""Files larger than this are not read."""
SIDE_FILE = "<playcoder-near>"
"""The file name the sides are compiled under: not the program's, so the branch's tracer does not trace (and
measure) its own evaluations."""

_FILES: dict[str, dict[int, list[Test]]] = {}


def _upper(name: str) -> bool:
    return name.isupper() or name in ("None", "True", "False")


def _variable(node: ast.expr) -> bool:
    """A side that names a value of the program's state (no literal, constant, call or operator)."""
    if isinstance(node, ast.Name):
        return not _upper(node.id)
    if isinstance(node, ast.Attribute):
        return not _upper(node.attr) and _variable(node.value)
    if isinstance(node, ast.Subscript):
        index = node.slice
        return _variable(node.value) and (isinstance(index, ast.Constant) and isinstance(index.value, int)
                                          or isinstance(index, ast.Name) and not _upper(index.id))
    if isinstance(node, (ast.Tuple, ast.List)):
        return 0 < len(node.elts) <= 4 and all(_variable(e) for e in node.elts)
    return False


def _roots(node: ast.expr) -> frozenset[str]:
    """The names a side starts from (``event`` of ``event.key``, ``pygame`` of ``pygame.K_r``)."""
    return frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))


def sites(filename: str) -> dict[int, list[Test]]:
    """The equality tests of one file by line: (column, left side, right side) compiled for ``eval``."""
    table = _FILES.get(filename)
    if table is not None:
        return table
    table = _FILES[filename] = {}
    try:
        with open(filename, "rb") as fh:
            source = fh.read(MAX_BYTES + 1)
        if len(source) > MAX_BYTES:
            return table
        tree = ast.parse(source, filename)
    except (OSError, SyntaxError, ValueError):
        return table
    count = 0
    for node in ast.walk(tree):
        if count >= MAX_SITES:
            break
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1
                and isinstance(node.ops[0], (ast.Eq, ast.NotEq))):
            continue
        left, right = node.left, node.comparators[0]
        if not (_variable(left) and _variable(right)):
            continue
        try:
            sides = [compile(ast.Expression(side), SIDE_FILE, "eval") for side in (left, right)]
        except (SyntaxError, ValueError, TypeError):
            continue
        roots = _roots(left) | _roots(right)
        table.setdefault(node.lineno, []).append((node.col_offset, sides[0], sides[1], roots))
        count += 1
    return table


def _number(value: Any) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def distance(a: Any, b: Any) -> Optional[float]:
    """How far ``a == b`` is from holding; None where there is no measure (text, flags, objects)."""
    x, y = _number(a), _number(b)
    if x is not None and y is not None:
        return abs(x - y)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if not 0 < len(a) == len(b) <= 4:
            return None
        total = 0.0
        for p, q in zip(a, b):
            part = distance(p, q)
            if part is None:
                return None
            total += part
        return total
    try:
        ax, ay, bx, by = (_number(getattr(o, n, None)) for o in (a, b) for n in ("x", "y"))
    except Exception:
        return None
    if None in (ax, ay, bx, by):
        return None
    return abs(ax - bx) + abs(ay - by)  # type: ignore[operator]


class Nearest:
    """The least distance each equality test of the program's files reached while the branch ran, and its last
    (where the branch left it: a plan that ends near the food is followed only in part, then looked at again)."""

    def __init__(self) -> None:
        self.least: dict[tuple[str, int, int], float] = {}
        self.last: dict[tuple[str, int, int], float] = {}
        self.busy = False

    def line(self, frame: FrameType, table: dict[int, list[Test]]) -> None:
        """Called at a line event of an own file whose tests are ``table``."""
        tests = table.get(frame.f_lineno)
        if not tests or self.busy:
            return
        self.busy = True
        try:
            self._measure(frame, tests)
        finally:
            self.busy = False

    def _measure(self, frame: FrameType, tests: list[Test]) -> None:
        filename = frame.f_code.co_filename
        for column, left, right, roots in tests:
            try:
                if any(isinstance(frame.f_locals.get(n, frame.f_globals.get(n)), ModuleType) for n in roots):
                    continue  # pygame.K_r, a module's constant: an input compared with a key, nothing to approach
                d = distance(eval(left, frame.f_globals, frame.f_locals),  # noqa: S307 - reads values only
                             eval(right, frame.f_globals, frame.f_locals))
            except Exception:
                continue
            if d is None:
                continue
            key = (filename, frame.f_lineno, column)
            known = self.least.get(key)
            if known is None or d < known:
                self.least[key] = d
            self.last[key] = d
