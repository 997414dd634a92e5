"""One bound for a program's whole tree of processes: a cgroup per sandboxed run.

Rlimits count per process (four children each under a 4 GB address space
hold 16 GB; memfds are charged to no address space at all) and the kernel
ignores RLIMIT_NPROC for root.  A cgroup counts the tree: ``pids.max``
refuses the 513th process of a target, the memory controller charges every
page the tree touches — heap, tmpfs, shared memory and memfds — and kills
inside the group past the limit, whoever the user is.

Where it is made, in order:

* cgroup v2, under the engine's own cgroup, when the ``pids`` and ``memory``
  controllers are (or can be) enabled for its children (a delegated subtree);
* cgroup v1, a group in the ``pids`` and in the ``memory`` hierarchy, each
  nested under the engine's own path there (root, or a delegated tree).

The sandbox's first process joins the group between fork and exec
(:meth:`RunGroup.enter`), so everything it starts is inside from the start.
The engine itself moves into a memory-bounded group of its own before its first
run's group is made (:func:`confine_engine`, :data:`ENGINE_MEMORY_MB`), beside
its runs' groups, not above them.

Where no group can be made, one sentence on a terminal's stderr says so
(once per process; :data:`fallback_reason` keeps it) and a watcher polls the tree and kills the sandbox past the
process bound (memory then stays bounded per process only).
"""

from __future__ import annotations

import itertools
import os
import signal
import sys
import threading
import time
from typing import Callable

from app.engine.play.sandbox_process import descendants

MB = 1024 * 1024
V1_ROOT = "/sys/fs/cgroup"
CONTROLLERS = ("pids", "memory")
PREFIX = "playcoder-"
POLL_S = 0.2
"""Fallback: how often the watcher counts the tree's processes."""
KILL_ROUNDS = 50
"""Removing a group: rounds of SIGKILL to what is left in it before giving up (a fork loop refills it)."""
KILL_ROUND_S = 0.02

ENGINE_MEMORY_ENV = "PLAYCODER_ENGINE_MEMORY_MB"
ENGINE_MEMORY_MB = 6144
"""The engine process's own memory bound (its cgroup), unless $PLAYCODER_ENGINE_MEMORY_MB says otherwise (0: none)."""
ENGINE_SUFFIX = "-engine"

_counter = itertools.count()
_base_paths: dict[str, str] | None = None
engine_group: list[str] | None = None
"""The engine's own cgroup folders once :func:`confine_engine` ran ([] where none could be made)."""
_engine_lock = threading.Lock()
_said = False
fallback_reason = ""
"""Why no cgroup could be made here (empty while one could, or before the first try)."""
_said_lock = threading.Lock()


def _own_paths() -> dict[str, str]:
    """Where run groups are made, per hierarchy: ``{"": path}`` for v2, ``{"pids": path, "memory": path}`` for
    v1 — the engine's cgroup as it started (before :func:`confine_engine` moved it into a group of its own)."""
    if _base_paths is not None:
        return dict(_base_paths)
    out: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup", encoding="ascii", errors="replace") as fh:
            for line in fh:
                _, names, path = line.rstrip("\n").split(":", 2)
                for name in names.split(","):
                    out[name] = path
    except (OSError, ValueError):
        pass
    return out


def _mounts() -> dict[str, str]:
    """Mount point per hierarchy: ``""`` for cgroup2, a controller name for v1."""
    out: dict[str, str] = {}
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                left, _, right = line.partition(" - ")
                fields, tail = left.split(), right.split()
                if len(fields) < 5 or len(tail) < 3:
                    continue
                root, point, fstype, options = fields[3], fields[4], tail[0], tail[2].split(",")
                if root != "/":
                    continue
                if fstype == "cgroup2":
                    out.setdefault("", point)
                elif fstype == "cgroup":
                    for name in CONTROLLERS:
                        if name in options:
                            out.setdefault(name, point)
    except OSError:
        pass
    return out


def _write(path: str, text: str) -> bool:
    try:
        with open(path, "w", encoding="ascii") as fh:
            fh.write(text)
        return True
    except OSError:
        return False


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def _make_v2(mount: str, own: str, name: str, nproc: int, memory: int) -> list[str]:
    parent = os.path.join(mount, own.lstrip("/"))
    enabled = _read(os.path.join(parent, "cgroup.subtree_control")).split()
    if not all(c in enabled for c in CONTROLLERS):
        if not all(c in _read(os.path.join(parent, "cgroup.controllers")).split() for c in CONTROLLERS):
            return []
        if not _write(os.path.join(parent, "cgroup.subtree_control"), " ".join(f"+{c}" for c in CONTROLLERS)):
            return []  # our own cgroup holds processes: not a delegated subtree
    path = os.path.join(parent, name)
    try:
        os.mkdir(path)
    except OSError:
        return []
    if _write(os.path.join(path, "pids.max"), str(nproc)) and _write(os.path.join(path, "memory.max"), str(memory)):
        _write(os.path.join(path, "memory.swap.max"), "0")
        return [path]
    _rmdir(path)
    return []


def _make_v1(mounts: dict[str, str], own: dict[str, str], name: str, nproc: int, memory: int) -> list[str]:
    made: list[str] = []
    for controller in CONTROLLERS:
        if controller not in mounts or controller not in own:
            break
        path = os.path.join(mounts[controller], own[controller].lstrip("/"), name)
        try:
            os.mkdir(path)
        except OSError:
            break
        made.append(path)
        if controller == "pids":
            ok = _write(os.path.join(path, "pids.max"), str(nproc))
        else:
            ok = _write(os.path.join(path, "memory.limit_in_bytes"), str(memory))
            swap = os.path.join(path, "memory.memsw.limit_in_bytes")
            ok = ok and (not os.path.exists(swap) or _write(swap, str(memory)))
        if not ok:
            break
    else:
        return made
    for path in made:
        _rmdir(path)
    return []


def _rmdir(path: str) -> None:
    try:
        os.rmdir(path)
    except OSError:
        pass


_swept = False


def _sweep_once(mounts: dict[str, str], own: dict[str, str]) -> None:
    """Once per process: remove the empty groups of engines that died without removing theirs (kill -9)."""
    global _swept
    if _swept:
        return
    _swept = True
    for key, mount in mounts.items():
        parent = os.path.join(mount, own.get(key, "/").lstrip("/"))
        try:
            names = [n for n in os.listdir(parent) if n.startswith(PREFIX)]
        except OSError:
            continue
        for name in names:
            pid = name[len(PREFIX):].split("-", 1)[0]
            if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
                _rmdir(os.path.join(parent, name))  # only an empty group goes


def _say_once(sentence: str) -> None:
    """On a terminal only: scripts and tests that read the engine's stderr as one line of result (CI containers
    often have no writable cgroup) are not given a second line; :data:`fallback_reason` keeps it for them."""
    global _said, fallback_reason
    with _said_lock:
        fallback_reason = sentence
        if not _said and sys.stderr.isatty():
            _said = True
            sys.stderr.write(f"playcoder: {sentence}\n")
            sys.stderr.flush()


def fallback_sentence() -> str:
    return ("no cgroup could be made for sandboxed programs (no delegated cgroup v2 subtree with the pids and "
            "memory controllers, no writable cgroup v1 pids and memory hierarchies): a run's processes are bounded "
            "by polling and its memory per process only; run the engine as root or in a delegated cgroup "
            "(systemd-run --user --scope -p Delegate=yes) for whole-run bounds.")


def engine_memory_mb() -> int:
    try:
        return max(0, int(os.environ.get(ENGINE_MEMORY_ENV, ENGINE_MEMORY_MB)))
    except ValueError:
        return ENGINE_MEMORY_MB


def confine_engine() -> list[str]:
    """Once per process, before its first run group: move the engine into a memory-bounded cgroup of its own
    (a sibling of its runs' groups, so a run's memory is not the engine's).  Whatever a program sends, the engine
    then cannot take the host's memory.  Where no group can be made (no root, no delegated subtree), nothing
    changes and ``[]`` is returned."""
    global _base_paths, engine_group
    with _engine_lock:
        if engine_group is not None:
            return engine_group
        mounts, own = _mounts(), _own_paths()
        _base_paths = own
        memory = engine_memory_mb() * MB
        name = f"{PREFIX}{os.getpid()}{ENGINE_SUFFIX}"
        made: list[str] = []
        if memory and "" in mounts and "" in own:
            made = _engine_v2(os.path.join(mounts[""], own[""].lstrip("/")), name, memory)
        if memory and not made and "memory" in mounts and "memory" in own:
            path = os.path.join(mounts["memory"], own["memory"].lstrip("/"), name)
            try:
                os.mkdir(path)
            except OSError:
                path = ""
            if path and _write(os.path.join(path, "memory.limit_in_bytes"), str(memory)) \
                    and _write(os.path.join(path, "cgroup.procs"), str(os.getpid())):
                made = [path]
            elif path:
                _rmdir(path)
        engine_group = made
        return made


def _engine_v2(parent: str, name: str, memory: int) -> list[str]:
    path = os.path.join(parent, name)
    if "memory" not in _read(os.path.join(parent, "cgroup.controllers")).split():
        return []  # a hybrid system: memory is a v1 controller
    try:
        os.mkdir(path)
    except OSError:
        return []
    if "memory" not in _read(os.path.join(parent, "cgroup.subtree_control")).split():
        _write(os.path.join(parent, "cgroup.subtree_control"), "+memory")
    if _write(os.path.join(path, "memory.max"), str(memory)) and \
            _write(os.path.join(path, "cgroup.procs"), str(os.getpid())):
        return [path]
    _rmdir(path)
    return []


class RunGroup:
    """The cgroup (one folder per hierarchy) of one sandboxed run, or a polling watcher where none can be made."""

    def __init__(self, paths: list[str], nproc: int, memory_bytes: int) -> None:
        self.paths = paths
        self.nproc = nproc
        self.memory_bytes = memory_bytes
        self.exceeded = False
        """Fallback only: the watcher killed the run for holding more processes than the bound."""
        self._procs = [os.path.join(p, "cgroup.procs") for p in paths]
        self._stop = threading.Event()

    @classmethod
    def create(cls, nproc: int, memory_mb: int) -> RunGroup:
        """A new group bounding ``nproc`` processes and ``memory_mb`` of memory for the whole tree."""
        confine_engine()
        name = f"{PREFIX}{os.getpid()}-{next(_counter)}"
        memory = memory_mb * MB
        mounts, own = _mounts(), _own_paths()
        _sweep_once(mounts, own)
        paths: list[str] = []
        if "" in mounts and "" in own:
            paths = _make_v2(mounts[""], own[""], name, nproc, memory)
        if not paths:
            paths = _make_v1(mounts, own, name, nproc, memory)
        if not paths:
            _say_once(fallback_sentence())
        return cls(paths, nproc, memory)

    @property
    def bounded(self) -> bool:
        """True when the kernel bounds the tree (a cgroup), False for the polling fallback."""
        return bool(self.paths)

    def enter(self) -> None:
        """Between fork and exec of the sandbox's first process: move it into the group (no allocation-heavy
        work; a failure leaves it outside, bounded per process as before)."""
        pid = str(os.getpid()).encode()
        for procs in self._procs:
            try:
                fd = os.open(procs, os.O_WRONLY)
                try:
                    os.write(fd, pid)
                finally:
                    os.close(fd)
            except OSError:
                pass

    def watch(self, root_pid: int, kill: Callable[[], None]) -> None:
        """Fallback only: count the tree below ``root_pid`` and ``kill`` it past the bound."""
        if self.paths:
            return
        threading.Thread(target=self._poll, args=(root_pid, kill), daemon=True, name="sandbox-nproc").start()

    def _poll(self, root_pid: int, kill: Callable[[], None]) -> None:
        while not self._stop.wait(POLL_S):
            if not os.path.exists(f"/proc/{root_pid}"):
                return
            if len(descendants(root_pid)) > self.nproc:
                self.exceeded = True
                kill()
                return

    def pids(self) -> list[int]:
        """The processes in the group now (host PIDs)."""
        found: set[int] = set()
        for procs in self._procs:
            found.update(int(p) for p in _read(procs).split() if p.isdigit())
        return sorted(found)

    def events(self) -> dict[str, int]:
        """What the kernel refused or killed: ``pids.events`` max and the memory OOM kills, where readable."""
        out: dict[str, int] = {}
        for path in self.paths:
            for file in ("pids.events", "memory.events"):
                for line in _read(os.path.join(path, file)).splitlines():
                    key, _, value = line.partition(" ")
                    if value.strip().isdigit():
                        out[key] = out.get(key, 0) + int(value)
            failcnt = _read(os.path.join(path, "memory.failcnt")).strip()
            if failcnt.isdigit():
                out["memory_failcnt"] = int(failcnt)
        return out

    def close(self) -> None:
        """Kill whatever is left in the group and remove it; stop the fallback watcher."""
        self._stop.set()
        for _ in range(KILL_ROUNDS):
            left = self.pids()
            if not left:
                break
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(KILL_ROUND_S)
        for path in reversed(self.paths):
            for _ in range(KILL_ROUNDS):
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(KILL_ROUND_S)  # the last processes are still being reaped
        self.paths, self._procs = [], []
