"""The refiner's tools: search and read the program copy, validate it, run its unit tests.

All of them work on a :class:`~app.engine.repair.sandbox.Workspace`; the ones
that execute code (the import check, the unit tests) do so through the
:class:`~app.engine.repair.sandbox.Executor`, in a throwaway copy.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any, Sequence

from app import pysyntax
from app.engine.repair.sandbox import Executor, Limits, Workspace

MAX_SEARCH_HITS = 40
MAX_READ_LINES = 400
IMPORT_CHECK_LIMITS = Limits(wall_s=20.0, cpu_s=20, memory_mb=2048)
UNIT_TEST_LIMITS = Limits(wall_s=90.0, cpu_s=90, memory_mb=2048)
TEST_GLOB = "test_*.py"
REPORT_FILE = ".playcoder-junit.xml"


@dataclass(frozen=True)
class SearchHit:
    path: str
    line: int
    text: str


class ContextSearchTool:
    """grep over the program copy (regular expression, or plain text when it does not compile)."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def search(self, pattern: str, *, suffix: str = ".py", max_hits: int = MAX_SEARCH_HITS) -> list[SearchHit]:
        try:
            rx = re.compile(pattern)
        except re.error:
            rx = re.compile(re.escape(pattern))
        hits: list[SearchHit] = []
        for rel in self.workspace.files((suffix,)):
            for no, line in enumerate(self.workspace.read_text(rel).splitlines(), 1):
                if rx.search(line):
                    hits.append(SearchHit(rel, no, line.rstrip()))
                    if len(hits) >= max_hits:
                        return hits
        return hits


class FileReadTool:
    """Numbered lines of a file in the copy; paths outside it are refused."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def read(self, path: str, start: int = 1, end: int | None = None) -> str:
        lines = self.workspace.read_text(path).splitlines()
        start = max(1, start)
        end = min(len(lines), end if end is not None else start + MAX_READ_LINES - 1)
        return "\n".join(f"{n:4d}  {lines[n - 1]}" for n in range(start, end + 1))


@dataclass
class StageResult:
    stage: str  # syntax | compile | import | tests
    ok: bool
    output: str = ""


@dataclass
class ValidationReport:
    stages: list[StageResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(s.ok for s in self.stages)

    def first_failure(self) -> StageResult | None:
        return next((s for s in self.stages if not s.ok), None)

    def text(self) -> str:
        return "\n".join(f"[{s.stage}] {'ok' if s.ok else 'FAILED'}" + (f"\n{s.output.strip()}" if s.output.strip()
                         else "") for s in self.stages)

    def as_dict(self) -> list[dict[str, Any]]:
        return [{"stage": s.stage, "ok": s.ok, "output": s.output[-4000:]} for s in self.stages]


_IMPORT_CHECK = r"""
import importlib, importlib.util, json, sys
mods, deps = json.loads(sys.argv[1]), json.loads(sys.argv[2])
bad = []
for m in mods:
    try:
        importlib.import_module(m)
    except BaseException as e:
        bad.append("%s: %s: %s" % (m, type(e).__name__, e))
for d in deps:
    try:
        if importlib.util.find_spec(d) is None:
            bad.append("%s: module not found" % d)
    except BaseException as e:
        bad.append("%s: %s: %s" % (d, type(e).__name__, e))
print("\n".join(bad))
sys.exit(1 if bad else 0)
"""


class Validator:
    """Build validation: every Python file parses (ast) and compiles; library modules import.

    Entry scripts (the ``command`` of playcoder.toml, anything with a
    ``__main__`` guard or a test file) are not imported, since importing
    could start the GUI: only the modules they import are checked to exist.
    """

    def __init__(self, executor: Executor, entry_scripts: Sequence[str] = ("main.py",)) -> None:
        self.executor = executor
        self.entry_scripts = set(entry_scripts)

    def validate(self, workspace: Workspace, files: Sequence[str] | None = None) -> ValidationReport:
        report = ValidationReport()
        py = [f for f in (files if files is not None else workspace.files((".py",))) if f.endswith(".py")]
        trees: dict[str, ast.Module] = {}
        syntax_errors = []
        for rel in py:
            try:
                trees[rel] = pysyntax.parse(workspace.read_text(rel), filename=rel)
            except SyntaxError as exc:
                syntax_errors.append(f"{rel}:{exc.lineno}:{exc.offset}: SyntaxError: {exc.msg}")
        report.stages.append(StageResult("syntax", not syntax_errors, "\n".join(syntax_errors)))
        if syntax_errors:
            return report
        compile_errors = []
        for rel, tree in trees.items():
            try:
                pysyntax.compile_tree(tree, rel, "exec")
            except (SyntaxError, ValueError) as exc:
                compile_errors.append(f"{rel}: {type(exc).__name__}: {exc}")
        report.stages.append(StageResult("compile", not compile_errors, "\n".join(compile_errors)))
        if compile_errors:
            return report
        modules, deps = [], set()
        for rel, tree in trees.items():
            if "/" in rel:
                continue
            if self._is_entry(rel, tree):
                deps |= _imported_modules(tree)
            else:
                modules.append(rel[:-3])
        if not modules and not deps:
            return report
        res = self.executor.run_in_copy(workspace, [sys.executable, "-c", _IMPORT_CHECK, json.dumps(sorted(modules)),
                                                    json.dumps(sorted(deps))], limits=IMPORT_CHECK_LIMITS)
        out = (res.stdout + res.stderr).strip()
        if res.limit:
            out = f"{res.summary()}\n{out}"
        report.stages.append(StageResult("import", res.ok, out))
        return report

    def _is_entry(self, rel: str, tree: ast.Module) -> bool:
        if rel in self.entry_scripts or rel.split("/")[-1].startswith("test_"):
            return True
        return any(isinstance(n, ast.If) and "__main__" in ast.unparse(n.test) for n in tree.body)


def _imported_modules(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


@dataclass
class TestReport:
    ran: bool
    passed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    """test id -> the failure message and traceback text"""
    output: str = ""
    error: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failed and not self.error

    def summary(self) -> str:
        if not self.ran:
            return "no unit tests (no test_*.py files)"
        if self.error:
            return f"the unit tests could not run: {self.error}"
        return f"{len(self.passed)} passed, {len(self.failed)} failed"

    def as_dict(self) -> dict[str, Any]:
        return {"ran": self.ran, "passed": len(self.passed), "failed": sorted(self.failed), "error": self.error,
                "summary": self.summary()}


class UnitTestRunner:
    """The Pass stage: the program's own ``test_*.py`` with pytest, in the sandbox, read back from JUnit XML."""

    def __init__(self, executor: Executor, limits: Limits = UNIT_TEST_LIMITS) -> None:
        self.executor = executor
        self.limits = limits

    def has_tests(self, workspace: Workspace) -> bool:
        return any(p.name.startswith("test_") for p in workspace.root.glob(TEST_GLOB))

    def run(self, workspace: Workspace, extra_args: Sequence[str] = (), limits: Limits | None = None) -> TestReport:
        if not self.has_tests(workspace):
            return TestReport(ran=False)
        with self.executor.copy_of(workspace) as copy:
            argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=short",
                    f"--junitxml={REPORT_FILE}", "-o", "addopts=", "-o", "timeout=0", *extra_args]
            res = self.executor.run(copy, argv, limits=limits or self.limits)
            xml = copy.root / REPORT_FILE
            report = _read_junit(xml.read_text(encoding="utf-8")) if xml.is_file() else None
        output = (res.stdout + res.stderr)[-8000:]
        if report is None or res.limit:
            why = res.summary() if res.limit else f"pytest exited {res.returncode} without a report"
            return TestReport(ran=True, output=output, error=why, seconds=res.seconds)
        report.output = output
        report.seconds = res.seconds
        if res.returncode not in (0, 1) and not report.failed:
            report.error = f"pytest exited {res.returncode}"
        return report


def _read_junit(text: str) -> TestReport:
    report = TestReport(ran=True)
    root = ET.fromstring(text)
    for case in root.iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        if bad is not None:
            report.failed[name] = ((bad.get("message") or "") + "\n" + (bad.text or "")).strip()
        elif case.find("skipped") is None:
            report.passed.append(name)
    return report
