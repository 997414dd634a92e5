"""STYLE.md rule 7: the engine is fully typed (mypy, disallow_untyped_defs on app/engine), and the rest of app/
(the workbench) passes mypy too."""

import shutil
import subprocess
import sys

import pytest

from suite import ROOT


@pytest.mark.skipif(shutil.which("mypy") is None and not __import__("importlib").util.find_spec("mypy"),
                    reason="mypy is not installed")
def test_engine_passes_mypy():
    proc = subprocess.run([sys.executable, "-m", "mypy", "app"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]
