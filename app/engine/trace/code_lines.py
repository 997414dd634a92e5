"""What the workbench's Code tab shows for one step of a run: each line's mark and where the source is.

The run records, per step, only the lines reached *for the first time* at that
step (:mod:`app.engine.trace.coverage`): a line run again later is not recorded
again.  So a step's picture of a file is four kinds of line — reached first at
this step, reached before it (the start-up included), reached first at a later
step, and executable lines the run never reached — and the Code tab colours
them so.  Qt-free, so the marks can be tested without a display.

The source is read from the run's target folder only when that folder still
holds what was played (its content hash is the run's recorded ``target_rev``);
otherwise line numbers alone are shown, with the sentence :func:`run_source` gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from app.engine.errors import UserError

NEW, BEFORE, LATER, NEVER = "new", "before", "later", "never"
"""A line's mark at one step: first reached here, reached earlier, reached at a later step, never reached."""


@dataclass(frozen=True)
class RunSource:
    """Where a run's program source can be read (``folder`` None: it cannot, and ``why`` says so)."""

    folder: Path | None
    why: str = ""

    def text(self, file: str) -> str | None:
        """The file's text, or None when the source is not available or the file cannot be read."""
        if self.folder is None:
            return None
        path = (self.folder / file).resolve()
        if not path.is_relative_to(self.folder.resolve()) or not path.is_file():
            return None
        try:
            return path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None


def run_source(target_path: str | None, target_rev: str | None, bug: str | None = None, *,
               revision: Callable[[Path], str]) -> RunSource:
    """The run's target folder if it still holds the recorded revision, else why it cannot be shown.
    ``revision``: the folder's content hash as the run recorded it (the target spec's, which lives in
    play/, a layer trace/ does not import: the caller passes it)."""

    if not target_path or not Path(target_path).is_dir():
        return RunSource(None, f"The run's target folder {target_path or '(not recorded)'} no longer exists, "
                               "so only line numbers are shown.")
    try:
        now = revision(Path(target_path))
    except (UserError, OSError) as exc:
        return RunSource(None, f"The target folder cannot be read ({exc}); only line numbers are shown.")
    if target_rev and now != target_rev:
        if bug:
            return RunSource(None, f"The run played planted bug '{bug}' on a copy of {target_path}; the folder "
                                   "holds other source, so only line numbers are shown.")
        return RunSource(None, f"{target_path} changed since the run (revision {target_rev}, now {now}); "
                               "only line numbers are shown.")
    return RunSource(Path(target_path))


def line_marks(steps: Mapping[int, Mapping[str, list[int]]], total: tuple[int, ...], file: str,
               step: int) -> dict[int, str]:
    """Each executable or reached line of ``file`` at ``step``: NEW, BEFORE, LATER or NEVER."""
    marks = {n: NEVER for n in total}
    for when in sorted(steps):
        mark = NEW if when == step else BEFORE if when < step else LATER
        for n in steps[when].get(file, ()):
            marks[n] = mark
    return marks


def first_here(steps: Mapping[int, Mapping[str, list[int]]], file: str, step: int) -> int:
    """How many lines of ``file`` the run reached first at ``step``."""
    return len(steps.get(step, {}).get(file, ()))
