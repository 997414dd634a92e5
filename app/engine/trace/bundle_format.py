"""The trace bundle format: member names, the tables they hold, and the error every refusal raises.

Shared by export (:mod:`app.engine.trace.bundle`) and import
(:mod:`app.engine.trace.bundle_import`); see :mod:`app.engine.trace.bundle` for the layout.
"""

from __future__ import annotations

import re

from app.engine.errors import UserError

BUNDLE_FORMAT = "playcoder-bundle"
BUNDLE_VERSION = 1
MANIFEST = "manifest.json"
FRAME_FORMAT = "png"
FRAME_MEMBER_RE = re.compile(r"frames/([0-9a-f]{64})\.png")
AGAIN = "export it again with `playcoder export`"

TABLES: dict[str, tuple[str, str]] = {
    # member name -> (table, "one" | "json" list | "jsonl" lines)
    "run.json": ("runs", "one"),
    "steps.jsonl": ("steps", "jsonl"),
    "findings.json": ("findings", "json"),
    "judgments.json": ("judgments", "json"),
    "logs.jsonl": ("target_logs", "jsonl"),
    "llm_calls.jsonl": ("llm_calls", "jsonl"),
    "patches.json": ("patches", "json"),
    "films.json": ("films", "json"),
    "coverage.jsonl": ("coverage", "jsonl"),
    "coverage_files.json": ("coverage_files", "json"),
}
"""Every row member and the table it holds; only these names, frames/ and films/ are accepted."""
OPTIONAL_MEMBERS = frozenset({"films.json", "coverage.jsonl", "coverage_files.json"})
"""Row members a bundle may lack (bundles written before runs had films, or line coverage)."""
STEP_FRAMES = ("frame_before", "frame_after", "frame_reference")
"""The step columns that hold a frame's content address; each such frame travels as ``frames/<sha256>.png``
(``frame_reference``: what the reference program showed, differential play; NULL in bundles before schema 5)."""
COUNT_KEYS = {"steps.jsonl": "steps", "findings.json": "findings", "judgments.json": "judgments",
              "logs.jsonl": "logs", "llm_calls.jsonl": "llm_calls", "patches.json": "patches", "films.json": "films",
              "coverage.jsonl": "coverage", "coverage_files.json": "coverage_files"}


class BundleError(UserError):
    """The file is not an importable trace bundle; the sentence says which check failed."""
