"""RunListWatcher: notice that the database changed — in any process — and re-read the run list off the GUI thread.

The run list must follow runs written by the command line, ``playcoder bench``
or a live run alike, without costing the GUI thread: a timer asks SQLite's
``PRAGMA data_version`` on a connection of the watcher's own (a few
microseconds; it changes only when another connection committed), and only
then the list is read in ONE query through the workbench's long-work helper,
on a pool thread with its own connection, and compared there with the rows
the list shows (:func:`diff_runs`), so the GUI thread only applies what
changed (:attr:`RunListWatcher.sig_runs_read`).

The first read is the whole list (``store.run_list``); later ones ask only
for the runs that can have changed since the last (``store.run_list_changes``:
new runs, runs not ended, runs with new steps or judgments), so following a
5,000-run database costs a few index lookups per change, not 5,000 rows.
Every :data:`FULL_READ_EVERY` reads the whole list is read again anyway.
One read is in flight at a time; a change seen meanwhile is read right after.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import QObject, Signal

from app.views.model.database import RunListMark
from app.views.browser.runs_model import RunsDelta, diff_runs
from app.views.widgets.change_probe import POLL_MS, DatabaseChangeProbe
from app.views.widgets.long_task import LongTask, TaskControl, run_long_task

log = logging.getLogger(__name__)

FULL_READ_EVERY = 50
"""After this many reads of the changes, the whole list is read (and compared) again."""
Baseline = Callable[[], tuple[int, dict[int, dict[str, Any]]]]
"""(generation, rows by id) of what the list shows now: what a read is compared with."""


@dataclass(frozen=True)
class RunListRead:
    """One read of the whole list, and how it differs from the rows shown when the read began."""

    generation: int
    """The list's generation the delta was computed against; another one means the delta is stale."""
    rows: list[dict[str, Any]]
    """The whole list (``complete``) or the runs that may have changed."""
    delta: RunsDelta
    has_bugs: bool
    """Some run of ``rows`` names a bug variant."""
    complete: bool
    mark: RunListMark


class RunListWatcher(QObject):
    sig_runs_read = Signal(object)
    """Emitted with a :class:`RunListRead` (read and compared off the GUI thread) after the database changed."""

    def __init__(self, parent: QObject | None = None, *, baseline: Baseline | None = None,
                 interval_ms: int = POLL_MS) -> None:
        super().__init__(parent)
        self._baseline: Baseline = baseline or (lambda: (0, {}))
        self.probe = DatabaseChangeProbe(self, interval_ms=interval_ms)
        self.probe.sig_changed.connect(self.read_now)
        self._task: LongTask | None = None
        self._again = False
        self._mark: RunListMark | None = None
        self._since_full = 0
        self.reads = 0
        """Reads of the list done so far (tests and the benchmark count them)."""

    @property
    def path(self) -> Path | None:
        return self.probe.path

    @property
    def busy(self) -> bool:
        """True while a read is in flight."""
        return self._task is not None and self._task.running

    def watch(self, path: Path | None) -> None:
        """Follow the database at ``path`` (None: nothing)."""
        self.stop()
        self.probe.watch(path)

    def stop(self) -> None:
        """Stop watching; a read in flight is cancelled and waited for."""
        self.probe.stop()
        self._again = False
        self._mark = None
        task, self._task = self._task, None
        if task is not None and task.running:
            task.sig_finished.disconnect(self._on_task_finished)
            task.cancel()
            task.wait()

    def check_now(self) -> bool:
        """Look at the database now (the probe does this every :data:`POLL_MS`); True when it changed."""
        return self.probe.check_now()

    def read_now(self) -> None:
        """Re-read the whole list off the GUI thread (after the current read, when one is going)."""
        path = self.probe.path
        if path is None:
            return
        if self._task is not None and self._task.running:
            self._again = True
            return

        generation, known = self._baseline()
        since = self._mark if self._since_full < FULL_READ_EVERY else None

        def read(control: TaskControl) -> RunListRead:
            rows, mark = control.open_database(path, readonly=True).run_list_changes(since)
            complete = since is None
            return RunListRead(generation, rows, diff_runs(known, rows, complete=complete),
                               any(r.get("bug") for r in rows), complete, mark)

        self._task = run_long_task(read, what="read the runs", label="Reading the runs…", dialog=False,
                                   on_finished=self._on_task_finished, on_failed=self._on_task_failed)

    def seed(self, mark: RunListMark) -> None:
        """The rows shown were just read whole (up to ``mark``): the next read asks only for later changes."""
        if self._task is None or not self._task.running:
            self._mark = mark
            self._since_full = 0

    def forget(self) -> None:
        """The next read is of the whole list (the rows shown were replaced meanwhile)."""
        self._mark = None

    def _on_task_finished(self, read: RunListRead) -> None:
        self._task = None
        self.reads += 1
        self._mark = read.mark
        self._since_full = 0 if read.complete else self._since_full + 1
        self.sig_runs_read.emit(read)
        if self._again:
            self._again = False
            self.read_now()

    def _on_task_failed(self, message: str) -> None:
        self._task = None
        self.probe.forget()  # read again at the next look
        self._mark = None
        log.warning("could not re-read the runs: %s", message)  # a writer holding the file: the next change retries
        if self._again:
            self._again = False
            self.read_now()
