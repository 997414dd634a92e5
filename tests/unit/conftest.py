"""The unit layer: no X server, no Qt, no engine run.  DISPLAY is unset, so a test that reaches for an X
server fails here instead of quietly using whatever display the machine has (such a test belongs in tests/x)."""

from __future__ import annotations

import pytest
from suite import APPS, ROOT, TARGETS, needs_xvfb  # noqa: F401  (tests that import these from conftest)


@pytest.fixture(autouse=True)
def _no_display(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
