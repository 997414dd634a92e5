"""Which layer a test belongs to (unit, x, gui, e2e), read from what the test uses.

`conftest.pytest_collection_modifyitems` marks every test with one layer so each layer can run
alone (`pytest -m unit`).  A `unit`/`x`/`gui`/`e2e` marker written on the test, its class or its
module wins.  Otherwise the layer is read from the test's fixtures and from the source text of the
test, of the fixtures it uses and of the module's helpers it calls (one level deep):

- e2e: it starts the engine end to end (`python -m app ...`, `app.cli`, a `Session`);
- gui: it uses qtbot/qapp or imports PySide6, pytest-qt or app.views;
- x: it needs an X server (the xvfb or wm_display fixture, Xvfb, a target process, Xlib);
- unit: none of those.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import pytest

LAYERS = ("unit", "x", "gui", "e2e")

_E2E = re.compile(r"""["']-m["'],\s*["']app["']|(from|import)\s+app\.cli\b|\bcli\.main\(|\bSession\(|\bplaycoder["'],\s*["']test\b""")
_GUI_IMPORT = re.compile(r"^\s*(from|import)\s+(PySide6|pytestqt|app\.views(?!\.model))\b", re.M)
_X = re.compile(r"\bstart_xvfb\b|\bXvfb\b|\bTargetProcess\(|\bXlib\b|\bopen_x\(|\bmake_executor\(|\bDISPLAY\b")
_GUI_FIXTURES = {"qtbot", "qapp", "qtmodeltester", "qtlog"}
_X_FIXTURES = {"xvfb", "wm_display"}
_GUI_MODULES = ("PySide6", "pytestqt", "app.views")
_QT_FREE = "app.views.model"  # the workbench model imports no Qt
# conftest's autouse fixtures run for every test, so they say nothing of its layer
_EVERY_TEST = {"no_leaked_children", "_clean_env"}
_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def _source(obj: Any) -> str:
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        return ""


def _module_imports_gui(module: Any) -> bool:
    for value in vars(module).values():
        name = value.__name__ if inspect.ismodule(value) else getattr(value, "__module__", None)
        if isinstance(name, str) and name.startswith(_GUI_MODULES) and not name.startswith(_QT_FREE):
            return True
    return False


def _text(item: pytest.Function) -> str:
    """The source of the test, of every fixture it uses and of the module's functions it calls."""
    parts = [_source(item.function)]
    for name, defs in item._fixtureinfo.name2fixturedefs.items():
        if name in _EVERY_TEST:
            continue
        parts.extend(_source(d.func) for d in defs)
    text = "\n".join(parts)
    module = item.module
    for name in set(_CALL.findall(text)):
        helper = getattr(module, name, None)
        if inspect.isfunction(helper) and helper.__module__ == module.__name__:
            parts.append(_source(helper))
    return "\n".join(parts)


def layer_of(item: pytest.Item) -> str:
    for layer in LAYERS:
        if item.get_closest_marker(layer) is not None:
            return layer
    if not isinstance(item, pytest.Function):
        return "unit"
    fixtures = set(item.fixturenames)
    text = _text(item)
    if _E2E.search(text):
        return "e2e"
    if fixtures & _GUI_FIXTURES or _GUI_IMPORT.search(text) or _module_imports_gui(item.module):
        return "gui"
    skip_x = any("Xvfb" in str(m.kwargs.get("reason", "")) for m in item.iter_markers("skipif"))
    if fixtures & _X_FIXTURES or item.get_closest_marker("xvfb") or skip_x or _X.search(text):
        return "x"
    return "unit"
