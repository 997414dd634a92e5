"""The program's own Python environment, built once from its ``requirements`` and cached.

A target that declares ``requirements = "requirements.txt"`` (or ``"pyproject.toml"``: its
``[project].dependencies``) is played by the Python of an environment built for it: a virtual
environment made from the engine's interpreter (so tkinter and the engine's Python version are
there), holding exactly what the file names.  The file is read and checked first
(:mod:`app.engine.play.requirement_set`: includes flattened, every local path inside the program
folder), then built contained (:mod:`app.engine.play.sandbox_build`: wheels fetched on the host
with no code run, everything else installed in the sandbox, offline).  It is kept under the user
cache folder, named by a hash of what is built (the flattened requirement set, each local package
by content) and the interpreter: the second run of the same target starts at once, and a change of
the file or of a local package builds a new one.

The self-contained bundle has no real interpreter (its ``python`` is the bundle itself, which
cannot make a venv): there the packages are installed with ``--target`` into a folder that goes on
the program's ``PYTHONPATH``, by uv or pip of a host Python of the bundle's own version, so that
compiled packages match the bundle's ABI.

The engine's seeding ``sitecustomize`` stays first on the program's ``PYTHONPATH`` either way
(:func:`app.engine.play.target.target_environment`), and the sandbox shows the environment
read-only (:func:`app.engine.play.sandbox.interpreter_paths` finds a venv from its interpreter).
The host's fetch gets an environment from which secret-looking variables are removed, except the
installers' own settings (``PIP_*``, ``UV_*``); the install in the sandbox gets the sandbox's whitelist.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from app.engine.errors import TargetError
from app.engine.play.requirement_set import Reader, RequirementSet
from app.engine.play.sandbox_build import BUILD_TIMEOUT_S, build

__all__ = ["BUILD_TIMEOUT_S", "ProgramEnv", "cache_root", "env_key", "find_uv", "program_env", "requirement_lines"]
COMPLETE_MARK = ".playcoder-complete"
"""Written last into a built environment: a folder without it is a half-built one and is built again."""
PYPROJECT = "pyproject.toml"
_INSTALLER_PREFIXES = ("PIP_", "UV_")


@dataclass(frozen=True)
class ProgramEnv:
    """What the engine runs a program with: ``python`` replaces the command's ``python``; ``pythonpath`` is put
    after the seeding folder on the program's ``PYTHONPATH`` (the bundle's packages folder)."""

    python: str
    pythonpath: str | None
    folder: Path
    """The built environment (shown read-only in the sandbox)."""


def cache_root() -> Path:
    """$PLAYCODER_ENV_CACHE, else ``envs`` in the user cache folder."""
    env = os.environ.get("PLAYCODER_ENV_CACHE")
    return Path(env).expanduser() if env else Path(platformdirs.user_cache_dir("playcoder", appauthor=False)) / "envs"


def requirement_lines(folder: Path, name: str) -> list[str]:
    """The requirement lines the file names: a requirements file as it is, a pyproject's dependencies."""
    path = folder / name
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TargetError(f"cannot read the requirements file {path} ({exc}); fix playcoder.toml's requirements.") \
            from exc
    if os.path.basename(name) != PYPROJECT:
        return text.splitlines()
    try:
        deps = tomllib.loads(text).get("project", {}).get("dependencies", [])
    except RecursionError as exc:  # tomllib recurses once per nesting level
        raise TargetError(f"{path} is nested too deeply to read; fix it.") from exc
    except tomllib.TOMLDecodeError as exc:
        raise TargetError(f"{path} is not valid TOML ({exc}); fix it.") from exc
    if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
        raise TargetError(f"{path}: [project].dependencies must be a list of strings; fix it.")
    return list(deps)


def _frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def env_key(reqs: RequirementSet, folder: Path) -> str:
    """The cache name: what is built (the flattened requirement set, local packages by content) and the
    interpreter that will run it."""
    h = hashlib.sha256()
    h.update(reqs.key(Path(os.path.realpath(folder))).encode())
    h.update(f"{sys.version}|{os.path.realpath(sys.executable)}|{_frozen()}".encode())
    return h.hexdigest()[:16]


def find_uv() -> str | None:
    """uv on PATH, else the binary the ``uv`` package installed for the engine's Python (kept for callers that
    install by hand; environment builds use pip, whose fetch can refuse every source build)."""
    found = shutil.which("uv")
    if found:
        return found
    try:
        import uv  # type: ignore[import-not-found]

        return str(uv.find_uv_bin())
    except (ImportError, FileNotFoundError, AttributeError):
        return None


def _installer_env() -> dict[str, str]:
    from app.engine.play.sandbox import is_secret

    env = {k: v for k, v in os.environ.items() if k.startswith(_INSTALLER_PREFIXES) or not is_secret(k, v)}
    env.update(UV_PYTHON_DOWNLOADS="never", PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONNOUSERSITE="1")
    env.pop("PYTHONPATH", None)
    return env


def _host_python() -> str | None:
    """For the bundle: a host Python of the bundle's own version (compiled packages must match its ABI)."""
    want = f"{sys.version_info.major}.{sys.version_info.minor}"
    for name in (f"python{want}", "python3", "python"):
        exe = shutil.which(name)
        if exe is None:
            continue
        try:
            out = subprocess.run([exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                 capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            continue
        if out == want:
            return exe
    return None


def _build(dest: Path, reqs: RequirementSet, req: str, folder: Path) -> None:
    host = None
    if _frozen():
        host = _host_python()
        if host is None:
            raise TargetError(f"the bundle needs a Python {sys.version_info.major}.{sys.version_info.minor} on PATH "
                              f"to install {req} for the program; install one, or make a venv yourself and name its "
                              "python in command")
    build(dest, reqs, folder, req, host, _installer_env())


_built: dict[tuple[str, str], ProgramEnv] = {}


def program_env(folder: Path, requirements: str) -> ProgramEnv:
    """The environment for ``folder``'s ``requirements`` file, built now unless the cache holds it.

    Relative paths in the file (a local wheel, ``./vendor/pkg``) are read from the file's own folder.
    Concurrent runs of the same target wait for one build (a lock file beside it)."""
    lines = requirement_lines(folder, requirements)
    reqs = Reader(folder).read(requirements, lines if os.path.basename(requirements) == PYPROJECT else None)
    key = env_key(reqs, folder)
    memo = _built.get((key, str(folder)))
    if memo is not None:
        return memo
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    dest = root / key
    with open(root / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (dest / COMPLETE_MARK).is_file():
            shutil.rmtree(dest, ignore_errors=True)
            try:
                _build(dest, reqs, requirements, folder)
            except BaseException:
                shutil.rmtree(dest, ignore_errors=True)
                raise
            (dest / COMPLETE_MARK).write_text(requirements + "\n")
    env = (ProgramEnv(sys.executable, str(dest), dest) if _frozen()
           else ProgramEnv(str(dest / "bin" / "python"), None, dest))
    _built[(key, str(folder))] = env
    return env
