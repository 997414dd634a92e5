"""The suite's layout: every test file lives in one layer folder under a unique name, and its layer is its folder."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest
from layers import LAYERS, layer_of, mark_layers
from suite import TESTS


def test_no_test_file_sits_directly_in_tests():
    assert sorted(p.name for p in TESTS.glob("test_*.py")) == []


def test_every_layer_folder_has_its_conftest_and_no_package_file():
    for layer in LAYERS:
        assert (TESTS / layer / "conftest.py").is_file(), layer
    assert [str(p) for p in TESTS.rglob("__init__.py") if "targets" not in p.parts] == []


def test_test_file_names_are_unique_across_the_folders():
    names = Counter(p.name for layer in LAYERS for p in (TESTS / layer).glob("*.py") if p.name != "conftest.py")
    names.update(p.name for p in TESTS.glob("*.py"))
    assert [name for name, n in names.items() if n > 1] == []


def test_a_test_takes_the_layer_of_its_folder():
    for layer in LAYERS:
        assert layer_of(SimpleNamespace(path=TESTS / layer / "test_any.py")) == layer  # type: ignore[arg-type]
    assert layer_of(SimpleNamespace(path=TESTS / "test_stray.py")) is None  # type: ignore[arg-type]


def test_a_test_file_outside_the_layer_folders_stops_collection_with_where_to_put_it():
    stray = SimpleNamespace(path=TESTS / "test_stray.py")
    with pytest.raises(pytest.UsageError, match="tests/unit, tests/x, tests/gui or tests/e2e"):
        mark_layers([stray])  # type: ignore[list-item]
