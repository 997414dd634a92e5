"""The engine children of a bench: each in its own process group, each dying with the bench, all stopped on Ctrl-C.

A bench runs its calls on a few worker threads (:func:`run_batch`); a call
that starts a child does it through :func:`spawn`, which files the child with
the batch of the calling thread.  Every child gets ``PR_SET_PDEATHSIG =
SIGKILL`` (a ``kill -9`` of the bench takes its children with it; their own
children, Xvfb and targets, die with them the same way) and a process group
of its own, so a terminal's Ctrl-C reaches only the bench, which then
cancels what has not started, sends every running child SIGTERM (each closes
its run as stopped), waits :data:`STOP_GRACE_S` and kills what is left.
Worker threads are daemons: a call that does not start a child (a unit-test
run in the sandbox) cannot hold the interrupted bench open.
"""

from __future__ import annotations

import functools
import os
import queue
import signal
import subprocess
import threading
import time
from typing import Any, Callable, Sequence

from app.engine.play.display import die_with_parent

STOP_GRACE_S = 5.0
"""How long an interrupted child has to close its run before it is killed."""
POLL_S = 0.2
_local = threading.local()


class ChildBatch:
    """The children started by one :func:`run_batch`; closed to new ones once cancelled."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()
        self._lock = threading.Lock()
        self._procs: set[subprocess.Popen[str]] = set()

    def popen(self, cmd: list[str], **kw: Any) -> subprocess.Popen[str] | None:
        with self._lock:
            if self.cancelled.is_set():
                return None
            proc = _popen(cmd, **kw)
            self._procs.add(proc)
            return proc

    def forget(self, proc: subprocess.Popen[str]) -> None:
        with self._lock:
            self._procs.discard(proc)

    def cancel(self, grace_s: float = STOP_GRACE_S) -> None:
        """No new children; SIGTERM to the running ones, SIGKILL to those still there after ``grace_s``."""
        with self._lock:
            self.cancelled.set()
            procs = list(self._procs)
        stop_all(procs, grace_s)


def _popen(cmd: list[str], **kw: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(cmd, process_group=0, preexec_fn=functools.partial(die_with_parent, os.getpid()),
                            text=True, **kw)


def spawn(cmd: list[str], **kw: Any) -> subprocess.Popen[str] | None:
    """Start an engine child for the calling thread's batch; None when that batch was cancelled."""
    batch: ChildBatch | None = getattr(_local, "batch", None)
    if batch is None:
        return _popen(cmd, **kw)
    return batch.popen(cmd, **kw)


def forget(proc: subprocess.Popen[str]) -> None:
    batch: ChildBatch | None = getattr(_local, "batch", None)
    if batch is not None:
        batch.forget(proc)


def stop_all(procs: Sequence[subprocess.Popen[str]], grace_s: float = STOP_GRACE_S) -> None:
    """SIGTERM each child's process group, then SIGKILL whatever is left after ``grace_s``."""
    for proc in procs:
        _signal_group(proc, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    for proc in procs:
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for proc in procs:
        if proc.poll() is None:
            _signal_group(proc, signal.SIGKILL)
            try:
                proc.wait(grace_s)
            except subprocess.TimeoutExpired:
                pass


def _signal_group(proc: subprocess.Popen[str], sig: int) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def run_batch(calls: Sequence[Callable[[], Any]], jobs: int,
              on_done: Callable[[int, Any], None] | None = None) -> list[Any]:
    """Run the calls on ``jobs`` daemon threads; results in call order; ``on_done(index, result)`` as each ends.

    An exception from a call, or a KeyboardInterrupt (Ctrl-C, SIGTERM) in the caller,
    cancels the calls not started, stops the children of those running, and is raised."""
    results: list[Any] = [None] * len(calls)
    if not calls:
        return results
    batch = ChildBatch()
    todo: queue.SimpleQueue[tuple[int, Callable[[], Any]]] = queue.SimpleQueue()
    done: queue.SimpleQueue[tuple[int, Any, BaseException | None]] = queue.SimpleQueue()
    for item in enumerate(calls):
        todo.put(item)

    def work() -> None:
        _local.batch = batch
        while not batch.cancelled.is_set():
            try:
                i, call = todo.get_nowait()
            except queue.Empty:
                return
            try:
                done.put((i, call(), None))
            except BaseException as exc:  # handed to the caller's thread, which raises it
                done.put((i, None, exc))

    threads = [threading.Thread(target=work, name=f"bench-job-{n}", daemon=True)
               for n in range(min(jobs, len(calls)))]
    for t in threads:
        t.start()
    try:
        for _ in range(len(calls)):
            while True:
                try:
                    i, value, exc = done.get(timeout=POLL_S)
                    break
                except queue.Empty:
                    continue
            if exc is not None:
                raise exc
            results[i] = value
            if on_done is not None:
                on_done(i, value)
    except BaseException:
        batch.cancel()
        deadline = time.monotonic() + STOP_GRACE_S
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
        raise
    return results
