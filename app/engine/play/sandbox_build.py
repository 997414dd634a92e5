"""Building a program's environment, contained like the program itself.

Two phases, so that nothing a requirement ships runs on the host:

1. **Fetch, on the host, with no code run.**  ``pip download --only-binary :all:``
   fetches the named requirements (and what local packages say they need) as
   wheels into a private folder.  A wheel is unpacked, never executed; a
   requirement that exists only as source is not fetched (the build says so).
   This is the only phase with network, and its environment has secrets
   removed (the installer's own ``PIP_*`` settings stay, for a private index).
2. **Install, in the sandbox, offline.**  The environment's pip installs from
   that folder with ``--no-index``, and builds local packages (``./vendor/pkg``,
   an sdist) there: through :func:`app.engine.play.sandbox.run` with the run's
   bounds (a cgroup, rlimits), no network, the whitelisted environment, the
   program folder as a throwaway copy and the wheel folder read-only; the
   environment folder is the only host folder it can write.

The empty virtual environment is made on the host by the engine's own
interpreter (``python -m venv``: the standard library's code, nothing of the
target's).  Where bubblewrap cannot run, phase 2 runs under the sandbox's
fallback (rlimits, the run's cgroup, a clean environment, a copy of the folder).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Mapping

from app.engine.errors import TargetError
from app.engine.play.requirement_set import RequirementSet
from app.engine.play.sandbox import TARGET_LIMITS, Jail, Limits, run

BUILD_TIMEOUT_S = 900
"""The longest one phase of a build may take (compiling a package from source can be slow)."""
BUILD_LIMITS: Limits = replace(TARGET_LIMITS, wall_s=BUILD_TIMEOUT_S, tmp_mb=1024)
"""A played target's bounds, with a wall clock and room in /tmp to unpack large wheels."""
TAIL_LINES = 8
"""How many of the installer's last output lines a failed build shows."""
QUIET = ["--no-input", "--disable-pip-version-check", "--progress-bar", "off"]


def _tail(text: str) -> str:
    return " | ".join(line for line in text.strip().splitlines()[-TAIL_LINES:])


def _failed(what: str, label: str, code: int, said: str) -> TargetError:
    return TargetError(f"could not build the program's environment from {label} ({what} exited with code {code}); "
                       "fix the requirements or check the package index (requirements are fetched as wheels; a "
                       "local package's own dependencies must be named in the file) — the installer said: "
                       f"{_tail(said)}")


def host_run(argv: list[str], cwd: Path, what: str, label: str, env: Mapping[str, str]) -> None:
    """One host step that runs only the engine's interpreter and pip's own code (never a target's)."""
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, env=dict(env),
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        raise TargetError(f"building the program's environment from {label} took over {BUILD_TIMEOUT_S} s ({what}); "
                          "install the packages by hand into a venv and name its python in command.") from exc
    except OSError as exc:
        raise TargetError(f"could not run {argv[0]} to build the program's environment ({exc.strerror}); "
                          "install Python's venv and pip.") from exc
    if proc.returncode != 0:
        raise _failed(what, label, proc.returncode, proc.stdout + proc.stderr)


def build(dest: Path, reqs: RequirementSet, folder: Path, label: str, host: str | None,
          env: Mapping[str, str]) -> None:
    """Build ``reqs`` into ``dest``: a venv, or (``host``: the bundle's host Python) a ``--target`` folder."""
    with tempfile.TemporaryDirectory(prefix="playcoder-build-") as tmp:
        work = Path(tmp)
        wheels = work / "wheels"
        wheels.mkdir()
        if host is None:
            host_run([sys.executable, "-m", "venv", str(dest)], work, "python -m venv", label, env)
            python, into = str(dest / "bin" / "python"), []
        else:
            dest.mkdir(parents=True, exist_ok=True)
            python, into = host, ["--target", str(dest)]
        links = [arg for path in reqs.find_links for arg in ("--find-links", str(path))]
        cons: list[str] = []
        if reqs.constraints:
            (work / "constraints.txt").write_text("\n".join(reqs.constraints) + "\n")
            cons = ["-c", str(work / "constraints.txt")]
        fetch = [*reqs.named, *reqs.build_needs]
        if fetch:
            (work / "fetch.txt").write_text("\n".join([*reqs.options, *fetch]) + "\n")
            host_run([python, "-m", "pip", "download", "--only-binary", ":all:", "--dest", str(wheels), *QUIET,
                      *links, "-r", str(work / "fetch.txt"), *cons], work, "pip download (wheels only)", label, env)
        (work / "install.txt").write_text("\n".join([*reqs.named, *(str(p) for p in reqs.local)]) + "\n")
        argv = [python, "-m", "pip", "install", "--no-index", "--find-links", str(wheels), *links, "--no-cache-dir",
                *QUIET, *into, "-r", str(work / "install.txt"), *cons]
        outcome = run(argv, Jail(folder, read_only=(work,), writable=(dest,), limits=BUILD_LIMITS))
        if outcome.timed_out:
            raise TargetError(f"building the program's environment from {label} took over {BUILD_TIMEOUT_S} s "
                              "(pip install in the sandbox); install the packages by hand into a venv and name its "
                              "python in command.")
        if outcome.returncode != 0:
            raise _failed("pip install in the sandbox", label, outcome.returncode, outcome.stdout + outcome.stderr)
