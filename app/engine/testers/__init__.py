"""Testers decide the next action from what the window shows, and give a verdict.

Which testers there are, what each can do and how one is built is declared in
:mod:`app.engine.testers.registry`; this package re-exports its entry points.
"""

from __future__ import annotations

from app.engine.testers.registry import TESTERS, TesterSpec, make_tester, spec

__all__ = ["TESTERS", "TesterSpec", "make_tester", "spec"]
