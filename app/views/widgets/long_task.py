"""LongTask: the one way the workbench runs long work — off the GUI thread, with progress and cancel.

Export, import, HTML reports and agreement statistics all go through it (one helper for all long
work, as Anki's QueryOp), so each gets the same behaviour:

- the work is a plain function ``work(control) -> result`` run on a pool
  thread; it never touches a widget, and opens its own database connection
  (:meth:`TaskControl.open_database`) instead of sharing the GUI's;
- a progress dialog appears only when the work takes longer than
  :data:`SHOW_AFTER_MS`, busy until the work reports a count;
- *Cancel* sets a :class:`threading.Event` that the work checks
  (:meth:`TaskControl.check`, :meth:`TaskControl.progress`); every statement
  of a database opened through the control is aborted too, so work that sits in
  a long query stops there, and a write transaction rolls back whole;
- while any work runs, the interpreter hands the GIL between threads every
  :data:`SWITCH_INTERVAL_S` instead of Python's 5 ms, so the GUI thread, which
  needs the GIL for every Python slot and paint, never waits long behind it;
- the outcome comes back on the GUI thread as exactly one of
  :attr:`LongTask.sig_finished` (the result), :attr:`LongTask.sig_failed`
  (one sentence, never a traceback) or :attr:`LongTask.sig_cancelled`.
"""

from __future__ import annotations

import functools
import logging
import sys
import threading
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from app.engine.errors import UserError
from app.views.model.database import Database
from app.views.model.task_databases import TaskDatabases

log = logging.getLogger(__name__)

SHOW_AFTER_MS = 400
"""Work shorter than this finishes without a dialog flashing up."""
WAIT_ON_CLOSE_MS = 5000
"""Closing the workbench cancels running work and waits this long for it to let go of its files."""
SWITCH_INTERVAL_S = 0.001
"""GIL switch interval while background work runs (Python's default, 5 ms, restored after): the GUI thread
takes the GIL many times per event, and each time may wait this long behind the work."""
FINISHED, FAILED, CANCELLED = "finished", "failed", "cancelled"
"""The three outcomes of a piece of work (:attr:`LongTask.outcome`)."""
_RUNNING: set[LongTask] = set()
"""Tasks whose worker may still emit: kept alive here until their outcome arrived on the GUI thread."""
_default_switch_interval: float | None = None
_pool: QThreadPool | None = None


def work_pool() -> QThreadPool:
    """The pool long work runs on: its own, not Qt's global one.  (Its threads keep their normal OS
    priority: a lowered one holding the GIL would keep the GUI thread waiting behind it.)"""
    global _pool
    if _pool is None:
        _pool = QThreadPool()
        _pool.setObjectName("LongTaskPool")
    return _pool


def _track(task: LongTask, running: bool) -> None:
    """Keep ``task`` alive while it runs; the first running task shortens the GIL switch interval, the last
    one to end restores it."""
    global _default_switch_interval
    if running:
        if not _RUNNING:
            _default_switch_interval = sys.getswitchinterval()
            sys.setswitchinterval(min(SWITCH_INTERVAL_S, _default_switch_interval))
        _RUNNING.add(task)
    elif task in _RUNNING:
        _RUNNING.discard(task)
        if not _RUNNING and _default_switch_interval is not None:
            sys.setswitchinterval(_default_switch_interval)
            _default_switch_interval = None


class TaskCancelled(Exception):
    """Raised inside the work by :meth:`TaskControl.check` once the user cancelled."""


class TaskControl:
    """What the work function is handed: the cancel flag, progress reports, private database connections."""

    def __init__(self, report: Callable[[int, int, str], None]) -> None:
        self._cancel = threading.Event()
        self._report = report
        self._databases = TaskDatabases(self._cancel.is_set)

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def cancel(self) -> None:
        self._cancel.set()

    def check(self) -> None:
        """Raise :class:`TaskCancelled` when the user cancelled; call it between pieces of work."""
        if self._cancel.is_set():
            raise TaskCancelled()

    def progress(self, done: int, total: int = 0, text: str = "") -> None:
        """Report ``done`` of ``total`` (0: unknown) with an optional line of text; also a cancel checkpoint."""
        self.check()
        self._report(int(done), int(total), text)

    def open_database(self, path: Path, *, readonly: bool = False) -> Database:
        """A connection of this work's own, closed when the work ends; its statements stop on cancel."""
        return self._databases.open(path, readonly=readonly)

    def close_databases(self) -> None:
        self._databases.close_all()


def failure_sentence(what: str, exc: BaseException) -> str:
    """One sentence for a failed piece of work: the engine's own for user errors, a short one otherwise."""
    if isinstance(exc, UserError):
        return str(exc)
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        return f"Could not {what} ({exc.strerror or exc}{where}); choose another file or folder."
    return f"Could not {what}: {type(exc).__name__}: {exc}. The details are in the workbench log."


class _Relay(QObject):
    """Lives on the GUI thread; the worker emits through it, so every slot runs on the GUI thread."""

    sig_done = Signal(str, object)
    sig_progressed = Signal(int, int, str)

    def send(self, signal: str, *args: Any) -> None:
        """Emit from the worker; when the application is being torn down (a signal, a quit) and took the relay
        with it, there is nobody left to tell, and the worker ends quietly instead of printing a traceback."""
        try:
            getattr(self, signal).emit(*args)
        except RuntimeError:  # "Signal source has been deleted"
            log.debug("the workbench closed before %s reached it", signal)


class _Runner(QRunnable):
    def __init__(self, work: Callable[[TaskControl], Any], control: TaskControl, relay: _Relay, what: str) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self._work, self._control, self._relay, self._what = work, control, relay, what
        self.done = threading.Event()

    def run(self) -> None:
        outcome: tuple[str, Any]
        try:
            outcome = (FINISHED, self._work(self._control))  # done is done, even when a cancel came late
        except BaseException as exc:  # noqa: BLE001 - every outcome must reach the GUI thread
            if self._control.cancelled or isinstance(exc, TaskCancelled):
                outcome = (CANCELLED, None)
            else:
                if not isinstance(exc, (UserError, OSError)):
                    log.error("background work failed: %s", self._what, exc_info=exc)
                outcome = (FAILED, failure_sentence(self._what, exc))
        finally:
            self._control.close_databases()
        self._relay.send("sig_done", *outcome)  # queued: posts the outcome to the GUI thread, never waits
        self.done.set()  # last: whoever waits on it (a closing window) finds the worker with nothing left to do


class LongTask(QObject):
    sig_finished = Signal(object)
    """Emitted with the work's result when it ended normally."""
    sig_failed = Signal(str)
    """Emitted with one sentence when the work raised (what to do, never a traceback)."""
    sig_cancelled = Signal()
    """Emitted when the work stopped because the user cancelled."""
    sig_progressed = Signal(int, int, str)
    """Emitted with (done, total, text) as the work reports progress (total 0: unknown)."""

    def __init__(self, work: Callable[[TaskControl], Any], *, what: str, label: str, parent: QWidget | None = None,
                 show_after_ms: int = SHOW_AFTER_MS, dialog: bool = True) -> None:
        """``what`` completes "Could not …" in a failure sentence; ``label`` is the dialog's first line.

        ``parent`` owns the dialog, not the task: the task outlives a closed window until its worker let go,
        and when ``parent`` is destroyed the work is cancelled and its outcome is dropped."""
        super().__init__(None)
        self.what = what
        self.label = label
        self._work = work
        self._relay = _Relay(self)
        self._relay.sig_done.connect(self._on_relay_done)
        self._relay.sig_progressed.connect(self._on_relay_progressed)
        self.control = TaskControl(functools.partial(self._relay.send, "sig_progressed"))
        self._runner: _Runner | None = None
        self.outcome: str | None = None
        """None while running; then :data:`FINISHED`, :data:`FAILED` or :data:`CANCELLED`."""
        self.dialog: QProgressDialog | None = None
        self._owner_gone = False
        if parent is not None:
            parent.destroyed.connect(self._on_owner_destroyed)
        if dialog:
            self.dialog = QProgressDialog(label, "Cancel", 0, 0, parent)
            self.dialog.setWindowTitle(label.rstrip("…. "))
            self.dialog.setMinimumDuration(show_after_ms)
            self.dialog.setAutoClose(False)
            self.dialog.setAutoReset(False)
            self.dialog.canceled.connect(self.cancel)
            self.dialog.setValue(0)  # starts the show-after timer

    @property
    def running(self) -> bool:
        return self._runner is not None and self.outcome is None

    def start(self) -> LongTask:
        if self._runner is not None:
            raise RuntimeError("a LongTask runs once")
        self._runner = _Runner(self._work, self.control, self._relay, self.what)
        _track(self, True)
        work_pool().start(self._runner)
        return self

    def cancel(self) -> None:
        """Ask the work to stop (it stops at its next check or store statement)."""
        if self.outcome is None:
            self.control.cancel()
            if self.dialog is not None:
                self.dialog.setLabelText("Cancelling…")

    def wait(self, timeout_ms: int = WAIT_ON_CLOSE_MS) -> bool:
        """Block until the worker thread let go (not the GUI-thread signal); True when it did."""
        runner = self._runner
        return runner is None or runner.done.wait(timeout_ms / 1000)

    def _on_relay_progressed(self, done: int, total: int, text: str) -> None:
        if self.dialog is not None and self.outcome is None:
            if total > 0:
                self.dialog.setMaximum(total)
                self.dialog.setValue(min(done, total))
            if text:
                self.dialog.setLabelText(f"{self.label}\n{text}")
        self.sig_progressed.emit(done, total, text)

    def _on_owner_destroyed(self) -> None:
        self._owner_gone = True
        self.dialog = None  # destroyed with its parent
        self.cancel()

    def _on_relay_done(self, outcome: str, value: Any) -> None:
        self.outcome = outcome
        if self.dialog is not None:
            dialog, self.dialog = self.dialog, None
            dialog.canceled.disconnect(self.cancel)
            dialog.reset()
            dialog.hide()
            dialog.deleteLater()
        if self._owner_gone:
            _track(self, False)
            return
        if outcome == FINISHED:
            self.sig_finished.emit(value)
        elif outcome == FAILED:
            self.sig_failed.emit(str(value))
        else:
            self.sig_cancelled.emit()
        _track(self, False)


def running_tasks() -> list[LongTask]:
    """Work still going (the main window cancels and waits for it when it closes)."""
    return [task for task in _RUNNING if task.outcome is None]


def run_long_task(work: Callable[[TaskControl], Any], *, what: str, label: str, parent: QWidget | None = None,
                  on_finished: Callable[[Any], None] | None = None, on_failed: Callable[[str], None] | None = None,
                  on_cancelled: Callable[[], None] | None = None, dialog: bool = True) -> LongTask:
    """Start ``work`` on a pool thread with a progress dialog; the callbacks run on the GUI thread."""
    task = LongTask(work, what=what, label=label, parent=parent, dialog=dialog)
    if on_finished is not None:
        task.sig_finished.connect(on_finished)
    if on_failed is not None:
        task.sig_failed.connect(on_failed)
    if on_cancelled is not None:
        task.sig_cancelled.connect(on_cancelled)
    return task.start()
