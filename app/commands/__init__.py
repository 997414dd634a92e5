"""Optional subcommands.  Each module appends a ``register(subparsers)`` to
``app.cli._EXTRA_COMMANDS``; a parser sets ``handler=`` with ``set_defaults``.
A module that is not there yet is skipped."""

from __future__ import annotations

import importlib

for _name in ("export_import", "validate", "llm", "bench", "repair", "refs", "inspect", "rubric"):
    try:
        importlib.import_module(f"app.commands.{_name}")
    except ModuleNotFoundError as _exc:
        if _exc.name != f"app.commands.{_name}":
            raise
