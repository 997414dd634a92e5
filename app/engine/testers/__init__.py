"""Testers decide the next action from what the window shows, and give a verdict."""

from __future__ import annotations

from typing import Any

from app.engine.errors import UserError
from app.engine.testers.base import Tester

TESTERS = ("offline", "script", "llm", "differential")


def make_tester(name: str, options: dict[str, Any] | None = None) -> Tester:
    """Build a tester by name; unknown names end in a clear error."""
    options = options or {}
    if name == "offline":
        options = dict(options)
        if options.pop("explorer", "new") == "old":  # the explorer before issue 23, for comparisons
            from app.engine.testers.offline import OfflineExplorer

            return OfflineExplorer(**options)
        from app.engine.testers.explore.explorer import Explorer

        return Explorer(**options)
    if name == "script":
        from app.engine.testers.script import ScriptTester

        return ScriptTester(**options)
    if name == "llm":
        from app.engine.testers.llm import LLMTester

        return LLMTester.from_options(options)
    if name == "differential":
        from app.engine.testers.differential import DifferentialTester

        return DifferentialTester(**options)
    raise UserError(f"unknown tester {name!r}; choose one of: {', '.join(TESTERS)}.")
