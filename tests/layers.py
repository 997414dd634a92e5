"""Which layer a test belongs to (unit, x, gui, e2e): the folder it lives in.

- tests/unit: no X server, no Qt, no engine run (pure functions, SQLite, files, parsing);
- tests/x: an X server (Xvfb) or a target process, no Qt widgets;
- tests/gui: Qt widgets with pytest-qt (offscreen, or on Xvfb);
- tests/e2e: plays a target end to end (`python -m app ...`, the CLI, a `Session`).

`conftest.pytest_collection_modifyitems` marks every test with its folder's layer, so one layer runs
alone either by folder (`pytest tests/unit`) or by marker (`pytest -m unit`).  A test file directly
in tests/ has no layer: collection stops and says where to put it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

LAYERS = ("unit", "x", "gui", "e2e")
TESTS = Path(__file__).resolve().parent


def layer_of(item: pytest.Item) -> str | None:
    """The layer folder the test's file is in, or None for a file outside tests/<layer>/."""
    try:
        folder = Path(item.path).resolve().relative_to(TESTS).parts[0]
    except (ValueError, IndexError):
        return None
    return folder if folder in LAYERS else None


def mark_layers(items: list[pytest.Item]) -> None:
    """Add the layer marker to every test; a test outside a layer folder is a usage error."""
    stray = sorted({str(item.path) for item in items if layer_of(item) is None and _in_tests(item)})
    if stray:
        raise pytest.UsageError(
            f"{', '.join(stray)}: a test file belongs in one layer folder, tests/unit, tests/x, tests/gui "
            "or tests/e2e (see docs/architecture.md, Tests); move it there.")
    for item in items:
        layer = layer_of(item)
        if layer is not None and item.get_closest_marker(layer) is None:
            item.add_marker(getattr(pytest.mark, layer))


def _in_tests(item: pytest.Item) -> bool:
    return TESTS in Path(item.path).resolve().parents
