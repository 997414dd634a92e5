"""The work of File › Export run…, Import bundle… and Export HTML report…, each returning what it changed.

Qt-free: each function is the body of a long task (run off the GUI thread on a
connection of its own, :mod:`app.views.model.task_databases`).  The engine
function is passed in, resolved by the caller when the menu entry is used, so
the workbench still opens when one of them is missing."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from app.views.model.changes import NOTHING, Changes, run_added
from app.views.model.database import Database

TransferWork = Callable[[Database], Changes]
"""A transfer's work on the task's own database: what it changed."""


def exporting(write: Callable[..., Any], run_id: int, path: Path) -> TransferWork:
    """Write run ``run_id`` to ``path`` with ``write(store, run_id, path)`` (a bundle, a report): a file is
    written, the database is not changed."""
    def work(database: Database) -> Changes:
        write(database.store, run_id, path)
        return NOTHING
    return work


def importing(read: Callable[..., Any], path: Path) -> TransferWork:
    """Add the run of the bundle at ``path`` with ``read(store, path) -> run id``: the list has a new run."""
    def work(database: Database) -> Changes:
        run_id = read(database.store, path)
        return run_added(int(run_id)) if isinstance(run_id, int) else NOTHING
    return work
