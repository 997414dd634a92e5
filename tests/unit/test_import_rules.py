"""The import rules and the linter's rules are configuration (pyproject.toml); this runs both, so CI keeps them.

import-linter's contracts: the command line over the views over the engine, no Qt in
the engine, views that reach the store only through their model package, play/ at the
bottom.  ruff: syntax errors and pyflakes over app/, tests/ and benchmark/.
"""

from __future__ import annotations

import subprocess
import sys

from suite import ROOT

LINT_IMPORTS = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_the_import_contracts_are_kept():
    out = run("-c", LINT_IMPORTS, "--no-cache")
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "BROKEN" not in out.stdout and out.stdout.count("KEPT") >= 5


def test_ruff_finds_nothing():
    out = run("-m", "ruff", "check", "--no-cache", "app", "tests", "benchmark")
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
