"""The program's own Python environment, built once from its ``requirements`` and cached.

A target that declares ``requirements = "requirements.txt"`` (or ``"pyproject.toml"``: its
``[project].dependencies``) is played by the Python of an environment built for it: a virtual
environment made from the engine's interpreter (so tkinter and the engine's Python version are
there), holding exactly what the file names.  It is built with uv when uv is installed (fast,
with its own cache), else with ``python -m venv`` and pip, and kept under the user cache folder,
named by a hash of the file's content and the interpreter: the second run of the same target
starts at once, and a change of the file builds a new one.

The self-contained bundle has no real interpreter (its ``python`` is the bundle itself, which
cannot make a venv): there the packages are installed with ``--target`` into a folder that goes on
the program's ``PYTHONPATH``, by uv or pip of a host Python of the bundle's own version, so that
compiled packages match the bundle's ABI.

The engine's seeding ``sitecustomize`` stays first on the program's ``PYTHONPATH`` either way
(:func:`app.engine.play.target.target_environment`), and the sandbox shows the environment
read-only (:func:`app.engine.play.sandbox.interpreter_paths` finds a venv from its interpreter).
Installers run outside the sandbox (they need the package index) with an environment from which
secret-looking variables are removed, except the installers' own settings (``PIP_*``, ``UV_*``).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from app.engine.errors import TargetError

BUILD_TIMEOUT_S = 900
"""The longest an environment build may take (compiling a package from source can be slow)."""
TAIL_LINES = 8
"""How many of the installer's last output lines a failed build shows."""
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


def env_key(lines: list[str]) -> str:
    """The cache name: the requirement lines and the interpreter that will run them."""
    h = hashlib.sha256()
    h.update("\n".join(lines).encode())
    h.update(f"{sys.version}|{os.path.realpath(sys.executable)}|{_frozen()}".encode())
    return h.hexdigest()[:16]


def find_uv() -> str | None:
    """uv on PATH, else the binary the ``uv`` package installed for the engine's Python."""
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


def _run(argv: list[str], cwd: Path, what: str, req: str) -> None:
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S,
                              env=_installer_env())
    except subprocess.TimeoutExpired as exc:
        raise TargetError(f"building the program's environment from {req} took over {BUILD_TIMEOUT_S} s ({what}); "
                          "install the packages by hand into a venv and name its python in command.") from exc
    except OSError as exc:
        raise TargetError(f"could not run {argv[0]} to build the program's environment ({exc}); "
                          "install uv or pip.") from exc
    if proc.returncode != 0:
        tail = " | ".join(line for line in (proc.stdout + proc.stderr).strip().splitlines()[-TAIL_LINES:])
        raise TargetError(f"could not build the program's environment from {req} ({what} exited with code "
                          f"{proc.returncode}); fix the requirements or check the package index — the installer "
                          f"said: {tail}")


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


def _build(dest: Path, req_file: Path, req: str, cwd: Path) -> None:
    uv = find_uv()
    if _frozen():
        host = _host_python()
        if host is None:
            raise TargetError(f"the bundle needs a Python {sys.version_info.major}.{sys.version_info.minor} on PATH "
                              f"to install {req} for the program; install one, or make a venv yourself and name its "
                              "python in command")
        cmd = ([uv, "pip", "install", "--python", host, "--target", str(dest), "-r", str(req_file)] if uv
               else [host, "-m", "pip", "install", "--target", str(dest), "-r", str(req_file)])
        _run(cmd, cwd, "uv pip install" if uv else "pip install", req)
        return
    python = dest / "bin" / "python"
    if uv:
        _run([uv, "venv", "--quiet", "--python", sys.executable, str(dest)], cwd, "uv venv", req)
        _run([uv, "pip", "install", "--python", str(python), "-r", str(req_file)], cwd,
             "uv pip install", req)
    else:
        _run([sys.executable, "-m", "venv", str(dest)], cwd, "python -m venv", req)
        _run([str(python), "-m", "pip", "install", "-r", str(req_file)], cwd, "pip install", req)


_built: dict[tuple[str, str], ProgramEnv] = {}


def program_env(folder: Path, requirements: str) -> ProgramEnv:
    """The environment for ``folder``'s ``requirements`` file, built now unless the cache holds it.

    Relative paths in the file (a local wheel, ``./vendor/pkg``) are read from the file's own folder.
    Concurrent runs of the same target wait for one build (a lock file beside it)."""
    lines = requirement_lines(folder, requirements)
    key = env_key(lines)
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
            req_file, made = folder / requirements, None
            if os.path.basename(requirements) == PYPROJECT:  # its dependencies as a requirements file, outside
                with tempfile.NamedTemporaryFile("w", suffix=".txt", prefix="playcoder-req-", delete=False) as fh:
                    fh.write("\n".join(lines) + "\n")
                made = Path(fh.name)
            try:
                _build(dest, made or req_file, requirements, req_file.parent)
            except BaseException:
                shutil.rmtree(dest, ignore_errors=True)
                raise
            finally:
                if made is not None:
                    made.unlink()
            (dest / COMPLETE_MARK).write_text(requirements + "\n")
    env = (ProgramEnv(sys.executable, str(dest), dest) if _frozen()
           else ProgramEnv(str(dest / "bin" / "python"), None, dest))
    _built[(key, str(folder))] = env
    return env
