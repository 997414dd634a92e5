"""A program the sandbox started: its PIDs on both sides of the namespace, its end, its output.

Only :mod:`app.engine.play.sandbox` creates these; it decides the confinement.

PIDs: inside its PID namespace a program sees itself as a small number (the
namespace's PID 2), and that is what SDL writes into ``_NET_WM_PID``; the X
server's X-Resource extension, the engine's /proc and psutil see host PIDs.
``--info-fd`` gives the host PID of the namespace's init (bwrap's reaper);
its children are the program, and ``/proc/<host pid>/status`` (``NSpid``)
gives each process's PID inside: :func:`namespace_pids`.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from collections import deque
from pathlib import Path
from typing import IO, Callable, Iterable, Protocol

import psutil

PROGRAM_PID_WAIT_S = 2.0
DISK_WATCH_S = 0.25
COLLECT_CAP_BYTES = 16 * 1024 * 1024
COLLECT_NAME = re.compile(r"^\.playcoder-[A-Za-z0-9_.-]{1,80}$")
"""Result files a run brings back from the program's copy: ``.playcoder-*`` in its top folder."""
MARKER_ENV = "PLAYCODER_SANDBOX_RUN"
"""Fallback only: carried by every process of a run, so that daemons which left its process group are found."""


def namespace_pids(host_pids: Iterable[int]) -> dict[int, int]:
    """host PID -> PID inside its (innermost) namespace, for processes in a nested PID namespace."""
    out: dict[int, int] = {}
    for pid in host_pids:
        try:
            with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as fh:
                for line in fh:
                    if line.startswith("NSpid:"):
                        levels = line.split()[1:]
                        if len(levels) > 1:
                            out[pid] = int(levels[-1])
                        break
        except (OSError, ValueError):
            continue
    return out


def _children(pid: int) -> list[int]:
    """Direct children of ``pid`` (``/proc/<pid>/task/*/children``, else a scan by psutil)."""
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as fh:
                out.extend(int(c) for c in fh.read().split())
    except FileNotFoundError:
        try:
            return [c.pid for c in psutil.Process(pid).children()]
        except psutil.Error:
            return []
    except (OSError, ValueError):
        pass
    return out


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (host PIDs)."""
    out, stack = [], [pid]
    while stack:
        for child in _children(stack.pop()):
            out.append(child)
            stack.append(child)
    return out


class Bound(Protocol):
    """The run's cgroup (:class:`app.engine.play.cgroup.RunGroup`), as a process sees it."""

    exceeded: bool

    def watch(self, root_pid: int, kill: Callable[[], None]) -> None: ...

    def events(self) -> dict[str, int]: ...

    def close(self) -> None: ...


class SandboxedProcess:
    """A program started by :func:`app.engine.play.sandbox.start`: its PIDs, exit code and shutdown.

    ``popen`` is bwrap's process (confined) or the program's (fallback); its
    stdout and stderr are the program's.
    """

    def __init__(self, popen: subprocess.Popen[bytes], *, confined: bool, init_pid: int | None,
                 scratch: tempfile.TemporaryDirectory[str] | None, folder: Path, marker: str) -> None:
        self.popen = popen
        self.confined = confined
        self.init_pid = init_pid
        """Host PID of the PID namespace's init (bwrap's reaper); killing it kills the namespace."""
        self.folder = folder
        """Where the program runs: the jail's folder (a tmpfs over it) or, in the fallback, a throwaway copy."""
        self._scratch = scratch
        self._marker = marker
        self._watcher: DiskWatch | None = None
        self._program_pid: int | None = None
        self.bound: Bound | None = None
        """The cgroup bounding the whole tree (processes, memory), or the polling watcher where none is made."""

    def bound_by(self, bound: Bound) -> None:
        """Keep the run's cgroup: removed (and what is left in it killed) at :meth:`cleanup`."""
        self.bound = bound
        bound.watch(self.popen.pid, self.kill)

    def watch_disk(self, root: Path, limit: int) -> None:
        """Fallback quota: kill the program once ``root`` holds more than ``limit`` bytes."""
        self._watcher = DiskWatch(root, limit, self.kill)

    @property
    def root_pid(self) -> int:
        """The host PID every process of the program descends from."""
        return self.popen.pid

    @property
    def pid(self) -> int:
        """Host PID of the program itself (the namespace's PID 2), waiting briefly for it to appear."""
        if self._program_pid is None:
            if not self.confined or self.init_pid is None:
                self._program_pid = self.popen.pid
            else:
                deadline = time.monotonic() + PROGRAM_PID_WAIT_S
                while self._program_pid is None:
                    kids = namespace_pids(_children(self.init_pid))
                    if kids:  # the namespace's PID 2; later children of init are orphans it adopted
                        self._program_pid = min(kids, key=lambda host: kids[host])
                    elif time.monotonic() > deadline or self.popen.poll() is not None:
                        return self.popen.pid
                    else:
                        time.sleep(0.005)
        return self._program_pid

    def host_pids(self) -> set[int]:
        """bwrap, the namespace's init and every process of the program, as host PIDs."""
        return {self.popen.pid, *descendants(self.popen.pid)}

    @property
    def disk_exceeded(self) -> bool:
        return self._watcher is not None and self._watcher.fired

    def poll(self) -> int | None:
        return _exit_code(self.popen.poll(), self.confined)

    @property
    def returncode(self) -> int | None:
        return self.poll()

    def wait(self, timeout: float | None = None) -> int | None:
        return _exit_code(self.popen.wait(timeout), self.confined)

    def signal_program(self, sig: int) -> None:
        """Send ``sig`` to every process of the program (not to bwrap or the namespace's init)."""
        inside = descendants(self.init_pid) if self.confined and self.init_pid else self.host_pids()
        for pid in inside:
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def stop(self, grace_s: float = 2.0) -> int | None:
        """SIGTERM the program, then kill the whole namespace (or process group); every process is gone after."""
        try:
            if self.popen.poll() is None and grace_s > 0:
                self.signal_program(signal.SIGTERM)
                if not self.confined:
                    _killpg(self.popen.pid, signal.SIGTERM)
                try:
                    self.popen.wait(grace_s)
                except subprocess.TimeoutExpired:
                    pass
            self.kill()
            return self.poll()
        finally:
            self.cleanup()

    def kill(self) -> None:
        """Kill at once everything the program started; waits for bwrap (or the program) to end."""
        if self.popen.poll() is None:
            if self.confined and self.init_pid is not None:
                try:
                    os.kill(self.init_pid, signal.SIGKILL)  # the namespace's init: the kernel kills the rest
                except (ProcessLookupError, PermissionError):
                    pass
            else:
                self.signal_program(signal.SIGKILL)
            _killpg(self.popen.pid, signal.SIGKILL)
        try:
            self.popen.wait(10)
        except subprocess.TimeoutExpired:
            pass
        if not self.confined:
            kill_marked(self._marker)  # setsid daemons that left the process group

    def cleanup(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
        if self.bound is not None:
            self.bound.close()
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None


def _exit_code(code: int | None, confined: bool) -> int | None:
    """bwrap reports a program killed by signal N as 128+N; give it back as -N like subprocess does."""
    if confined and code is not None and 128 < code < 128 + 65:
        return -(code - 128)
    return code


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_marked(marker: str) -> None:
    """Fallback: kill processes whose environment carries this run's marker (they escaped the group)."""
    needle = f"{MARKER_ENV}={marker}".encode()
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                with open(f"/proc/{name}/environ", "rb") as fh:
                    if needle in fh.read().split(b"\0"):
                        os.kill(int(name), signal.SIGKILL)
            except (OSError, ProcessLookupError):
                continue


class DiskWatch:
    """Fallback quota: polls the scratch folder's size and kills the program past ``limit`` bytes."""

    def __init__(self, root: Path, limit: int, kill: Callable[[], None]) -> None:
        self.root, self.limit, self.kill, self.fired = root, limit, kill, False
        self._stop = threading.Event()
        threading.Thread(target=self._run, daemon=True, name="sandbox-disk").start()

    def _run(self) -> None:
        while not self._stop.wait(DISK_WATCH_S):
            used = 0
            for root, _dirs, files in os.walk(self.root):
                for name in files:
                    try:
                        used += os.lstat(os.path.join(root, name)).st_blocks * 512
                    except OSError:
                        continue
            if used > self.limit:
                self.fired = True
                self.kill()
                return

    def stop(self) -> None:
        self._stop.set()


class Tail:
    """Reads a stream to its end, keeping only the last ``cap`` bytes."""

    def __init__(self, stream: IO[bytes], cap: int) -> None:
        self.cap, self.size, self.chunks = cap, 0, deque[bytes]()
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True, name="sandbox-read")
        self.thread.start()

    def _read(self, stream: IO[bytes]) -> None:
        try:
            while chunk := os.read(stream.fileno(), 65536):
                self.chunks.append(chunk)
                self.size += len(chunk)
                while self.size - len(self.chunks[0]) >= self.cap:
                    self.size -= len(self.chunks.popleft())
        except (OSError, ValueError):
            pass
        try:
            stream.close()
        except OSError:
            pass

    def text(self, timeout: float) -> str:
        self.thread.join(timeout)
        return b"".join(list(self.chunks))[-self.cap:].decode("utf-8", errors="replace")


def read_results(fd: int, into: dict[str, bytes]) -> None:
    """Parse ``name\\nsize\\n<bytes>`` records from the collect pipe, up to COLLECT_CAP_BYTES in all."""
    data = bytearray()
    while chunk := os.read(fd, 65536):
        if len(data) < COLLECT_CAP_BYTES:
            data += chunk
    pos = 0
    while pos < len(data):
        try:
            nl1 = data.index(b"\n", pos)
            nl2 = data.index(b"\n", nl1 + 1)
            name, size = data[pos:nl1].decode(), int(data[nl1 + 1:nl2])
        except (ValueError, UnicodeDecodeError):
            return
        body = bytes(data[nl2 + 1:nl2 + 1 + size])
        if len(body) != size:
            return
        if COLLECT_NAME.match(name):
            into[name] = body
        pos = nl2 + 1 + size


def results_in(folder: Path) -> dict[str, bytes]:
    """Fallback: the ``.playcoder-*`` result files of the throwaway copy, up to COLLECT_CAP_BYTES in all."""
    out: dict[str, bytes] = {}
    total = 0
    for path in sorted(folder.glob(".playcoder-*")):
        if COLLECT_NAME.match(path.name) and path.is_file() and not path.is_symlink():
            size = path.stat().st_size
            if total + size <= COLLECT_CAP_BYTES:
                out[path.name] = path.read_bytes()
                total += size
    return out
