"""Run many ``playcoder test`` child processes in parallel for the benchmarks.

Each run is ``python -m app test TARGET --json ...`` in its own process, so
each has its own private Xvfb, its own target and crash isolation, and J of
them go in parallel from a thread pool (the threads only wait on children).
Children die with the bench and stop together on Ctrl-C (:mod:`app.engine.bench.children`).

Database choice: every child writes to the *same* SQLite file, in WAL mode.
The store opens every write with ``BEGIN IMMEDIATE`` and waits up to 10 s
(busy_timeout) for the lock; a step's transaction takes milliseconds, so J
writers at a few steps per second each never come near that wait, and all
benchmark trajectories land in one file that the workbench can browse and
replay next to ordinary runs.  The parent opens (and so migrates) the file
once before any child starts, so a bad --db is one error, not one per child
(opening migrates under the write lock, so children could race safely anyway).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from app.engine.bench import children
from app.engine.errors import UserError
from app.engine.judge.verdict import is_answer
from app.engine.testers.registry import spec
from app.engine.trace.store import TrajectoryStore

ROOT = Path(__file__).resolve().parents[3]
CHILD_TIMEOUT_S = 900.0
"""A child that runs longer than this is stopped (SIGTERM, then SIGKILL) and counted as an error."""
TERM_GRACE_S = 15.0


@dataclass(frozen=True)
class ChildRun:
    """What one ``playcoder test`` child reported (its last stdout line) and how long it took."""

    target: str
    seed: int
    verdict: str
    status: str
    steps: int
    seconds: float
    run_id: int | None
    reason: str = ""
    error: str = ""
    findings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def judged(self) -> bool:
        """The tester answered (pass or fail); error and uncertain runs are no answer."""
        return is_answer(self.verdict)


def prepare_db(db: Path) -> None:
    """Create and migrate the database before children write to it (see the module docstring)."""
    TrajectoryStore(db).close()


def run_child(target: str, *, tester: str, max_steps: int, seed: int, db: Path,
              timeout_s: float = CHILD_TIMEOUT_S, reference: str | None = None,
              duration_s: float | None = None, no_script: bool = False) -> ChildRun:
    """One ``python -m app test`` run; never raises for a failing child (it becomes an 'error' run).

    ``reference``: for the differential tester, the program to compare with.  ``duration_s``: play for that
    long (``--duration``, steps unbounded) instead of ``max_steps`` steps; the timeout grows by as much.
    ``no_script``: the differential tester plays no ``[[script]]`` steps first (``--no-script``).
    """
    bound = ["--duration", f"{duration_s:g}"] if duration_s is not None else ["--max-steps", str(max_steps)]
    cmd = [sys.executable, "-m", "app", "test", target, "--tester", tester, *bound,
           "--seed", str(seed), "--json", "--db", str(db)]
    plays_reference = spec(tester).plays_reference
    if reference is not None and plays_reference:
        cmd += ["--reference", reference]
    if no_script and plays_reference:
        cmd.append("--no-script")
    if duration_s is not None:
        timeout_s += duration_s
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    t0 = time.monotonic()
    proc = children.spawn(cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
    if proc is None:  # the bench was interrupted before this run started
        return ChildRun(target, seed, "error", "cancelled", 0, 0.0, None, error="the bench was interrupted")
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        children.stop_all([proc], TERM_GRACE_S)
        out, err = proc.communicate()
        return ChildRun(target, seed, "error", "timeout", 0, time.monotonic() - t0, None,
                        error=f"the run took longer than {timeout_s:g} s and was stopped")
    except BaseException:  # Ctrl-C with the child started from this thread: it must not outlive us
        children.stop_all([proc])
        raise
    finally:
        children.forget(proc)
    seconds = time.monotonic() - t0
    summary = _last_json(out)
    if summary is None:
        last = next((line for line in reversed(err.splitlines()) if line.strip()), "no output")
        return ChildRun(target, seed, "error", "error", 0, seconds, None, error=last.strip()[:500])
    return ChildRun(
        target, seed, str(summary.get("verdict") or "error"), str(summary.get("status") or "error"),
        int(summary.get("steps") or 0), seconds, summary.get("run_id"), str(summary.get("reason") or ""),
        str(summary.get("error") or ""), list(summary.get("findings") or []),
    )


def _last_json(out: str) -> dict[str, Any] | None:
    for line in reversed(out.strip().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        return value if isinstance(value, dict) else None
    return None


def run_parallel(calls: Sequence[Callable[[], Any]], jobs: int,
                 on_done: Callable[[int, Any], None] | None = None) -> list[Any]:
    """Run the calls on ``jobs`` threads; results in call order; ``on_done(index, result)`` as each ends.

    Ctrl-C (or SIGTERM) cancels the calls not started and stops the running children
    within seconds (:func:`app.engine.bench.children.run_batch`)."""
    if jobs < 1:
        raise UserError("--jobs must be at least 1.")
    return children.run_batch(calls, jobs, on_done)
