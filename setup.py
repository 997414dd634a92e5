"""The one build step pyproject.toml cannot say: ship the bundled apps and the resources inside the package.

The source tree keeps ``benchmark/apps``, ``benchmark/wild`` and ``resources/`` where the tests, the benchmarks
and the docs expect them.  A built wheel gets a copy of each under ``app/_data/`` (same relative paths), and
``app.paths`` and ``app.engine.play.targetspec`` read that copy through importlib.resources when there is no
source tree beside the package.  An editable install reads the tree itself, so it gets no copy.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
BUNDLED = ("resources", "benchmark/apps", "benchmark/wild")
"""Folders of the source tree that ship as app/_data/<the same path>."""
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".benchmarks", "*.db", "*.db-*")


class BuildWithData(build_py):
    """build_py, then the bundled folders copied into the built package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for rel in BUNDLED:
            dest = Path(self.build_lib) / "app" / "_data" / rel
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(HERE / rel, dest, ignore=_IGNORE)


setup(cmdclass={"build_py": BuildWithData})
