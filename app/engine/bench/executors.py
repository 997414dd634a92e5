"""Where a benchmark's runs play: child processes on this machine, or tasks on a Ray cluster.

``bench detect``, ``bench play`` and ``benchmark/repair_rate.py`` give an executor their tasks and get one result
per task back, in task order, with ``on_done(index, result)`` called as each ends; by then the task's runs are in
the head's database.

- :class:`LocalExecutor` (``--executor local``, the default): ``--jobs`` ``playcoder test`` children here, all
  writing to the head's database (:func:`app.engine.bench.jobs.run_parallel`).
- :class:`RayExecutor` (``--executor ray``): each task runs the same child inside a Ray task on whichever node Ray
  picks, with its own private Xvfb and a task-local database (:mod:`app.engine.bench.ray_tasks`), and comes back
  as trace bundles.  The head imports them as they arrive (a ``ray.wait`` loop), so the workbench browses a
  cluster benchmark while it runs.  ``--ray-address`` joins a running cluster; without it a local Ray instance
  with ``--jobs`` CPUs is started and stopped with the bench.

Failures: a task whose worker or node dies, or that ends without a trajectory, runs once more (Ray's
``max_retries`` and ``retry_exceptions``); a task that fails twice becomes an error row that says why, never a
lost one.  Ray is an optional extra (``pip install ".[ray]"``), imported only by :class:`RayExecutor`.  Every node
needs PlayCoder installed, Xvfb, and its own API keys for the llm tester: the head never sends secrets.
"""

from __future__ import annotations

import functools
import importlib
import socket
import statistics
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

from app.engine.bench import ray_tasks
from app.engine.bench.jobs import ChildRun, prepare_db, run_child, run_parallel
from app.engine.bench.ray_tasks import CommandTask, PlayTask, TaskOutcome
from app.engine.errors import StoreError, UserError
from app.engine.trace.bundle import BundleError, import_bundle
from app.engine.trace.store import TrajectoryStore

__all__ = ["CommandResult", "CommandTask", "Executor", "LocalExecutor", "PlayTask", "RayExecutor", "make_executor"]

EXECUTORS = ("local", "ray")
RAY_TASK_RETRIES = 1
"""A Ray task runs at most 1 + this many times (worker or node death, no trajectory); then it is an error row."""
RAY_TASK_CPUS = 1.0
"""What one task reserves on its node: a target, its Xvfb and the engine, as one ``--jobs`` slot does here."""
RAY_WAIT_S = 0.5
"""How long the head waits for finished tasks before it looks again (also how soon it answers Ctrl-C)."""
RAY_WAIT_BATCH = 32
RAY_CONNECT_S = 10.0
"""How long ``--ray-address`` may take to accept a connection before the bench says it is unreachable."""
RAY_MISSING = ('Ray is not installed; install it with pip install "playcoder-workbench[ray]" '
               '(pip install ".[ray]" in a checkout), or use --executor local.')
T = TypeVar("T")


@dataclass(frozen=True)
class CommandResult:
    """A command task as the head sees it: the child's output, and its runs under their ids in the head's database."""

    exit_code: int
    stdout: str
    stderr: str
    seconds: float
    run_ids: dict[int, int]
    """the run's id in the task's database -> its id in the head's"""
    files: dict[str, bytes]
    node: str = ""
    error: str = ""
    """Why there is no result (the task failed twice, or its bundle was refused); '' when there is one."""


class Executor:
    """Plays tasks and puts their runs in the head's database; a context manager (Ray is stopped on exit)."""

    name = ""

    def play(self, tasks: Sequence[PlayTask], db: Path,
             on_done: Callable[[int, ChildRun], None] | None = None) -> list[ChildRun]:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        """How the runs were played, for the bench's JSON and its closing line."""
        return {"executor": self.name}

    def close(self) -> None:
        """Release what the executor holds (nothing, locally)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalExecutor(Executor):
    """``jobs`` children at a time on this machine, all writing to the head's database (WAL)."""

    name = "local"

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs

    def play(self, tasks: Sequence[PlayTask], db: Path,
             on_done: Callable[[int, ChildRun], None] | None = None) -> list[ChildRun]:
        prepare_db(db)
        calls = [functools.partial(run_child, t.target, tester=t.tester, max_steps=t.max_steps, seed=t.seed, db=db,
                                   reference=t.reference, duration_s=t.duration_s, no_script=t.no_script)
                 for t in tasks]
        return run_parallel(calls, self.jobs, on_done)

    def describe(self) -> dict[str, Any]:
        return {"executor": self.name, "jobs": self.jobs}


@dataclass
class _TaskStat:
    node: str
    task_s: float
    child_s: float
    import_s: float
    bundle_bytes: int


class RayExecutor(Executor):
    """Tasks on a Ray cluster (``address``), or on a local Ray instance with ``local_cpus`` CPUs when it is None."""

    name = "ray"

    def __init__(self, address: str | None = None, local_cpus: int = 1) -> None:
        try:
            self._ray: Any = importlib.import_module("ray")
        except ImportError as exc:
            raise UserError(RAY_MISSING) from exc
        self.address = address
        if address:
            _check_reachable(address)
        t0 = time.monotonic()
        quiet = {"logging_level": "WARNING", "log_to_driver": False}
        try:
            if address:
                self._ray.init(address=address, **quiet)
            else:
                self._ray.init(address="local", num_cpus=local_cpus, include_dashboard=False, **quiet)
        except Exception as exc:  # noqa: BLE001 - Ray raises many kinds here (auth, version, timeout): one sentence
            where = f"the Ray cluster at {address}" if address else "a local Ray instance"
            raise UserError(f"could not start or reach {where} ({str(exc).splitlines()[0] if str(exc) else exc!r}); "
                            "check --ray-address (start a cluster with `ray start --head`) or use --executor local.") \
                from exc
        self.startup_s = time.monotonic() - t0
        self._stats: list[_TaskStat] = []
        self._failed = 0

    # -- the two kinds of task ------------------------------------------------------------
    def play(self, tasks: Sequence[PlayTask], db: Path,
             on_done: Callable[[int, ChildRun], None] | None = None) -> list[ChildRun]:
        remote = self._remote(ray_tasks.play_in_task)
        refs = [remote.remote(ray_tasks.portable(t)) for t in tasks]

        def finish(store: TrajectoryStore, i: int, outcome: TaskOutcome | None, error: str) -> ChildRun:
            task = tasks[i]
            if outcome is None or outcome.child is None:
                return self._error_run(task, f"the Ray task failed {1 + RAY_TASK_RETRIES} times: {error}")
            try:
                ids = self._import(store, outcome)
            except (BundleError, StoreError) as exc:
                return self._error_run(task, f"the head refused the run's bundle: {exc}", outcome.child.seconds)
            return replace(outcome.child, target=task.target, run_id=ids.get(outcome.child.run_id or -1))

        return self._gather(refs, db, finish, on_done)

    def commands(self, tasks: Sequence[CommandTask], db: Path,
                 on_done: Callable[[int, CommandResult], None] | None = None) -> list[CommandResult]:
        """Run ``python -m app …`` commands as tasks (the repair-rate benchmark); their runs land in ``db``."""
        remote = self._remote(ray_tasks.command_in_task)
        refs = [remote.remote(t) for t in tasks]

        def finish(store: TrajectoryStore, i: int, outcome: TaskOutcome | None, error: str) -> CommandResult:
            if outcome is None:
                self._failed += 1
                return CommandResult(-1, "", "", 0.0, {}, {},
                                     error=f"the Ray task failed {1 + RAY_TASK_RETRIES} times: {error}")
            try:
                ids = self._import(store, outcome)
            except (BundleError, StoreError) as exc:
                ids, error = {}, f"the head refused a run's bundle: {exc}"
            return CommandResult(outcome.exit_code, outcome.stdout, outcome.stderr, outcome.child_seconds, ids,
                                 dict(outcome.files), outcome.node, error)

        return self._gather(refs, db, finish, on_done)

    # -- the head's loop ------------------------------------------------------------------
    def _remote(self, fn: Callable[..., TaskOutcome]) -> Any:
        return self._ray.remote(fn).options(num_cpus=RAY_TASK_CPUS, max_retries=RAY_TASK_RETRIES,
                                            retry_exceptions=True)

    def _gather(self, refs: list[Any], db: Path, finish: Callable[[TrajectoryStore, int, TaskOutcome | None, str], T],
                on_done: Callable[[int, T], None] | None) -> list[T]:
        """Import each task's runs as it ends; Ctrl-C (or an error here) cancels the tasks still pending."""
        ray = self._ray
        results: list[Any] = [None] * len(refs)
        pending = {ref: i for i, ref in enumerate(refs)}
        store = TrajectoryStore(db)
        try:
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=min(len(pending), RAY_WAIT_BATCH),
                                    timeout=RAY_WAIT_S)
                for ref in ready:
                    i = pending.pop(ref)
                    try:
                        outcome, error = ray.get(ref), ""
                    except ray.exceptions.RayError as exc:
                        outcome, error = None, _why(exc)
                    results[i] = finish(store, i, outcome, error)
                    if on_done is not None:
                        on_done(i, results[i])
        except BaseException:
            for ref in pending:
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # noqa: BLE001 - a task that ended meanwhile cannot be cancelled; nothing to do
                    pass
            raise
        finally:
            store.close()
        return results

    def _import(self, store: TrajectoryStore, outcome: TaskOutcome) -> dict[int, int]:
        """Import the task's bundles into the head's database; task run id -> head run id."""
        t0 = time.monotonic()
        ids: dict[int, int] = {}
        with tempfile.TemporaryDirectory(prefix="playcoder-bundles-") as tmp:
            for old, data in outcome.bundles:
                path = Path(tmp) / f"run-{old}.zip"
                path.write_bytes(data)
                ids[old] = import_bundle(store, path)
        self._stats.append(_TaskStat(outcome.node, outcome.seconds, outcome.child_seconds, time.monotonic() - t0,
                                     sum(len(b) for _, b in outcome.bundles)))
        return ids

    def _error_run(self, task: PlayTask, error: str, seconds: float = 0.0) -> ChildRun:
        self._failed += 1
        return ChildRun(task.target, task.seed, "error", "error", 0, seconds, None, error=error[:500])

    # -- reporting --------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """Nodes used, and what the Ray path adds per run: in the task (database, export) and at the head (import)."""
        s = self._stats
        cpus = self._ray.cluster_resources().get("CPU") if self._ray.is_initialized() else None

        def mean(values: list[float]) -> float | None:
            return round(statistics.fmean(values), 3) if values else None

        return {"executor": self.name, "address": self.address or "local instance",
                "cluster_cpus": cpus, "startup_s": round(self.startup_s, 2), "tasks": len(s) + self._failed,
                "failed": self._failed, "nodes": len({t.node for t in s}),
                "runs_per_node": {n: sum(t.node == n for t in s) for n in sorted({t.node for t in s})},
                "mean_task_overhead_s": mean([t.task_s - t.child_s for t in s]),
                "mean_import_s": mean([t.import_s for t in s]),
                "mean_bundle_kb": mean([t.bundle_bytes / 1024 for t in s])}

    def close(self) -> None:
        if self._ray.is_initialized():
            self._ray.shutdown()


def _check_reachable(address: str) -> None:
    """A HOST:PORT that nothing answers on is said in one sentence now (Ray itself would retry for minutes)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "://" in address:
        return  # "auto", ray://…: Ray resolves those itself
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=RAY_CONNECT_S).close()
    except OSError as exc:
        raise UserError(f"nothing answers at --ray-address {address} ({exc.strerror or exc}); start the cluster "
                        "with `ray start --head --port PORT` there, or fix the address.") from exc


def _why(exc: BaseException) -> str:
    """One line: the task's own exception when it raised one, else Ray's first line (worker or node died)."""
    cause = getattr(exc, "cause", None)
    text = str(cause) if cause is not None else str(exc)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return (lines[0] if lines else type(exc).__name__)[:300]


def make_executor(name: str, *, jobs: int, ray_address: str | None = None) -> Executor:
    """The executor ``--executor NAME`` asks for (Ray is imported only for 'ray')."""
    if name not in EXECUTORS:
        raise UserError(f"unknown executor {name!r}; choose one of: {', '.join(EXECUTORS)}.")
    if name == "local":
        if ray_address:
            raise UserError("--ray-address applies only to --executor ray.")
        return LocalExecutor(jobs)
    return RayExecutor(ray_address, local_cpus=jobs)


def summary_line(info: dict[str, Any], tasks: int, wall_s: float, unit: str = "runs") -> str:
    """One line for stderr: how the tasks were played and, on Ray, what each cost beyond playing."""
    if info.get("executor") != "ray":
        return f"local: {tasks} {unit} with {info.get('jobs')} jobs, {wall_s:.1f} s wall"
    over = [v for v in (info.get("mean_task_overhead_s"), info.get("mean_import_s")) if v is not None]
    return (f"ray: {tasks} {unit} on {info['nodes']} node(s) ({info['cluster_cpus']} CPUs), {wall_s:.1f} s wall "
            f"(Ray start {info['startup_s']:.1f} s); per task {sum(over):.2f} s overhead "
            f"({info['mean_task_overhead_s']} s in the task for its database and bundle, {info['mean_import_s']} s "
            f"importing at the head), bundle {info['mean_bundle_kb']} KB; {info['failed']} task(s) failed twice")
