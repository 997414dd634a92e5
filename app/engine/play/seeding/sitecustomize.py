"""Seeds a played Python program from the run's seed, without touching its code.

The engine puts this folder first on the program's PYTHONPATH, so Python runs
it at start-up (``site`` imports ``sitecustomize``).  It seeds ``random`` from
PLAYCODER_SEED at once and numpy's global generator the moment the program
imports ``numpy.random`` (numpy is never imported here), then runs the
``sitecustomize`` that would otherwise have run.  What it cannot pin: the
wall clock (``time.time``, frame timing), threads and their scheduling, OS
entropy read directly (``os.urandom``, ``secrets``), and generators a program
creates with its own fresh seed (``random.Random()``, ``numpy.random.default_rng()``).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from types import ModuleType
from typing import Any, Sequence

_HERE = os.path.dirname(os.path.abspath(__file__))


def _seed_random(seed: int) -> None:
    import random

    random.seed(seed)


class _SeedNumpyOnImport:
    """A meta-path finder that seeds numpy.random right after the program imports it."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> Any:
        if name != "numpy.random":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader: Any = spec.loader
        seed = self.seed
        exec_module = loader.exec_module

        def exec_and_seed(module: ModuleType) -> None:
            exec_module(module)
            try:
                getattr(module, "seed")(seed % (2 ** 32))
            except Exception:
                pass

        loader.exec_module = exec_and_seed
        return spec


def _chain() -> None:
    """Run the next sitecustomize on the path (a distribution's own), as Python would have."""
    rest = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None and spec.origin != os.path.abspath(__file__):
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


_raw = os.environ.get("PLAYCODER_SEED")
if _raw is not None and _raw.lstrip("-").isdigit():
    _seed_random(int(_raw))
    sys.meta_path.insert(0, _SeedNumpyOnImport(int(_raw)))
try:
    _chain()
except Exception:
    pass
