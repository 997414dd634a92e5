"""Where repair code runs and writes: a confined copy of the program.

:class:`Workspace` is a folder the repair tools own.  Every file the tools
write goes through :meth:`Workspace.write_text`, which resolves the path
(symlinks included) and refuses anything outside the root.

:class:`Executor` runs a command (unit tests, an import check, a tracer) on a
*temporary copy* of a workspace through :mod:`app.engine.play.sandbox`, the
one module that decides how foreign code is confined (own PID and network
namespaces, read-only system, the copy in a size-limited tmpfs, whitelisted
environment, rlimits, everything killed at the end).  Result files the
command leaves in its copy under a ``.playcoder-*`` name (the JUnit report,
the tracer's spectra) are brought back into the temporary copy afterwards;
nothing else the command writes survives it.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from app.engine.errors import UserError
from app.engine.play import sandbox
from app.engine.play.sandbox import Limits, network_prefix

__all__ = ["ExecResult", "Executor", "Limits", "SandboxViolation", "Workspace", "network_prefix"]

PROGRAM_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".html", ".css")
"""The program's own code a refiner reads and patches: Python, and a web page's scripts, markup and styles."""
SOURCE_SUFFIXES = (*PROGRAM_SUFFIXES, ".toml", ".txt", ".json", ".cfg", ".ini", ".md")
"""Files a workspace considers part of the program (diffs and snapshots)."""
SKIPPED_DIRS = {"__pycache__", ".pytest_cache", ".home", ".tmp", ".git", "bugs", ".playcoder"}
COPY_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".home", ".tmp")
COMMAND_ENV = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0", "SDL_AUDIODRIVER": "dummy",
               "SDL_VIDEODRIVER": "dummy"}
"""What every repair command gets on top of the sandbox's whitelist (no display: unit tests run headless)."""
_NO_SPACE = re.compile(r"No space left on device|Errno 28|Disk quota exceeded")


class SandboxViolation(UserError):
    """A repair tool tried to touch a path outside its copy of the program."""


@dataclass(frozen=True)
class ExecResult:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool
    limit: str | None
    """Which limit ended the process: wall, cpu, memory, fsize, disk, or None."""
    network_isolated: bool
    confined: bool = False
    """True when bubblewrap confined it; False in the fallback (limits and a clean environment only)."""

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


class Executor:
    """Runs commands confined to throwaway copies (see the module docstring)."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()

    @contextmanager
    def copy_of(self, source: Workspace | Path) -> Iterator[Workspace]:
        """A temporary copy of ``source``, deleted afterwards."""
        src = source if isinstance(source, Workspace) else Workspace(source)
        with tempfile.TemporaryDirectory(prefix="playcoder-sandbox-") as tmp:
            yield src.copy_to(Path(tmp) / "program")

    def run_in_copy(self, source: Workspace | Path, argv: Sequence[str], *, limits: Limits | None = None,
                    env: Mapping[str, str] | None = None, stdin: str | None = None) -> ExecResult:
        with self.copy_of(source) as copy:
            return self.run(copy, argv, limits=limits, env=env, stdin=stdin)

    def run(self, copy: Workspace, argv: Sequence[str], *, limits: Limits | None = None,
            env: Mapping[str, str] | None = None, stdin: str | None = None) -> ExecResult:
        """Run ``argv`` in the sandbox on ``copy`` (a throwaway copy); its ``.playcoder-*`` results land in ``copy``."""
        lim = limits or self.limits
        jail = sandbox.Jail(copy.root, env={**COMMAND_ENV, **(env or {})}, limits=lim, import_from_folder=True)
        out = sandbox.run(argv, jail, stdin=stdin, collect=True)
        for name, data in out.collected.items():
            copy.resolve(name).write_bytes(data)
        limit = "wall" if out.timed_out else "disk" if out.disk_exceeded else _limit_from(out.returncode, out.stderr)
        return ExecResult(tuple(argv), out.returncode, out.stdout, out.stderr, out.seconds, out.timed_out, limit,
                          out.network_isolated, out.confined)


def _limit_from(code: int, stderr: str) -> str | None:
    if code == -signal.SIGXCPU or code == -signal.SIGKILL and "CPU" in stderr:
        return "cpu"
    if code == -signal.SIGXFSZ or "File too large" in stderr:
        return "fsize"
    if code != 0 and ("MemoryError" in stderr or "Cannot allocate memory" in stderr
                      or "std::bad_alloc" in stderr):
        return "memory"
    if code != 0 and _NO_SPACE.search(stderr):
        return "disk"
    return None
