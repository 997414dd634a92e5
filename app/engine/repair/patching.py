"""Patches: unified diffs (difflib), parsing model output, atomic application.

A refiner produces *edits* (new text per file).  They come from a mutation
(the offline refiner) or from model output in one of two forms:

* a unified diff (``--- a/x.py`` / ``+++ b/x.py`` / ``@@`` hunks); hunk
  headers' line counts are not trusted (models get them wrong), the context
  and removed lines are, and must match the file (exactly, or ignoring
  trailing whitespace);
* search/replace blocks::

      path/to/file.py
      <<<<<<< SEARCH
      old lines
      =======
      new lines
      >>>>>>> REPLACE

  where the old lines must occur exactly once in the file.

:func:`apply_atomically` writes the edits to a staging copy, runs a check
there, and only then swaps the staging copy in for the workspace: all the
edits land, or none.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, TypeVar

from app.engine.errors import UserError
from app.engine.repair.sandbox import COPY_IGNORE, Workspace

T = TypeVar("T")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_SR_BLOCK = re.compile(
    r"(?P<path>[^\n`<>=]+?)\s*\n(?:```[^\n]*\n)?<{5,9} ?SEARCH\s*\n(?P<old>.*?)\n?={5,9}\s*\n(?P<new>.*?)\n?>{5,9} ?REPLACE",
    re.DOTALL)


class PatchError(UserError):
    """A patch is malformed or does not fit the program; the message says which file and hunk."""


def unified_diff(before: Mapping[str, str], after: Mapping[str, str]) -> str:
    """A git-style unified diff (``a/`` and ``b/`` prefixes, 3 lines of context) between two snapshots."""
    chunks = []
    for rel in sorted(set(before) | set(after)):
        old, new = before.get(rel), after.get(rel)
        if old == new:
            continue
        lines = difflib.unified_diff(
            (old or "").splitlines(keepends=True), (new or "").splitlines(keepends=True),
            fromfile=f"a/{rel}" if old is not None else "/dev/null",
            tofile=f"b/{rel}" if new is not None else "/dev/null")
        text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
        chunks.append(text)
    return "".join(chunks)


def changed_files(before: Mapping[str, str], after: Mapping[str, str]) -> list[str]:
    return sorted(rel for rel in set(before) | set(after) if before.get(rel) != after.get(rel))


# -- reading model output --------------------------------------------------------
def extract_edits(text: str, workspace: Workspace) -> dict[str, str]:
    """New file texts from a model answer holding a unified diff or search/replace blocks."""
    body = _strip_fences(text)
    if _SR_BLOCK.search(body):
        return apply_search_replace(body, workspace)
    if re.search(r"^\+\+\+ ", body, re.MULTILINE) and re.search(r"^@@", body, re.MULTILINE):
        return apply_unified(body, workspace)
    raise PatchError("the model's answer holds neither a unified diff nor SEARCH/REPLACE blocks; "
                     "the patch was not applied.")


def _strip_fences(text: str) -> str:
    fenced = re.findall(r"```(?:diff|patch|python|text)?\s*\n(.*?)```", text, re.DOTALL)
    return "\n".join(fenced) if fenced else text


def _clean_path(raw: str) -> str:
    path = raw.strip().split("\t")[0].strip().strip("`").strip()
    if path.startswith(("a/", "b/")):
        path = path[2:]
    return path


def apply_search_replace(text: str, workspace: Workspace) -> dict[str, str]:
    edits: dict[str, str] = {}
    for n, m in enumerate(_SR_BLOCK.finditer(text), 1):
        rel = workspace.relative(_clean_path(m.group("path").splitlines()[-1]))
        current = edits.get(rel)
        if current is None:
            if not workspace.resolve(rel).is_file():
                raise PatchError(f"block {n} edits {rel}, which does not exist in the program.")
            current = workspace.read_text(rel)
        old, new = m.group("old"), m.group("new")
        count = current.count(old) if old else 0
        if count != 1:
            where = "does not occur" if count == 0 else f"occurs {count} times"
            raise PatchError(f"block {n}: the SEARCH text {where} in {rel}; the patch was not applied.")
        edits[rel] = current.replace(old, new, 1)
    return edits


def apply_unified(text: str, workspace: Workspace) -> dict[str, str]:
    edits: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    rel: str | None = None
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            target = _clean_path(lines[i + 1][4:])
            source = _clean_path(line[4:])
            rel = workspace.relative(source if target == "/dev/null" else target)
            if rel not in edits:
                path = workspace.resolve(rel)
                edits[rel] = workspace.read_text(rel) if path.is_file() else ""
            i += 2
            continue
        m = _HUNK.match(line)
        if m:
            if rel is None:
                raise PatchError("a hunk comes before any '--- a/file' / '+++ b/file' header; the patch was not applied.")
            hunk: list[str] = []
            i += 1
            while i < len(lines) and not _HUNK.match(lines[i]) and not (
                    lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")):
                if lines[i].startswith((" ", "-", "+")) or lines[i] == "":
                    hunk.append(lines[i])
                i += 1
            edits[rel] = _apply_hunk(edits[rel], hunk, int(m.group(1)), rel)
            continue
        i += 1
    if not edits:
        raise PatchError("the diff names no file; the patch was not applied.")
    return edits


def _apply_hunk(text: str, hunk: list[str], start: int, rel: str) -> str:
    while hunk and hunk[-1] == "":
        hunk.pop()
    old = [h[1:] if h else "" for h in hunk if not h.startswith("+")]
    new = [h[1:] if h else "" for h in hunk if not h.startswith("-")]
    keep_newline = text.endswith("\n") or not text
    lines = text.splitlines()
    if not old:  # pure insertion
        at = min(max(start, 0), len(lines))
        return "\n".join(lines[:at] + new + lines[at:]) + ("\n" if keep_newline else "")
    for loose in (False, True):
        matches = [k for k in range(len(lines) - len(old) + 1) if _same(lines[k:k + len(old)], old, loose)]
        if matches:
            at = min(matches, key=lambda k: abs(k + 1 - start))
            return "\n".join(lines[:at] + new + lines[at + len(old):]) + ("\n" if keep_newline else "")
    raise PatchError(f"a hunk near line {start} of {rel} does not match the file (its context or removed lines "
                     "differ); the patch was not applied.")


def _same(a: list[str], b: list[str], loose: bool) -> bool:
    return a == b if not loose else [x.rstrip() for x in a] == [y.rstrip() for y in b]


# -- applying --------------------------------------------------------------------
@dataclass
class Applied:
    diff: str
    files: list[str]


def apply_atomically(workspace: Workspace, edits: Mapping[str, str],
                     check: Callable[[Workspace], T]) -> tuple[Applied | None, T]:
    """Write ``edits`` to a staging copy, run ``check`` on it, swap it in when check says ok.

    ``check`` returns a result with an ``ok`` attribute; the workspace is
    untouched unless it is true.  Returns (Applied or None, check result).
    """
    before = workspace.snapshot()
    parent = workspace.root.parent
    staging_dir = Path(tempfile.mkdtemp(prefix=f".{workspace.root.name}.staging-", dir=parent))
    staging_root = staging_dir / workspace.root.name
    try:
        shutil.copytree(workspace.root, staging_root, ignore=COPY_IGNORE, symlinks=False)
        staging = Workspace(staging_root)
        for rel, text in edits.items():
            staging.write_text(workspace.relative(rel), text)
        after = staging.snapshot()
        result = check(staging)
        if not getattr(result, "ok", False):
            return None, result
        diff = unified_diff(before, after)
        _swap(workspace.root, staging_root, staging_dir)
        return Applied(diff, changed_files(before, after)), result
    finally:
        shutil.rmtree(staging_dir, ignore_errors=True)


def _swap(root: Path, staging_root: Path, staging_dir: Path) -> None:
    """Replace ``root`` by ``staging_root`` with two renames; on failure the old folder is put back."""
    old = staging_dir / (root.name + ".old")
    os.rename(root, old)
    try:
        os.rename(staging_root, root)
    except OSError:
        os.rename(old, root)
        raise
