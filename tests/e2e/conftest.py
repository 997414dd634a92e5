"""The e2e layer: plays a target end to end (`python -m app ...`, the CLI, a Session) in a private Xvfb."""

from __future__ import annotations

from suite import APPS, ROOT, TARGETS, needs_xvfb  # noqa: F401  (tests that import these from conftest)
