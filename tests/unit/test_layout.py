"""The package layout says how the code works (docs/architecture.md); this keeps the import direction.

Every import anywhere in a module counts (also the lazy ones inside functions and
under TYPE_CHECKING): a layer that may not import another may not do it late either.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

APP = Path(__file__).resolve().parents[2] / "app"

# package -> the app packages it may import (itself always allowed); errors and step_numbers are leaves every
# room may use (what went wrong, and how steps are numbered for people)
ENGINE_ALLOWED: dict[str, set[str]] = {
    "app.engine.play": {"app.engine.errors", "app.pysyntax"},
    "app.engine.judge": {"app.engine.errors", "app.engine.step_numbers", "app.engine.play"},
    "app.engine.trace": {"app.engine.errors", "app.engine.step_numbers", "app.engine.play.actions", "app.engine.play.events", "app", "app.paths",
                         "app.pysyntax"},
    "app.engine.study": {"app.engine.errors", "app.engine.step_numbers", "app.engine.trace", "app.engine.play.actions"},
    "app.engine.llm": {"app.engine.errors", "app.engine.step_numbers", "app.engine.play", "app.engine.trace", "app.paths"},
    "app.engine.testers": {"app.engine.errors", "app.engine.step_numbers", "app.engine.play", "app.engine.judge", "app.engine.trace",
                           "app.engine.llm", "app.paths", "app.pysyntax"},
}
VIEWS_FORBIDDEN: dict[str, set[str]] = {
    "app.views.widgets": {"app.views.shell", "app.views.browser", "app.views.run", "app.views.live",
                          "app.views.labelling", "app.views.repair", "app.views.settings"},
    "app.views.run": {"app.views.shell", "app.views.labelling", "app.views.repair", "app.views.settings"},
    "app.views.live": {"app.views.shell", "app.views.labelling", "app.views.repair", "app.views.run"},
    "app.views.labelling": {"app.views.shell", "app.views.live", "app.views.run", "app.views.repair"},
    "app.views.repair": {"app.views.shell", "app.views.labelling"},  # hosts live/ for a repair's plays
    "app.views.browser": {"app.views.shell", "app.views.live", "app.views.labelling", "app.views.repair"},
    "app.views.settings": {"app.views.shell", "app.views.live", "app.views.labelling", "app.views.repair",
                           "app.views.run"},
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(dotted: str) -> bool:
    path = APP.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imports() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path in APP.rglob("*.py"):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                subs = {f"{node.module}.{a.name}" for a in node.names}
                # ``from pkg import module`` depends on the module, not on all of pkg
                if not all(_is_module(s) for s in subs):
                    names.add(node.module)
                names.update(subs)
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
        out[_module_name(path)] = {n for n in names if n == "app" or n.startswith("app.")}
    return out


IMPORTS = _imports()
MODULES = set(IMPORTS)


def _real(name: str) -> str | None:
    """The app module an imported dotted name refers to (``from pkg import mod`` or ``from mod import obj``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_engine_never_imports_views_or_commands() -> None:
    bad = [(m, i) for m, names in IMPORTS.items() if _within(m, "app.engine")
           for i in names if _within(i, "app.views") or _within(i, "app.commands") or i == "app.cli"]
    assert not bad, bad


@pytest.mark.parametrize("package", sorted(ENGINE_ALLOWED))
def test_engine_layers_import_only_what_they_may(package: str) -> None:
    allowed = ENGINE_ALLOWED[package] | {package}
    bad = []
    for module, names in IMPORTS.items():
        if not _within(module, package):
            continue
        for name in names:
            real = _real(name)
            if real and not any(_within(real, a) if a != "app" else real == "app" for a in allowed):
                bad.append((module, real))
    assert not bad, f"{package} may import only {sorted(allowed)}: {sorted(set(bad))}"


@pytest.mark.parametrize("package", sorted(VIEWS_FORBIDDEN))
def test_views_windows_keep_to_their_room(package: str) -> None:
    bad = [(m, n) for m, names in IMPORTS.items() if _within(m, package)
           for n in names if any(_within(n, f) for f in VIEWS_FORBIDDEN[package])]
    assert not bad, bad


def test_no_import_cycles_between_modules() -> None:
    graph = nx.DiGraph()
    for module, names in IMPORTS.items():
        for name in names:
            real = _real(name)
            # a package's __init__ is not a dependency on its children
            if real and real != module and not _within(module, real):
                graph.add_edge(module, real)
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not cycles, cycles


def test_every_package_says_what_lives_there_and_what_it_may_import() -> None:
    for init in APP.rglob("__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        assert doc.strip(), f"{init} has no docstring"


def test_python_is_parsed_only_through_the_thread_safe_parser() -> None:
    """CPython 3.11's AST converter is not safe in two threads at once (app/pysyntax.py).  The seeding folder runs
    inside played programs, not in the app: its one parser (``_playcoder_near``) parses only in a forked branch,
    where one thread is left."""
    bad = []
    seeding = APP / "engine" / "play" / "seeding"
    for path in [*APP.rglob("*.py"), *(APP.parent / "benchmark").glob("*.py")]:
        if path.name == "pysyntax.py" or path == seeding / "_playcoder_near.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                f = node.func
                if isinstance(f, ast.Attribute) and f.attr == "parse" and getattr(f.value, "id", "") == "ast":
                    bad.append(f"{path.relative_to(APP.parent)}:{node.lineno} ast.parse")
                if isinstance(f, ast.Name) and f.id == "compile":
                    bad.append(f"{path.relative_to(APP.parent)}:{node.lineno} compile")
    assert not bad, bad


MODEL = "app.views.model"
STORE_MODULES = {"sqlite3", "app.engine.trace.store"}
STORE_NAME = re.compile(r"(^|_)stores?($|_)")
"""An identifier that names a store: ``store``, ``self._store``, ``open_store``, ``owned_store``…"""


def _view_files() -> list[Path]:
    return [p for p in (APP / "views").rglob("*.py") if not _within(_module_name(p), MODEL)]


@pytest.mark.parametrize("path", _view_files(), ids=lambda p: str(p.relative_to(APP)))
def test_views_reach_the_database_only_through_the_model(path: Path) -> None:
    """Issue 28: views hold no SQL and no store — they import neither the store nor sqlite3, and no name in
    them is a store (a variable, attribute, argument or method); the model package owns the connection."""
    tree = ast.parse(path.read_text())
    bad: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bad += [f"imports {a.name}" for a in node.names if a.name in STORE_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module in STORE_MODULES:
                bad.append(f"imports from {node.module}")
            bad += [f"imports {node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in STORE_MODULES]
        names = [node.id] if isinstance(node, ast.Name) else [node.attr] if isinstance(node, ast.Attribute) else \
            [node.arg] if isinstance(node, ast.arg) else \
            [node.name] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
        bad += [f"line {node.lineno}: {n}" for n in names if STORE_NAME.search(n)]  # type: ignore[attr-defined]
    assert not bad, f"{path.relative_to(APP)} reaches the store past app/views/model: {bad[:5]}"


def test_the_workbench_model_imports_no_qt() -> None:
    """The model sits under the views but is Qt-free (STYLE rule 17): it can be driven without a display."""
    files = sorted((APP / "views" / "model").glob("*.py"))
    qt: list[str] = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                qt += [f"{path.name}: {a.name}" for a in node.names if a.name.split(".")[0] in {"PySide6", "shiboken6"}]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in {"PySide6", "shiboken6"}:
                qt.append(f"{path.name}: {node.module}")
    assert files and not qt, qt
