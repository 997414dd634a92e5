"""The x layer: a real X server (the session's Xvfb from tests/conftest.py, or one a test starts) or a target
process, no Qt widgets."""

from __future__ import annotations

from suite import APPS, ROOT, TARGETS, needs_xvfb  # noqa: F401  (tests that import these from conftest)
