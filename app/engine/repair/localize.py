"""Fault localisation: which lines of the program to change first.

Three sources, strongest first:

1. traceback locations (a crash or a printed exception) — the deepest frame
   in the program's own files first;
2. spectrum-based localisation for failing unit tests: each test is run
   under ``sys.settrace`` (in the sandbox, through a tiny pytest plugin) and
   lines get the Ochiai score  failed(l) / sqrt(total_failed * (failed(l) + passed(l)));
3. for findings without a location (freeze, no response, blank render), a
   static guess from the kind of failure: loops for a freeze, input
   handling for no response, drawing for a blank window.
"""

from __future__ import annotations

import ast
import json
import math
import re
import sys
from dataclasses import dataclass
from typing import Iterable

from app import pysyntax
from app.engine.repair.sandbox import Executor, Limits, Workspace

TRACE_LINE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)'
                        r'|^(?P<file2>[^\s:"]+\.py):(?P<line2>\d+): in (?P<func2>\S+)')
"""A CPython traceback frame, or pytest's short form ``file.py:12: in func``."""
EXCEPTION_LINE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit|Warning))(: (?P<msg>.*))?$")
TESTED_FACTOR = 0.6
SPECTRA_FILE = ".playcoder-spectra.json"
SPECTRA_LIMITS = Limits(wall_s=120.0, cpu_s=120, memory_mb=2048)
KIND_WORDS = {
    "no-response": ("event", "key", "bind", "press", "click", "command", "connect", "handler", "input", "on_"),
    "freeze": ("while", "loop", "wait", "sleep", "for "),
    "blank": ("draw", "render", "flip", "update", "paint", "display", "blit", "fill", "show"),
}


@dataclass(frozen=True)
class Location:
    path: str
    line: int
    score: float
    why: str


@dataclass(frozen=True)
class TraceFrame:
    path: str
    line: int
    func: str


def parse_traceback(lines: Iterable[str], workspace: Workspace) -> tuple[list[TraceFrame], str, str]:
    """Frames in the program's files (outermost first), and the exception type and message."""
    frames: list[TraceFrame] = []
    exc_type, exc_msg = "", ""
    known = set(workspace.files((".py",)))
    for raw in lines:
        for text in str(raw).splitlines():
            m = TRACE_LINE.search(text.strip())
            if m:
                file, line, func = (m.group("file"), m.group("line"), m.group("func")) if m.group("file") else \
                    (m.group("file2"), m.group("line2"), m.group("func2"))
                rel = _to_relative(file, workspace, known)
                if rel is not None:
                    frames.append(TraceFrame(rel, int(line), func))
                continue
            e = EXCEPTION_LINE.match(text.strip())
            if e:
                exc_type, exc_msg = e.group("type").split(".")[-1], (e.group("msg") or "")
    return frames, exc_type, exc_msg


def _to_relative(path: str, workspace: Workspace, known: set[str]) -> str | None:
    norm = path.replace("\\", "/")
    root = workspace.root.as_posix() + "/"
    if norm.startswith(root) and norm[len(root):] in known:
        return norm[len(root):]
    if norm in known:
        return norm
    # the run may have happened in another copy of the same program: match the trailing path
    for rel in known:
        if norm.endswith("/" + rel):
            return rel
    return None


def traceback_locations(frames: list[TraceFrame]) -> list[Location]:
    out: list[Location] = []
    for depth, frame in enumerate(reversed(frames)):
        out.append(Location(frame.path, frame.line, 1.0 - 0.1 * depth, f"traceback frame in {frame.func}()"))
    return out


# -- spectra ---------------------------------------------------------------------
_PLUGIN = r'''
import json, os, sys, threading
ROOT = os.path.realpath(os.getcwd())
_lines = {}
_results = {}
def _tracer(frame, event, arg):
    f = frame.f_code.co_filename
    if not f.startswith(ROOT) or os.path.basename(f).startswith(("test_", "_playcoder")):
        return None
    if event == "line":
        _current.add((os.path.relpath(f, ROOT), frame.f_lineno))
    return _tracer
_current = set()
def pytest_runtest_call(item):
    _current.clear()
    sys.settrace(_tracer)
    threading.settrace(_tracer)
def pytest_runtest_teardown(item):
    sys.settrace(None)
    threading.settrace(None)
    _lines[item.nodeid] = sorted(_current)
    _current.clear()
def pytest_runtest_logreport(report):
    if report.when == "call" or report.failed:
        _results[report.nodeid] = _results.get(report.nodeid, "passed") if report.passed else "failed"
def pytest_sessionfinish(session):
    data = {k: {"outcome": _results.get(k, "passed"), "lines": v} for k, v in _lines.items()}
    with open(".playcoder-spectra.json", "w") as fh:
        json.dump(data, fh)
'''


def spectrum_locations(executor: Executor, workspace: Workspace) -> list[Location]:
    """Ochiai-ranked lines from per-test line coverage; empty when no test fails or tracing fails."""
    with executor.copy_of(workspace) as copy:
        copy.write_text("_playcoder_spectra.py", _PLUGIN)
        res = executor.run(copy, [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                                  "_playcoder_spectra", "-o", "addopts=", "-o", "timeout=0"], limits=SPECTRA_LIMITS)
        path = copy.root / SPECTRA_FILE
        if res.limit or not path.is_file():
            return []
        data = json.loads(path.read_text(encoding="utf-8"))
    failed_total = sum(1 for v in data.values() if v["outcome"] == "failed")
    if not failed_total:
        return []
    counts: dict[tuple[str, int], list[int]] = {}
    for v in data.values():
        idx = 0 if v["outcome"] == "failed" else 1
        for rel, line in v["lines"]:
            counts.setdefault((rel, line), [0, 0])[idx] += 1
    out = []
    for (rel, line), (f, p) in counts.items():
        if f:
            score = f / math.sqrt(failed_total * (f + p))
            out.append(Location(rel, line, round(score, 4), f"executed by {f}/{failed_total} failing and {p} passing tests"))
    out.sort(key=lambda loc: (-loc.score, loc.path, loc.line))
    return out


# -- static guesses --------------------------------------------------------------
def static_locations(workspace: Workspace, kind: str, files: list[str], extra_words: Iterable[str] = (),
                     tested: Iterable[str] = ()) -> list[Location]:
    """Every statement line of ``files`` with a score from words that fit the failure kind.

    Files in ``tested`` (modules the passing unit tests import) score lower:
    when the tests pass but the played program fails, the fault is likelier
    in code the tests do not reach.
    """
    words = tuple(KIND_WORDS.get(kind, ())) + tuple(w.lower() for w in extra_words)
    tested = set(tested)
    out: list[Location] = []
    for rel in files:
        try:
            source = workspace.read_text(rel)
            tree = pysyntax.parse(source)
        except (OSError, SyntaxError):
            continue
        lines = source.splitlines()
        func_of = _enclosing_functions(tree)
        seen: set[int] = set()
        for node in ast.walk(tree):
            if not isinstance(node, ast.stmt) or node.lineno in seen:
                continue
            seen.add(node.lineno)
            text = lines[node.lineno - 1].lower() + " " + func_of.get(node.lineno, "").lower()
            hits = sum(1 for w in words if w in text)
            loop = 0.0
            if kind == "freeze" and isinstance(node, ast.While):
                loop = 0.3 + (0.5 if _condition_never_changes(node) else 0.0)
            score = (0.2 + 0.1 * min(hits, 4) + loop) * (TESTED_FACTOR if rel in tested else 1.0)
            out.append(Location(rel, node.lineno, round(score, 3), f"{kind or 'failure'} heuristic"))
    out.sort(key=lambda loc: (-loc.score, loc.path, loc.line))
    return out


def _condition_never_changes(loop: ast.While) -> bool:
    """True when the loop body assigns nothing its condition reads and has no break: a likely endless loop."""
    reads = _full_names(loop.test)
    if not reads:
        return isinstance(loop.test, ast.Constant) and bool(loop.test.value) and not _has_exit(loop)
    written: set[str] = set()
    for node in (n for stmt in loop.body for n in ast.walk(stmt)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr)):
            targets = [node.target]
        for t in targets:
            written |= _full_names(t)
    changed = any(r == w or r.startswith(w + ".") for r in reads for w in written)
    return not changed and not _has_exit(loop)


def _full_names(expr: ast.expr) -> set[str]:
    """Dotted names read in ``expr`` (``a.b.c``, not its prefixes ``a`` and ``a.b``)."""
    inner = {id(n.value) for n in ast.walk(expr) if isinstance(n, ast.Attribute)}
    return {ast.unparse(n) for n in ast.walk(expr) if isinstance(n, (ast.Name, ast.Attribute)) and id(n) not in inner}


def _has_exit(loop: ast.While) -> bool:
    return any(isinstance(n, (ast.Break, ast.Return, ast.Raise)) for stmt in loop.body for n in ast.walk(stmt))


def _enclosing_functions(tree: ast.Module) -> dict[int, str]:
    names: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                names[line] = node.name if line not in names else names[line] + " " + node.name
    return names


def tested_modules(workspace: Workspace) -> set[str]:
    """Program files that some ``test_*.py`` imports (by module name)."""
    names: set[str] = set()
    for rel in workspace.files((".py",)):
        if rel.split("/")[-1].startswith("test_"):
            try:
                tree = pysyntax.parse(workspace.read_text(rel))
            except (SyntaxError, UnicodeDecodeError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names |= {a.name for a in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names.add(node.module)
    return {rel for rel in workspace.files((".py",)) if rel[:-3].replace("/", ".") in names}


def merge(*groups: list[Location]) -> list[Location]:
    """One ranked list; a line keeps its best score, earlier groups win ties."""
    best: dict[tuple[str, int], tuple[float, int, Location]] = {}
    for g, group in enumerate(groups):
        for loc in group:
            key = (loc.path, loc.line)
            if key not in best or loc.score > best[key][0]:
                best[key] = (loc.score, g, loc)
    ranked = sorted(best.values(), key=lambda t: (t[1], -t[0], t[2].path, t[2].line))
    return [t[2] for t in ranked]
