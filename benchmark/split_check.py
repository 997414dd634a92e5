"""Is the corpus test half still sealed? benchmark/split.md against ``git log``.

    python -m benchmark.split_check

Reads benchmark/split.md (the split date, the test half, the programs moved
to the tune half with when they moved, the commits that looked at test-half
programs) and every commit after the split date.  A commit *names* a program
when its message contains the program's name or it changed a file under
``benchmark/corpus/NAME/``.  A commit that names a program while the program
was in the test half (any time for the test half now; before the move for a
moved program) must be listed in split.md.  Exit 0 when every one is, 1 with
the list otherwise, 3 when the history needed is not in this clone (a shallow
CI checkout): the check cannot say, and says why.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPLIT_MD = ROOT / "benchmark" / "split.md"
SPLIT_COMMIT = "7c4f827"
"""The commit that drew the split (benchmark/mutants.py's program_split); the history must reach it."""
_ROW = re.compile(r"^\|\s*([^|]+?)\s*\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|\s*$")
_SHA = re.compile(r"\b[0-9a-f]{7,40}\b")


@dataclass
class Split:
    date: str
    test: list[str] = field(default_factory=list)
    moved: dict[str, str] = field(default_factory=dict)
    """program -> ISO time it moved to the tune half."""
    recorded: set[str] = field(default_factory=set)
    """Short commit ids split.md names anywhere in its tables."""


@dataclass(frozen=True)
class Commit:
    sha: str
    when: str
    message: str
    files: tuple[str, ...]


def _section(text: str, title: str) -> list[str]:
    part = text.split(f"## {title}", 1)
    return part[1].split("\n## ", 1)[0].splitlines() if len(part) == 2 else []


def read_split(path: Path = SPLIT_MD) -> Split:
    """The split as split.md records it (one sentence when the file lacks its date)."""
    text = path.read_text(encoding="utf-8")
    found = re.search(r"Split date:\s*(\d{4}-\d{2}-\d{2})", text)
    if not found:
        raise SystemExit(f"{path} names no 'Split date: YYYY-MM-DD'; add the date the split was drawn.")
    split = Split(found.group(1))
    for line in _section(text, "Test half"):
        if line.startswith("|") and not line.startswith(("| program", "| ---")):
            split.test.append(line.strip("| ").split("|")[0].strip())
    for line in _section(text, "Moved to the tune half"):
        row = _ROW.match(line)
        if row and row.group(1) not in ("program", "---"):
            split.moved[row.group(1)] = row.group(2)
    for line in text.splitlines():
        if line.startswith("|"):
            split.recorded.update(m[:7] for m in _SHA.findall(line))
    return split


def history_missing(root: Path = ROOT) -> str:
    """Why this clone cannot be checked ('' when it can): no git, a shallow clone, the split commit absent."""
    try:
        shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=root, capture_output=True,
                                 text=True, timeout=30, check=False)
        known = subprocess.run(["git", "cat-file", "-e", f"{SPLIT_COMMIT}^{{commit}}"], cwd=root,
                               capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"git could not be run ({exc})"
    if shallow.returncode != 0:
        return "this is not a git checkout"
    if shallow.stdout.strip() == "true":
        return "this is a shallow clone (fetch the whole history: git fetch --unshallow)"
    if known.returncode != 0:
        return f"the commit that drew the split ({SPLIT_COMMIT}) is not in this clone's history"
    return ""


def commits_since(date: str, root: Path = ROOT) -> list[Commit]:
    """Every commit after ``date``, with its committer time, message and changed files."""
    out = subprocess.run(["git", "log", f"--since={date}", "--name-only", "--format=%x1e%h%x1f%cI%x1f%B%x1f"],
                         cwd=root, capture_output=True, text=True, timeout=120, check=True).stdout
    commits = []
    for chunk in out.split("\x1e")[1:]:
        sha, when, message, files = (chunk.split("\x1f") + ["", "", "", ""])[:4]
        commits.append(Commit(sha.strip()[:7], when.strip(), message, tuple(f for f in files.split() if f)))
    return commits


def names(commit: Commit, program: str) -> bool:
    return program in commit.message or any(f.startswith(f"benchmark/corpus/{program}/") for f in commit.files)


def _before(when: str, moved: str) -> bool:
    try:
        return datetime.fromisoformat(when) < datetime.fromisoformat(moved)
    except ValueError:
        return True  # a move without a readable time seals nothing


def unrecorded(split: Split, commits: list[Commit]) -> list[tuple[str, str]]:
    """(commit, program) for each commit that named a program while it was in the test half and split.md misses."""
    sealed = [(p, "") for p in split.test] + list(split.moved.items())
    missing = []
    for c in commits:
        for program, moved in sealed:
            if names(c, program) and (not moved or _before(c.when, moved)) and c.sha[:7] not in split.recorded:
                missing.append((c.sha[:7], program))
    return missing


def main(argv: list[str] | None = None) -> int:
    why = history_missing()
    if why:
        print(f"The split cannot be checked here: {why}.", file=sys.stderr)
        return 3
    split = read_split()
    missing = unrecorded(split, commits_since(split.date))
    for sha, program in missing:
        print(f"{sha} names {program} while it was in the test half: record it in benchmark/split.md "
              "(and move the program to the tune half).")
    if not missing:
        print(f"sealed: every commit since {split.date} that named a test-half program is in benchmark/split.md "
              f"(test half now: {', '.join(split.test) or 'none'}).")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
