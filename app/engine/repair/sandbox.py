"""Where repair code runs and writes: a confined copy of the program.

:class:`Workspace` is a folder the repair tools own.  Every file the tools
write goes through :meth:`Workspace.write_text`, which resolves the path
(symlinks included) and refuses anything outside the root.

:class:`Executor` runs a command (unit tests, an import check, a tracer) in
a *temporary copy* of a workspace, in its own process group, with

* resource limits set by ``preexec_fn``: address space (RLIMIT_AS), CPU
  seconds (RLIMIT_CPU) and the size of any file it writes (RLIMIT_FSIZE);
* a wall-clock timeout after which the whole process group is killed;
* an environment without secrets (``*_API_KEY``, ``*_TOKEN``, ``*_SECRET``,
  ``*_PASSWORD``) and without ``DISPLAY``, with ``HOME`` and ``TMPDIR``
  pointed inside the copy and the working directory in the copy;
* no network where the OS allows it: the command is started through
  util-linux ``unshare -n`` (as root) or ``unshare -rn`` (an unprivileged
  user namespace).  Where neither is permitted (containers without
  CAP_SYS_ADMIN and with user namespaces disabled) the command runs with the
  network of its parent; :attr:`ExecResult.network_isolated` says which.

The Executor does not stop a program from writing outside its copy by
itself (that needs a mount namespace or a seccomp filter); what the repair
loop guarantees is that *its own* writes stay inside the copy, and that the
code it runs starts in, and is pointed at, a throwaway folder.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

from app.engine.errors import UserError

SECRET_NAME = re.compile(r".*_(API_KEY|TOKEN|SECRET|PASSWORD)$|^(API_KEY|TOKEN|SECRET|PASSWORD)$", re.IGNORECASE)
DROPPED_ENV = ("DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "PYTHONSTARTUP", "PYTHONHOME", "VIRTUAL_ENV_PROMPT")
SOURCE_SUFFIXES = (".py", ".toml", ".txt", ".json", ".cfg", ".ini", ".md")
"""Files a workspace considers part of the program (diffs and snapshots)."""
SKIPPED_DIRS = {"__pycache__", ".pytest_cache", ".home", ".tmp", ".git", "bugs", ".playcoder"}
COPY_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".home", ".tmp")
KILL_GRACE_S = 0.5
MB = 1024 * 1024


class SandboxViolation(UserError):
    """A repair tool tried to touch a path outside its copy of the program."""


@dataclass(frozen=True)
class Limits:
    wall_s: float = 60.0
    cpu_s: int = 60
    memory_mb: int = 2048
    fsize_mb: int = 64
    network: bool = False


@dataclass(frozen=True)
class ExecResult:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool
    limit: str | None
    """Which limit ended the process: wall, cpu, memory, fsize, or None."""
    network_isolated: bool

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def summary(self) -> str:
        head = f"$ {' '.join(self.argv)}  -> exit {self.returncode} in {self.seconds:.1f} s"
        if self.limit:
            head += f" (stopped by the {self.limit} limit)"
        return head


class Workspace:
    """A folder the repair tools may write in, and nowhere else."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise SandboxViolation(f"{root} is not a folder; give the repair a program folder to work on.")

    def resolve(self, path: str | Path) -> Path:
        """The absolute path of ``path`` inside the root; refuses escapes by '..', absolute paths or symlinks."""
        candidate = Path(path)
        full = candidate if candidate.is_absolute() else self.root / candidate
        resolved = full.resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise SandboxViolation(f"refused to touch {path}: it is outside the program copy {self.root}.")
        return resolved

    def relative(self, path: str | Path) -> str:
        return self.resolve(path).relative_to(self.root).as_posix()

    def read_text(self, path: str | Path) -> str:
        return self.resolve(path).read_text(encoding="utf-8")

    def write_text(self, path: str | Path, text: str) -> Path:
        """Write atomically (temp file + rename in the same folder) after the containment check."""
        target = self.resolve(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".write-", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return target

    def delete(self, path: str | Path) -> None:
        self.resolve(path).unlink(missing_ok=True)

    def files(self, suffixes: Sequence[str] = SOURCE_SUFFIXES) -> list[str]:
        """Relative paths of the program's source files, sorted."""
        out = []
        for path in sorted(self.root.rglob("*")):
            rel = path.relative_to(self.root)
            if path.is_file() and path.suffix in suffixes and not (set(rel.parts[:-1]) & SKIPPED_DIRS) \
                    and not rel.name.startswith(".write-"):
                out.append(rel.as_posix())
        return out

    def snapshot(self) -> dict[str, str]:
        return {rel: self.read_text(rel) for rel in self.files()}

    def restore(self, snapshot: Mapping[str, str]) -> None:
        """Bring the source files back to ``snapshot`` (files added since are removed)."""
        for rel in self.files():
            if rel not in snapshot:
                self.delete(rel)
        for rel, text in snapshot.items():
            if not self.resolve(rel).exists() or self.read_text(rel) != text:
                self.write_text(rel, text)

    def copy_to(self, dest: Path) -> Workspace:
        shutil.copytree(self.root, dest, ignore=COPY_IGNORE, symlinks=False)
        return Workspace(dest)


def clean_env(base: Mapping[str, str] | None = None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: os.environ) without secrets, displays or startup hooks, plus ``extra``."""
    env = {k: v for k, v in (os.environ if base is None else base).items()
           if not SECRET_NAME.match(k) and k not in DROPPED_ENV}
    for k, v in (extra or {}).items():
        if not SECRET_NAME.match(k):
            env[k] = v
    return env


_unshare_prefix: list[str] | None = None


def network_prefix() -> list[str]:
    """``['unshare', '-n']`` or ``['unshare', '-rn']`` when permitted here, else ``[]`` (probed once)."""
    global _unshare_prefix
    if _unshare_prefix is None:
        _unshare_prefix = []
        tool = shutil.which("unshare")
        if tool is not None:
            for flags in (["-n"], ["-rn"]):
                try:
                    probe = subprocess.run([tool, *flags, "true"], capture_output=True, timeout=10)
                except (OSError, subprocess.SubprocessError):
                    continue
                if probe.returncode == 0:
                    _unshare_prefix = [tool, *flags]
                    break
    return list(_unshare_prefix)


def _limiter(limits: Limits) -> Callable[[], None]:
    def apply() -> None:  # runs in the child between fork and exec: no allocation-heavy work
        os.setpgrp()
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_mb * MB, limits.memory_mb * MB))
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.fsize_mb * MB, limits.fsize_mb * MB))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


class Executor:
    """Runs commands confined to throwaway copies (see the module docstring)."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()

    @contextmanager
    def copy_of(self, source: Workspace | Path) -> Iterator[Workspace]:
        """A temporary copy of ``source`` with private HOME and TMPDIR folders, deleted afterwards."""
        src = source if isinstance(source, Workspace) else Workspace(source)
        with tempfile.TemporaryDirectory(prefix="playcoder-sandbox-") as tmp:
            copy = src.copy_to(Path(tmp) / "program")
            (copy.root / ".home").mkdir(exist_ok=True)
            (copy.root / ".tmp").mkdir(exist_ok=True)
            yield copy

    def run_in_copy(self, source: Workspace | Path, argv: Sequence[str], *, limits: Limits | None = None,
                    env: Mapping[str, str] | None = None, stdin: str | None = None) -> ExecResult:
        with self.copy_of(source) as copy:
            return self.run(copy, argv, limits=limits, env=env, stdin=stdin)

    def run(self, copy: Workspace, argv: Sequence[str], *, limits: Limits | None = None,
            env: Mapping[str, str] | None = None, stdin: str | None = None) -> ExecResult:
        """Run ``argv`` with its working directory in ``copy`` (which must be a throwaway copy)."""
        lim = limits or self.limits
        home = copy.root / ".home"
        tmp = copy.root / ".tmp"
        home.mkdir(exist_ok=True)
        tmp.mkdir(exist_ok=True)
        child_env = clean_env(None, {"HOME": str(home), "TMPDIR": str(tmp), "PYTHONDONTWRITEBYTECODE": "1",
                                     "PYTHONPATH": str(copy.root), "PYTHONHASHSEED": "0",
                                     "SDL_AUDIODRIVER": "dummy", "SDL_VIDEODRIVER": "dummy",
                                     **(env or {})})
        prefix = [] if lim.network else network_prefix()
        full = [*prefix, *argv]
        t0 = time.monotonic()
        proc = subprocess.Popen(full, cwd=copy.root, env=child_env, stdin=subprocess.PIPE if stdin else
                                subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                errors="replace", preexec_fn=_limiter(lim), close_fds=True)
        timed_out = False
        try:
            out, err = proc.communicate(stdin, timeout=lim.wall_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc.pid)
            out, err = proc.communicate()
        finally:
            _kill_group(proc.pid)  # grandchildren left behind by a finished command
        code = proc.returncode
        limit = "wall" if timed_out else _limit_from(code, err)
        return ExecResult(tuple(argv), code, out, err, time.monotonic() - t0, timed_out, limit, bool(prefix))


def _kill_group(pgid: int) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(KILL_GRACE_S if sig == signal.SIGTERM else 0)


def _limit_from(code: int, stderr: str) -> str | None:
    if code == -signal.SIGXCPU or code == -signal.SIGKILL and "CPU" in stderr:
        return "cpu"
    if code == -signal.SIGXFSZ or "File too large" in stderr:
        return "fsize"
    if code != 0 and ("MemoryError" in stderr or "Cannot allocate memory" in stderr
                      or "std::bad_alloc" in stderr):
        return "memory"
    return None
