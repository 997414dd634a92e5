"""Which folders of the host a sandboxed program's interpreter needs, and which the sandbox may show.

The command's first word is found (a path in the program folder, or a program on PATH, through a script's
``#!`` line); a venv is shown with the base Python its ``pyvenv.cfg`` names, a plain interpreter with its
prefix.  Only folders under the system's read-only folders, the program folder or the engine's own
interpreter are ever shown for a target's sake: a ``home`` elsewhere is refused naming its line, and an
interpreter in any other folder stays unseen (:func:`unseen_interpreter` says so in one sentence).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Sequence

from app.engine.errors import UserError

BASE_RO = ("/usr", "/etc", "/opt", "/sys", "/var/cache/fontconfig")
TOP_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
HIDDEN = ("/home", "/root")
SHEBANG_BYTES = 256
"""How much of a script is read for its ``#!`` line."""
MAX_CFG_LINES = 200
"""Lines of a venv's ``pyvenv.cfg`` read for its ``home``."""


class SandboxError(UserError):
    """A program could not be started in the sandbox."""


def _under(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip("/") + "/")


def resolve_command(word: str, folder: Path, path: str | None = None) -> str | None:
    """Where the command's first word is: a path (relative to the program folder) or a program on ``path``."""
    if "/" in word:
        full = word if os.path.isabs(word) else os.path.join(os.path.realpath(folder), word)
        return os.path.abspath(full) if os.path.isfile(full) else None
    return shutil.which(word, path=path if path is not None else os.environ.get("PATH", os.defpath))


def _shebang(exe: str, path: str | None) -> str | None:
    """The interpreter a script names on its ``#!`` line (``/usr/bin/env NAME`` looked up on ``path``)."""
    try:
        with open(exe, "rb") as fh:
            head = fh.read(SHEBANG_BYTES)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode(errors="replace").split()
    if words and os.path.basename(words[0]) == "env" and len(words) > 1:
        return shutil.which(words[1], path=path)
    return words[0] if words and os.path.isabs(words[0]) else None


def _venv_of(exe: str) -> str | None:
    """The virtual environment an interpreter belongs to: the folder with ``pyvenv.cfg`` next to or above it."""
    bindir = os.path.dirname(exe)
    for candidate in (bindir, os.path.dirname(bindir)):
        if os.path.isfile(os.path.join(candidate, "pyvenv.cfg")):
            return candidate
    return None


def _prefix_of(bindir: str) -> str:
    """An installation's prefix from the folder of its executable (``/opt/py/bin`` -> ``/opt/py``)."""
    return os.path.dirname(bindir) if os.path.basename(bindir) in ("bin", "Scripts") else bindir


def interpreter_paths(argv: Sequence[str], folder: Path, path: str | None = None) -> list[str]:
    """Folders the command's interpreter needs, to be shown read-only: its venv and the venv's base Python
    (``home`` in ``pyvenv.cfg``), or a plain interpreter's prefix.  A venv anywhere (under /tmp, in a home folder)
    is one folder; a whole home folder, ``/`` or the program folder itself is never returned."""
    if not argv:
        return []
    exe = resolve_command(argv[0], folder, path)
    if exe is None:
        return []
    named = _shebang(exe, path) if not os.path.basename(exe).startswith("python") else None
    exe = named or exe
    found: list[str] = []
    venv = _venv_of(exe)
    if venv is not None:
        found.append(venv)
        home = _venv_home(venv, folder)
        if home:
            found.append(_prefix_of(home))
    prefix = _prefix_of(os.path.dirname(os.path.realpath(exe)))
    if venv is not None and _under(os.path.realpath(prefix), os.path.realpath(venv)) or _may_show(prefix, folder):
        found.append(prefix)  # else it stays unseen: unseen_interpreter says so in one sentence
    home_dir = os.path.realpath(os.path.expanduser("~"))
    own = os.path.realpath(folder)
    out: list[str] = []
    for p in (os.path.realpath(f) for f in found):
        if os.path.isdir(p) and p not in (home_dir, "/", *HIDDEN) and not _under(p, own) and not _under(own, p) \
                and not any(_under(p, b) for b in BASE_RO) and p not in out:
            out.append(p)
    return out


def _own_prefixes() -> list[str]:
    """The engine's own interpreter: its prefixes and the folder of its executable's prefix."""
    return [os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                          _prefix_of(os.path.dirname(os.path.realpath(sys.executable))))]


def _may_show(path: str, folder: Path) -> bool:
    """An interpreter's folder the sandbox may show: a system folder, the program folder or the engine's own
    interpreter (never a folder a target merely names, such as one under a home folder's ``.config``)."""
    real = os.path.realpath(path)
    roots = [*BASE_RO, *(os.path.realpath(t) for t in TOP_LINKS if os.path.exists(t)), os.path.realpath(folder),
             *_own_prefixes()]
    return any(_under(real, r) for r in roots)


def _venv_home(venv: str, folder: Path) -> str | None:
    """``home`` in the venv's ``pyvenv.cfg``: it must lie where :func:`_may_show` allows, else the start is refused
    naming the line (its value is the file's own, not a host file's content)."""
    cfg = os.path.join(venv, "pyvenv.cfg")
    try:
        text = Path(cfg).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for number, line in enumerate(text.splitlines()[:MAX_CFG_LINES], 1):
        key, sep, value = line.partition("=")
        if sep and key.strip() == "home":
            home = value.strip()
            if home and not _may_show(_prefix_of(home), folder):
                raise SandboxError(f"{cfg} line {number} names home = {home[:200]!r}, outside the program folder "
                                   "and the engine's own Python; make the venv from a Python under /usr or /opt "
                                   "(or the engine's), or declare requirements in playcoder.toml.")
            return home or None
    return None


def unseen_interpreter(argv: Sequence[str], folder: Path, shown: Sequence[str], path: str | None = None) -> str | None:
    """One sentence when the command's program cannot be seen inside the sandbox, else None.

    ``shown`` are the folders bound besides the system ones; a program missing altogether, or lying in a folder
    the sandbox hides (a home folder itself, /run, /var), is told here instead of ending as exit 127, not found."""
    if not argv:
        return None
    exe = resolve_command(argv[0], folder, path)
    if exe is None:
        return (f"the command's program {argv[0]!r} is neither a file in {folder} nor a program on PATH; "
                "give its full path in playcoder.toml's command (e.g. /path/to/venv/bin/python)")
    real = os.path.realpath(exe)
    visible = [*BASE_RO, *(os.path.realpath(t) for t in TOP_LINKS if os.path.exists(t)), os.path.realpath(folder),
               *(os.path.realpath(s) for s in shown)]
    if any(_under(real, v) for v in visible):
        return None
    return (f"the command's program {exe} (really {real}) lies in a folder the sandbox does not show to programs; "
            "install it in a virtual environment (python -m venv) or under /opt or /usr, or declare "
            'requirements = "requirements.txt" in playcoder.toml and let the engine build one')
