"""What runs inside one Ray task, on whichever node Ray picked (:mod:`app.engine.bench.executors` is the head side).

A task plays the way a local bench job does: the same ``python -m app test … --json`` child
(:func:`app.engine.bench.jobs.run_child`), with its own private Xvfb, but writing to a database in the task's
scratch folder.  It hands back the run as a trace bundle (:func:`app.engine.trace.bundle.export_bundle`, the
format the workbench exports and imports), so the node keeps nothing and the head's database is the only record.

Nothing here imports Ray: the head registers these functions as Ray tasks, and they are plain functions a test
can call.  A task that ends without a trajectory raises :class:`NoTrajectory`, so Ray runs it once more.

Folders that exist only on the head (a ``bench play`` candidate copied to the head's temp folder) travel with the
task as a zip and are unpacked in the scratch folder; bundled apps travel by name and are read from the node's
own installation.
"""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from app.engine.bench import children
from app.engine.bench.jobs import ROOT, TERM_GRACE_S, ChildRun, prepare_db, run_child
from app.engine.play.targetspec import APPS_DIR, SPEC_FILE, WILD_DIR
from app.engine.trace.bundle import export_bundle
from app.engine.trace.store import TrajectoryStore

SCRATCH = "{scratch}"
"""In a task's arguments: the task's scratch folder on its node."""
DB = "{db}"
"""In a command task's arguments: the task's own database."""
COMMAND_TIMEOUT_S = 1800.0
NODE_ID_CHARS = 12
"""Enough of a Ray node id to tell the nodes of a cluster apart in a report."""
_SKIP = ("__pycache__", ".pytest_cache", ".benchmarks", ".git")


class NoTrajectory(RuntimeError):
    """The task's child recorded no run (it could not start, or was stopped); Ray retries the task."""


@dataclass(frozen=True)
class PlayTask:
    """One ``playcoder test`` run of a benchmark, as the head plans it."""

    target: str
    tester: str
    max_steps: int
    seed: int
    reference: str | None = None
    """For the differential tester: the program to compare with."""
    folders: tuple[tuple[str, bytes], ...] = ()
    """Zipped folders to unpack under the scratch folder first: (sub-folder, zip); ``target`` names them via
    :data:`SCRATCH`.  Filled by :func:`portable`."""
    duration_s: float | None = None
    """Play for this many seconds (``--duration``) instead of ``max_steps`` steps."""
    no_script: bool = False
    """For the differential tester: play no ``[[script]]`` steps first (``--no-script``)."""


@dataclass(frozen=True)
class CommandTask:
    """``python -m app ARGS`` in a scratch folder; :data:`DB` and :data:`SCRATCH` in ARGS are replaced there."""

    args: tuple[str, ...]
    timeout_s: float = COMMAND_TIMEOUT_S
    collect: str = ""
    """A glob under the scratch folder: those files come back with the outcome (e.g. a repair's sources)."""


@dataclass(frozen=True)
class TaskOutcome:
    """What a task hands back: the child's summary, its runs as bundles, and where and how long it ran."""

    node: str
    seconds: float
    """The whole task: scratch folder, database, child and export."""
    child_seconds: float
    bundles: tuple[tuple[int, bytes], ...]
    """(the run's id in the task's database, its trace bundle)"""
    child: ChildRun | None = None
    """A play task's child, as :func:`run_child` reported it."""
    exit_code: int = 0
    stdout: str = ""
    stderr: str = ""
    files: tuple[tuple[str, bytes], ...] = ()


# -- the head side: tasks a node can run -------------------------------------------------
def portable(task: PlayTask) -> PlayTask:
    """``task`` with its target and reference as any node can read them (see the module docstring)."""
    folders: list[tuple[str, bytes]] = []
    target = _portable_arg(task.target, "target", folders)
    reference = _portable_arg(task.reference, "reference", folders) if task.reference is not None else None
    return PlayTask(target, task.tester, task.max_steps, task.seed, reference, tuple(folders), task.duration_s,
                    task.no_script)


def _portable_arg(arg: str, slot: str, folders: list[tuple[str, bytes]]) -> str:
    base, at, bug = arg.partition("@")
    folder = Path(base).expanduser()
    if not folder.is_dir():
        return arg  # a bundled app by name: every node has it
    folder = folder.resolve()
    if folder.parent in (APPS_DIR.resolve(), WILD_DIR.resolve()) and (folder / SPEC_FILE).is_file():
        return folder.name + at + bug
    folders.append((f"{slot}/{folder.name}", _zip_folder(folder)))
    return f"{SCRATCH}/{slot}/{folder.name}" + at + bug


def _zip_folder(folder: Path) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(folder)
            if path.is_file() and not any(part in _SKIP for part in rel.parts):
                zf.write(path, rel.as_posix())
    return buf.getvalue()


# -- the task side -------------------------------------------------------------------------
def play_in_task(task: PlayTask) -> TaskOutcome:
    """Play ``task`` on this node with a task-local database; the run comes back as a bundle."""
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="playcoder-task-") as tmp:
        scratch = Path(tmp)
        for sub, data in task.folders:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                zf.extractall(scratch / sub)
        db = scratch / "task.db"
        prepare_db(db)
        here = str(scratch)
        child = run_child(task.target.replace(SCRATCH, here), tester=task.tester, max_steps=task.max_steps,
                          seed=task.seed, db=db,
                          reference=task.reference.replace(SCRATCH, here) if task.reference is not None else None,
                          duration_s=task.duration_s, no_script=task.no_script)
        if child.run_id is None:
            raise NoTrajectory(f"{task.target} left no trajectory on {_node()}: "
                               f"{child.error or child.reason or child.status}")
        bundles = _export(db, [child.run_id], scratch)
    return TaskOutcome(_node(), time.monotonic() - t0, child.seconds, bundles, child=child)


def command_in_task(task: CommandTask) -> TaskOutcome:
    """Run ``python -m app ARGS`` on this node; every run it recorded comes back as a bundle."""
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="playcoder-task-") as tmp:
        scratch = Path(tmp)
        db = scratch / "task.db"
        prepare_db(db)
        args = [a.replace(DB, str(db)).replace(SCRATCH, str(scratch)) for a in task.args]
        code, out, err, child_s = _run_app(args, task.timeout_s)
        store = TrajectoryStore(db)
        try:
            ids = [int(r["id"]) for r in store.runs()]
        finally:
            store.close()
        if not ids and not out.strip():
            last = next((line for line in reversed(err.splitlines()) if line.strip()), "no output")
            raise NoTrajectory(f"`playcoder {' '.join(task.args[:2])}` recorded nothing on {_node()}: {last[:300]}")
        bundles = _export(db, ids, scratch)
        files = tuple((p.relative_to(scratch).as_posix(), p.read_bytes())
                      for p in sorted(scratch.glob(task.collect)) if p.is_file()) if task.collect else ()
    return TaskOutcome(_node(), time.monotonic() - t0, child_s, bundles, exit_code=code, stdout=out, stderr=err,
                       files=files)


def _run_app(args: list[str], timeout_s: float) -> tuple[int, str, str, float]:
    """(exit code, stdout, stderr, seconds) of ``python -m app ARGS``; the child dies with the task."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    t0 = time.monotonic()
    proc = children.spawn([sys.executable, "-m", "app", *args], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc is not None  # no batch in a Ray task, so never cancelled before it starts
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        children.stop_all([proc], TERM_GRACE_S)
        out, err = proc.communicate()
        err += f"\nthe command took longer than {timeout_s:g} s and was stopped"
    except BaseException:
        children.stop_all([proc])
        raise
    return proc.returncode, out, err, time.monotonic() - t0


def _export(db: Path, run_ids: list[int], scratch: Path) -> tuple[tuple[int, bytes], ...]:
    store = TrajectoryStore(db)
    try:
        out = []
        for run_id in run_ids:
            path = export_bundle(store, run_id, scratch / f"run-{run_id}.zip")
            out.append((run_id, path.read_bytes()))
            path.unlink()
        return tuple(out)
    finally:
        store.close()


def _node() -> str:
    """The Ray node this task runs on (its host name outside Ray)."""
    ray = sys.modules.get("ray")  # imported already wherever a Ray task runs; never started from here
    if ray is not None and ray.is_initialized():
        return str(ray.get_runtime_context().get_node_id())[:NODE_ID_CHARS]
    return socket.gethostname()
