"""Where the suite's files are, and the skip mark for tests that need Xvfb (imported by tests in every layer)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
TARGETS = TESTS / "targets"
APPS = ROOT / "benchmark" / "apps"

needs_xvfb = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb is not installed")
