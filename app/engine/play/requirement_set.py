"""What a program's requirements ask for, read without running anything and kept inside its folder.

A requirements file is the target's own text: it may include other files
(``-r``, ``-c``), name local packages (``./vendor/pkg``, a wheel, ``file:``
URLs) and local wheel folders (``-f``).  Every such path must lie inside the
program folder (or the engine's own interpreter); anything else is refused in
one sentence that names the file and the line, never with the content of the
file it names.  Includes are read here and flattened, so the installers see no
``-r`` of their own.

The result is split for the contained build (:mod:`app.engine.play.sandbox_build`):
``named`` requirements are fetched from the package index as wheels on the
host (no code runs); ``local`` packages are built and installed inside the
sandbox, offline.  What a local package needs to build (``[build-system]
requires``) and its static ``[project] dependencies`` (or a wheel's
``Requires-Dist``) are read from its files, so they are fetched too.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tomllib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from app.engine.errors import TargetError

MAX_INCLUDES = 16
"""How deep ``-r`` / ``-c`` includes may nest."""
MAX_LINES = 5000
"""Requirement lines in all files together."""
INDEX_OPTIONS = ("--index-url", "--extra-index-url", "--trusted-host", "--pre", "--prefer-binary", "--no-index")
"""Options passed on to the host's download (they choose where wheels come from, never run code)."""
SHORT = {"-r": "--requirement", "-c": "--constraint", "-e": "--editable", "-f": "--find-links", "-i": "--index-url"}
ARCHIVES = (".whl", ".zip", ".tar.gz", ".tgz", ".tar.bz2", ".tar")
SETUPTOOLS = ["setuptools>=40.8.0", "wheel"]
"""What a package with no ``[build-system]`` builds with (pip's own default)."""
HASH_SKIPPED = frozenset({".git", "__pycache__"})


@dataclass
class RequirementSet:
    """The requirements, flattened: where each kind goes is said in the module's docstring."""

    named: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    local: list[Path] = field(default_factory=list)
    find_links: list[Path] = field(default_factory=list)
    build_needs: list[str] = field(default_factory=list)
    """Named requirements local packages need to build or run, read from their files (fetched as wheels)."""

    def key(self, root: Path) -> str:
        """What is built, for the environment cache: the requirement set and each local package by content."""
        h = hashlib.sha256()
        for tag, items in (("n", self.named), ("o", self.options), ("c", self.constraints),
                           ("b", self.build_needs)):
            for item in items:
                h.update(f"{tag}:{item}\n".encode())
        for tag, paths in (("l", self.local), ("f", self.find_links)):
            for path in paths:
                rel = os.path.relpath(path, root) if _under(str(path), str(root)) else str(path)
                h.update(f"{tag}:{rel}:{content_hash(path)}\n".encode())
        return h.hexdigest()


def _under(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip("/") + "/")


def _allowed_roots(root: Path) -> list[str]:
    exe_prefix = os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))
    return [str(root), *(os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, exe_prefix))]


def content_hash(path: Path) -> str:
    """A file's or a folder's content (names, bytes, link targets), without reading anything outside it."""
    h = hashlib.sha256()
    if path.is_file():
        h.update(path.read_bytes())
        return h.hexdigest()
    for dirpath, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d not in HASH_SKIPPED)
        for name in sorted(files):
            full = os.path.join(dirpath, name)
            h.update(os.path.relpath(full, path).encode() + b"\0")
            try:
                h.update(os.readlink(full).encode() if os.path.islink(full) else Path(full).read_bytes())
            except OSError:
                h.update(b"?")
    return h.hexdigest()


def logical_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of each requirement, comments dropped and ``\\`` continuations joined."""
    out: list[tuple[int, str]] = []
    pending, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = "" if raw.lstrip().startswith("#") else raw
        cut = line.find(" #")
        line = (line[:cut] if cut >= 0 else line).strip()
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line, pending = " ".join((pending + line).split()), ""
        if line:
            out.append((start, line))
    if pending.strip():
        out.append((start, " ".join(pending.split())))
    return out


class Reader:
    """Reads one target's requirements (its file and every file it includes) into a :class:`RequirementSet`."""

    def __init__(self, folder: Path) -> None:
        self.root = Path(os.path.realpath(folder))
        self.out = RequirementSet()
        self.lines = 0

    def read(self, name: str, lines: list[str] | None = None) -> RequirementSet:
        """``name``'s requirements; ``lines``: already read (a pyproject's dependencies)."""
        path = Path(os.path.realpath(self.root / name))
        if not _under(str(path), str(self.root)):
            raise TargetError(f"playcoder.toml's requirements names {name[:200]!r}, which lies outside the program "
                              "folder; name a file inside it.")
        if lines is None:
            self._file(path, name, 0, constraint=False)
        else:
            for number, line in enumerate(lines, 1):
                self._line(path.parent, name, number, line, 0, constraint=False)
        return self.out

    def _file(self, path: Path, label: str, depth: int, constraint: bool) -> None:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise TargetError(f"cannot read the requirements file {label} ({exc.__class__.__name__}); "
                              "fix playcoder.toml's requirements.") from exc
        for number, line in logical_lines(text):
            self.lines += 1
            if self.lines > MAX_LINES:
                raise TargetError(f"{label} holds more than {MAX_LINES} requirement lines; shorten it.")
            self._line(path.parent, label, number, line, depth, constraint)

    def _inside(self, value: str, base: Path, label: str, number: int) -> Path:
        """``value`` (a path or a file: URL of the line) as an absolute path; refused when it leads outside."""
        text = unquote(urlparse(value).path) if value.startswith("file:") else os.path.expanduser(value)
        full = os.path.realpath(os.path.join(base, text))
        if not any(_under(full, r) for r in _allowed_roots(self.root)):
            raise TargetError(f"{label} line {number} names {value[:200]!r}, which lies outside the program folder; "
                              f"keep local packages and included files inside {self.root}.")
        return Path(full)

    def _line(self, base: Path, label: str, number: int, line: str, depth: int, constraint: bool) -> None:
        if not line.startswith("-"):
            self._requirement(base, label, number, line, constraint)
            return
        opt, _, value = line.partition("=") if line.startswith("--") and "=" in line.split()[0] \
            else line.partition(" ")
        if opt in SHORT or (len(opt) > 2 and opt[:2] in SHORT and not opt.startswith("--")):
            opt, value = (SHORT[opt], value) if opt in SHORT else (SHORT[opt[:2]], opt[2:] + " " + value)
        value = value.strip()
        if opt in ("--requirement", "--constraint"):
            if depth >= MAX_INCLUDES:
                raise TargetError(f"{label} line {number}: includes nest deeper than {MAX_INCLUDES}; flatten them.")
            path = self._inside(value, base, label, number)
            if not path.is_file():
                raise TargetError(f"{label} line {number} includes {value[:200]!r}, which is not a file in the "
                                  "program folder; fix the line.")
            self._file(path, os.path.relpath(path, self.root), depth + 1, constraint or opt == "--constraint")
        elif opt == "--editable":
            self._requirement(base, label, number, value, constraint)
        elif opt == "--find-links":
            if value.startswith(("http://", "https://")):
                self.out.options.append(f"--find-links {value}")
            else:
                self.out.find_links.append(self._inside(value, base, label, number))
        elif opt in INDEX_OPTIONS:
            if value.startswith("file:"):
                self._inside(value, base, label, number)
            self.out.options.append(line)
        else:
            raise TargetError(f"{label} line {number}: the option {opt[:60]!r} is not supported in a program's "
                              "requirements; remove it.")

    def _requirement(self, base: Path, label: str, number: int, line: str, constraint: bool) -> None:
        spec = line.split(";", 1)[0].split(" --", 1)[0].strip()
        _name, at, url = spec.partition("@")
        target = url.strip() if at and "://" in url or url.strip().startswith("file:") else spec
        if target.startswith("file:") or _looks_like_path(target):
            bare = target[:target.rindex("[")] if target.endswith("]") and "[" in target else target
            path = self._inside(bare, base, label, number)
            if constraint:
                raise TargetError(f"{label} line {number}: a constraint must name a package, not a path; fix it.")
            if not path.exists():
                raise TargetError(f"{label} line {number} names {bare[:200]!r}, which is not in the program folder; "
                                  "fix the line.")
            self.out.local.append(path)
            self.out.build_needs += static_needs(path)
        elif constraint:
            self.out.constraints.append(line)
        else:
            self.out.named.append(line)


def _looks_like_path(spec: str) -> bool:
    return "/" in spec or "\\" in spec or spec.startswith((".", "~")) or spec.lower().endswith(ARCHIVES)


def static_needs(path: Path) -> list[str]:
    """What a local package says it needs to build and to run, read from its files (nothing of it runs)."""
    if path.is_file() and path.name.endswith(".whl"):
        return _wheel_requires(path)
    if path.is_file():
        return list(SETUPTOOLS)  # an sdist: its pyproject is inside the archive; setuptools is pip's default
    pyproject = path / "pyproject.toml"
    if not pyproject.is_file():
        return list(SETUPTOOLS)
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return list(SETUPTOOLS)
    system = data.get("build-system")
    needs = system.get("requires", []) if isinstance(system, dict) else SETUPTOOLS
    project = data.get("project")
    deps = project.get("dependencies", []) if isinstance(project, dict) else []
    return [d for d in [*(needs if isinstance(needs, list) else []), *(deps if isinstance(deps, list) else [])]
            if isinstance(d, str) and d and not d.startswith("-") and not _looks_like_path(d.split(";")[0])]


def _wheel_requires(path: Path) -> list[str]:
    try:
        with zipfile.ZipFile(path) as zf:
            meta = next((n for n in zf.namelist() if n.endswith(".dist-info/METADATA") and n.count("/") == 1), None)
            text = zf.read(meta).decode("utf-8", "replace") if meta else ""
    except (OSError, zipfile.BadZipFile, KeyError):
        return []
    out = []
    for line in text.splitlines()[:5000]:
        if line.startswith("Requires-Dist:"):
            dep = line.split(":", 1)[1].strip()
            if "extra ==" not in dep and not _looks_like_path(dep.split(";")[0]):
                out.append(dep)
    return out
