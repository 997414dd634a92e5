"""Target folders: ``playcoder.toml`` parsing, validation and bug-variant resolution.

A TARGET argument is a folder holding ``playcoder.toml``, a bundled app name
(``tiles2048``), or either of those with ``@BUG_ID`` to play a bug variant: the
bug's patch is applied to a temporary copy, never to the source folder.
"""

from __future__ import annotations

import hashlib
import os
import importlib.resources
import shutil
import subprocess
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from app.engine.errors import TargetError
from app.engine.play.actions import Action, Hotkey, Press
from app.engine.play.executor import ActionRefused, keysym_for
from app.engine.play.scriptspec import ScriptCase, parse_script
from app.engine.play.webspec import WebSpec, parse_web

SPEC_FILE = "playcoder.toml"
KINDS = ("game", "app")
NETWORKS = ("none", "loopback")
MAX_ENV_VALUE_CHARS = 32 * 1024
"""An [env] entry longer than this is refused: environments are for settings, not data."""
"""What a target may reach (play/sandbox.py): nothing, or a loopback of its own."""
_TREE = Path(__file__).resolve().parents[3]
APPS_DIR = (_TREE if (_TREE / "pyproject.toml").is_file()  # a source tree, else the copy an installed package ships
            else Path(str(importlib.resources.files("app"))) / "_data") / "benchmark" / "apps"
WILD_DIR = APPS_DIR.parent / "wild"
"""Programs written the ordinary way, not for the tester (benchmark/wild/README.md)."""
_TOP_KEYS = {"name", "kind", "command", "window", "size", "goal", "keys", "criteria", "env", "startup_timeout",
             "script", "unit_tests", "exit_ok", "timing", "differential", "network", "requirements", "frame_gate", "web",
             "run"}
_COPY_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "bugs", ".git", ".venv", "venv",
                                      "node_modules")


@dataclass(frozen=True)
class Criterion:
    id: str
    text: str


@dataclass(frozen=True)
class Timing:
    """How long the engine waits and watches; ``[timing]`` in playcoder.toml (docs/targets.md).

    Built-in defaults < the target's ``[timing]`` table; every run records the values it used.
    """

    react_ms: int = 300
    """After an input, how long a still window is watched for a first reaction (slow scene builds)."""
    quiet_ms: int = 80
    """A window unchanged this long (after reacting) counts as settled."""
    settle_cap_ms: int = 1000
    """Never wait longer than this for a window to settle (the paper's fixed delay)."""
    animated_cap_ms: int = 250
    """For a window that animated at the last step, look after this long."""
    freeze_s: float = 5.0
    """Sustained unresponsiveness (no repaint, no exit) for this long is a freeze."""
    no_response_s: float = 4.0
    """Inputs must have gone unanswered over at least this long before ``no-response``."""
    no_response_tries: int = 12
    """... and over at least this many recent inputs on a still window."""
    dead_key_screens: int = 5
    """An app's declared key that changed nothing on this many different still screens is dead input; 0: never."""
    hold_ms: int = 100
    """Keys and mouse buttons are held this long, as a person does."""
    glitch_ms: int = 80
    """A picture shown at most this long between two equal ones is a glitch (a one-frame flash); 0: never."""

    def as_dict(self) -> dict[str, float]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


TIMING_LIMITS: dict[str, tuple[float, float]] = {
    "react_ms": (0, 5000), "quiet_ms": (10, 2000), "settle_cap_ms": (50, 30000), "animated_cap_ms": (20, 5000),
    "freeze_s": (0.5, 120), "no_response_s": (0, 600), "no_response_tries": (2, 1000), "hold_ms": (0, 2000),
    "dead_key_screens": (0, 1000),
    "glitch_ms": (0, 1000),
}


def parse_timing(raw: Any, fail: Any) -> Timing:
    if not isinstance(raw, dict):
        raise fail('"timing" must be a table such as [timing] with react_ms = 300')
    unknown = set(raw) - set(TIMING_LIMITS)
    if unknown:
        raise fail(f"unknown timing key(s) {', '.join(sorted(unknown))}; allowed are {', '.join(sorted(TIMING_LIMITS))}")
    values: dict[str, Any] = {}
    for key, value in raw.items():
        lo, hi = TIMING_LIMITS[key]
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not lo <= value <= hi:
            raise fail(f'"timing.{key}" must be a number between {lo:g} and {hi:g}')
        values[key] = int(value) if key.endswith(("_ms", "_tries", "_screens")) else float(value)
    return Timing(**values)


MAX_BUG_DURATION_S = 3600
"""The longest ``duration_s`` a bug variant may declare (an hour of play)."""


@dataclass(frozen=True)
class BugInfo:
    id: str
    type: str
    difficulty: str
    description: str
    repro: tuple[str, ...]
    expected_finding: str
    long: bool = False
    """A long-run bug: it shows only after minutes of play, so ``bench detect`` plays it (with ``--long``) for
    ``duration_s`` seconds instead of a number of steps."""
    duration_s: float | None = None


@dataclass(frozen=True)
class TargetSpec:
    """A validated target; ``folder`` is where the command runs (a temp copy for bugs)."""

    name: str
    kind: str
    command: tuple[str, ...]
    folder: Path
    source: Path
    size: tuple[int, int] = (800, 600)
    window_title: str | None = None
    goal: str = ""
    keys: tuple[str, ...] = ()
    criteria: tuple[Criterion, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    startup_timeout: float = 20.0
    bug: str | None = None
    script: tuple[ScriptCase, ...] = ()
    """Scripted rubric cases ([[script]]), played by the script tester."""
    unit_tests: tuple[str, ...] = ("test_*.py",)
    """Glob patterns (relative to the folder) of the app's own unit tests, for `bench play`."""
    exit_ok: bool = False
    """An exit with code 0 ends an episode (the engine restarts the program), not the run."""
    nondeterministic: tuple[tuple[int, int, int, int], ...] = ()
    """Window regions [x0, y0, x1, y1] whose content is not behaviour (a clock, a random tip):
    differential play does not compare them (``[differential] ignore``)."""
    timing: Timing = field(default_factory=Timing)
    network: str = "none"
    """``none`` or ``loopback``: the target runs in a network namespace of its own either way."""
    run: dict[str, Any] = field(default_factory=dict)
    """The ``[run]`` table: run settings this target asks for (checked when a run resolves its settings:
    app/engine/run/settings.py), over the user's config and under the command line."""
    frame_gate: bool = False
    """The script tester plays this pygame game on the frame gate from its first frame (docs/targets.md)."""
    requirements: str | None = None
    """A requirements file (or ``pyproject.toml``) in the folder: the program's ``python`` is an environment
    built from it (play/program_env.py)."""
    web: WebSpec | None = None
    """A web page, played in a browser window (``command`` is then the page's own server, if any)."""

    @property
    def label(self) -> str:
        return f"{self.name}@{self.bug}" if self.bug else self.name

    def revision(self) -> str:
        """A short content hash of the folder's source files (what was actually played)."""
        h = hashlib.sha256()
        for path in sorted(self.folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                h.update(str(path.relative_to(self.folder)).encode())
                h.update(path.read_bytes())
        return h.hexdigest()[:12]


def load_spec(folder: Path, *, source: Path | None = None, bug: str | None = None) -> TargetSpec:
    path = folder / SPEC_FILE
    if not path.is_file():
        raise TargetError(f"{folder} has no {SPEC_FILE}; point TARGET at a folder that contains one.")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except RecursionError as exc:  # tomllib recurses once per nesting level
        raise TargetError(f"{path} is nested too deeply to read; fix the file and try again.") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TargetError(f"{path} is not valid TOML ({exc}); fix the file and try again.") from exc
    return parse_spec(data, folder=folder, source=source or folder, bug=bug, where=str(path))


def parse_spec(data: dict[str, Any], *, folder: Path, source: Path, bug: str | None, where: str) -> TargetSpec:
    def fail(msg: str) -> TargetError:
        return TargetError(f"{where}: {msg}.")

    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise fail(f"unknown key(s) {', '.join(sorted(unknown))}; allowed are {', '.join(sorted(_TOP_KEYS))}")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise fail('"name" must be a non-empty string')
    kind = data.get("kind", "app")
    if kind not in KINDS:
        raise fail(f'"kind" must be "game" or "app", not {kind!r}')
    web = parse_web(data["web"], folder, fail) if "web" in data else None
    command = _command(data, web, fail)
    size, title = _window(data, fail)
    goal = data.get("goal", "")
    if not isinstance(goal, str):
        raise fail('"goal" must be a string')
    criteria = _criteria(data, fail)
    timeout = data.get("startup_timeout", 20.0)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not 1 <= timeout <= 300:
        raise fail('"startup_timeout" must be a number of seconds between 1 and 300')
    network = data.get("network", "none")
    if network not in NETWORKS:
        raise fail(f'"network" must be "none" or "loopback", not {network!r}')
    run = data.get("run", {})
    if not isinstance(run, dict):
        raise fail('"run" must be a table of run settings ([run] with max_steps, duration_s, film_fps, …)')
    unit_tests = data.get("unit_tests", ["test_*.py"])
    if not isinstance(unit_tests, list) or not unit_tests or not all(isinstance(u, str) and u for u in unit_tests):
        raise fail('"unit_tests" must be a list of file patterns such as ["test_*.py"]')
    return TargetSpec(
        name=name.strip(), kind=kind, command=tuple(command), folder=folder, source=source,
        size=size, window_title=title, goal=goal, keys=_keys(data, fail), criteria=tuple(criteria),
        env=_env(data, fail), startup_timeout=float(timeout), bug=bug,
        script=parse_script(data.get("script", []), {c.id for c in criteria}, where), unit_tests=tuple(unit_tests),
        exit_ok=_flag(data, "exit_ok", fail), timing=parse_timing(data.get("timing", {}), fail),
        nondeterministic=_ignored(data, fail), network=network, requirements=_requirements(data, folder, fail),
        frame_gate=_flag(data, "frame_gate", fail), web=web, run=dict(run),
    )


_Fail = Callable[[str], TargetError]


def _command(data: dict[str, Any], web: WebSpec | None, fail: _Fail) -> list[str]:
    command = data.get("command")
    if web is not None and command is not None:
        raise fail('a web page needs no "command": its server is "web.command" (or the engine serves the folder)')
    if web is not None:
        command = list(web.command)
    if isinstance(command, str):
        command = command.split()
    if web is None and (not isinstance(command, list) or not command
                        or not all(isinstance(c, str) and c for c in command)):
        raise fail('"command" must be a non-empty list of strings, e.g. ["python", "main.py"] (or "web" names a '
                   'page)')
    assert isinstance(command, list)
    return command


def _window(data: dict[str, Any], fail: _Fail) -> tuple[tuple[int, int], str | None]:
    """The declared size and the window's title, if any."""
    size = data.get("size", [800, 600])
    if (
        not isinstance(size, list) or len(size) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and 50 <= v <= 4096 for v in size)
    ):
        raise fail('"size" must be [width, height] in pixels, each between 50 and 4096')
    window = data.get("window", {})
    if not isinstance(window, dict) or set(window) - {"title"}:
        raise fail('"window" must be a table with an optional "title"')
    title = window.get("title")
    if title is not None and not isinstance(title, str):
        raise fail('"window.title" must be a string')
    return (size[0], size[1]), title


def _keys(data: dict[str, Any], fail: _Fail) -> tuple[str, ...]:
    keys = data.get("keys", [])
    if not isinstance(keys, list) or not all(isinstance(k, str) and k for k in keys):
        raise fail('"keys" must be a list of key names such as ["space", "r"]')
    for k in keys:
        bad = unknown_key(k)
        if bad is not None:
            what = f"{bad!r} is not a key name" if bad else "one of its parts is empty"
            raise fail(f'"keys" has {k!r}, but {what}; use key names such as "space", "enter", "a", "F5" '
                       'or combos such as "ctrl+s"')
    return tuple(keys)


def _criteria(data: dict[str, Any], fail: _Fail) -> list[Criterion]:
    criteria_raw = data.get("criteria", [])
    if not isinstance(criteria_raw, list):
        raise fail('"criteria" must be an array of tables ([[criteria]] with id and text)')
    criteria: list[Criterion] = []
    for i, c in enumerate(criteria_raw, 1):
        if not isinstance(c, dict) or not isinstance(c.get("id"), str) or not isinstance(c.get("text"), str):
            raise fail(f"criterion {i} needs string fields id and text")
        if any(existing.id == c["id"] for existing in criteria):
            raise fail(f"criterion id {c['id']!r} is used twice")
        criteria.append(Criterion(c["id"], c["text"]))
    return criteria


def _env(data: dict[str, Any], fail: _Fail) -> dict[str, str]:
    env = data.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise fail('"env" must be a table of string values')
    long_value = next((k for k, v in env.items() if len(k) + len(v) > MAX_ENV_VALUE_CHARS), None)
    if long_value is not None:
        raise fail(f'[env] {long_value[:40]!r} holds more than {MAX_ENV_VALUE_CHARS} characters; pass large data in a '
                   'file in the program folder instead')
    return dict(env)


def _flag(data: dict[str, Any], key: str, fail: _Fail) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise fail(f'"{key}" must be true or false')
    return value


def _ignored(data: dict[str, Any], fail: _Fail) -> tuple[tuple[int, int, int, int], ...]:
    """``differential.ignore``: window regions whose content is not behaviour."""
    differential = data.get("differential", {})
    if not isinstance(differential, dict) or set(differential) - {"ignore"}:
        raise fail('"differential" must be a table with an optional "ignore" list of [x0, y0, x1, y1] regions')
    ignore = differential.get("ignore", [])
    if not isinstance(ignore, list) or not all(
            isinstance(b, list) and len(b) == 4 and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                                        for v in b) and b[0] < b[2] and b[1] < b[3] for b in ignore):
        raise fail('"differential.ignore" must be a list of [x0, y0, x1, y1] window regions with x0 < x1 and y0 < y1')
    return tuple((b[0], b[1], b[2], b[3]) for b in ignore)


def _requirements(data: dict[str, Any], folder: Path, fail: _Fail) -> str | None:
    requirements = data.get("requirements")
    if requirements is not None and (not isinstance(requirements, str) or not requirements.strip()
                                     or requirements.startswith("/") or ".." in requirements.split("/")):
        raise fail('"requirements" must be a file inside the folder, such as "requirements.txt" or "pyproject.toml"')
    if requirements is not None and not (folder / requirements).is_file():
        raise fail(f'"requirements" names {requirements}, which is not a file in {folder}')
    return requirements


def hinted_action(key: str) -> Action:
    """A key of playcoder.toml's ``keys`` as an action: "space" -> Press, "ctrl+s" -> Hotkey."""
    parts = split_combo(key)
    return Press(parts[0]) if len(parts) == 1 else Hotkey(parts)


def split_combo(key: str) -> tuple[str, ...]:
    """The key names of a hinted key: "ctrl+s" -> ("ctrl", "s"), "+" -> ("+",), "ctrl++" -> ("ctrl", "+")."""
    if key == "+" or "+" not in key:
        return (key,)
    head, _, last = key.rpartition("+")
    if last == "" and head.endswith("+"):  # "ctrl++": the last key is "+" itself
        return (*split_combo(head[:-1]), "+")
    return (*head.split("+"), last)


def unknown_key(key: str) -> str | None:
    """The first part of a key or combo that is no key name ("" for an empty part), or None if all are."""
    for part in split_combo(key):
        if not part.strip():
            return part
        try:
            keysym_for(part)
        except ActionRefused:
            return part
    return None


def load_bugs(folder: Path) -> list[BugInfo]:
    """The bug variants listed in ``bugs/bugs.toml`` (empty when there is none)."""
    path = folder / "bugs" / "bugs.toml"
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except RecursionError as exc:
        raise TargetError(f"{path} is nested too deeply to read; fix the file.") from exc
    except tomllib.TOMLDecodeError as exc:
        raise TargetError(f"{path} is not valid TOML ({exc}); fix the file.") from exc
    bugs = []
    for entry in data.get("bug", []):
        bug_id = str(entry.get("id", ""))
        long, duration = _long_run(entry, f"{path}, bug {bug_id!r}")
        bugs.append(
            BugInfo(
                id=bug_id, type=str(entry.get("type", "")),
                difficulty=str(entry.get("difficulty", "")), description=str(entry.get("description", "")),
                repro=tuple(str(r) for r in entry.get("repro", [])),
                expected_finding=str(entry.get("expected_finding", "")),
                long=long, duration_s=duration,
            )
        )
    return bugs


def _long_run(entry: dict[str, Any], where: str) -> tuple[bool, float | None]:
    """``long`` and ``duration_s`` of a bug entry: a long-run bug must say how long to play it, and only it may."""
    long = entry.get("long", False)
    duration = entry.get("duration_s")
    if not isinstance(long, bool):
        raise TargetError(f'{where}: "long" must be true or false; fix the file.')
    if duration is None:
        if long:
            raise TargetError(f'{where}: a long-run bug needs "duration_s", the seconds of play it takes to show; '
                              "fix the file.")
        return False, None
    if not long:
        raise TargetError(f'{where}: "duration_s" applies only to a long-run bug (long = true); fix the file.')
    if not isinstance(duration, (int, float)) or isinstance(duration, bool) \
            or not 0 < duration <= MAX_BUG_DURATION_S:
        raise TargetError(f'{where}: "duration_s" must be a number of seconds between 0 and '
                          f"{MAX_BUG_DURATION_S}; fix the file.")
    return True, float(duration)


def list_apps() -> list[Path]:
    """The bundled sample targets: benchmark/apps, then benchmark/wild (names are unique across both)."""
    return [p for suite in (APPS_DIR, WILD_DIR) if suite.is_dir()
            for p in sorted(suite.iterdir()) if (p / SPEC_FILE).is_file()]


def app_folder(name: str) -> Path:
    """The folder of a bundled app (benchmark/apps or benchmark/wild) by name; TargetError if none."""
    for suite in (APPS_DIR, WILD_DIR):
        if (suite / name / SPEC_FILE).is_file():
            return suite / name
    names = ", ".join(p.name for p in list_apps()) or "none"
    raise TargetError(f"there is no bundled app {name!r}; the bundled apps are: {names}.")


@dataclass
class ResolvedTarget:
    """A spec plus the temporary copy to delete when a bug variant was materialised."""

    spec: TargetSpec
    tempdir: tempfile.TemporaryDirectory[str] | None = None

    def cleanup(self) -> None:
        if self.tempdir is not None:
            self.tempdir.cleanup()
            self.tempdir = None


def resolve_target(arg: str, *, in_place: bool = False) -> ResolvedTarget:
    """Turn a TARGET argument into a runnable spec (see the module docstring).

    The program is played in a scratch copy (a program that saves state must not
    rewrite the user's folder), unless ``in_place`` asks for the folder itself.  The
    copy's name is neutral: it never carries a bug id (what a program or a refiner
    sees of its path must not tell which bug it is).
    """
    base, _, bug = arg.partition("@")
    folder = Path(base).expanduser()
    if not folder.is_dir():
        folder = next((suite / base for suite in (APPS_DIR, WILD_DIR) if (suite / base).is_dir()), folder)
    if not folder.is_dir():
        names = ", ".join(p.name for p in list_apps()) or "none"
        raise TargetError(f"{base} is not a folder; give a target folder with {SPEC_FILE} or a bundled app ({names}).")
    folder = folder.resolve()
    if not bug and in_place:
        return ResolvedTarget(load_spec(folder))
    patch = folder / "bugs" / f"{bug}.patch"
    if bug and not patch.is_file():
        known = ", ".join(sorted(p.stem for p in (folder / "bugs").glob("*.patch"))) or "none"
        raise TargetError(f"{folder.name} has no bug variant {bug!r}; known variants: {known}.")
    load_spec(folder)  # a malformed spec is reported against the user's own file, before any copy
    _check_copy_size(folder)  # and a folder too large for the sandbox before it is copied (a 2 GB sparse file)
    tmp = tempfile.TemporaryDirectory(prefix="playcoder-play-")
    copy = Path(tmp.name) / folder.name
    try:
        shutil.copytree(folder, copy, ignore=_COPY_IGNORE, symlinks=True)
        if bug:
            apply_patch(copy, patch)
        spec = load_spec(copy, source=folder, bug=bug or None)
    except OSError as exc:
        tmp.cleanup()
        raise TargetError(f"cannot make a scratch copy of {folder} ({exc.strerror or exc}); "
                          "free some space in the temp folder or pass --in-place.") from exc
    except TargetError:
        tmp.cleanup()
        raise
    return ResolvedTarget(spec, tmp)


def _check_copy_size(folder: Path) -> None:
    """Refuse a folder whose copy the sandbox would refuse (it holds programs in memory): files counted at their
    apparent size, as they would be copied, skipping what the copy skips."""
    from app.engine.play.sandbox import MAX_FOLDER_MB, MB

    total = 0
    for root, dirs, files in os.walk(folder):
        skipped = _COPY_IGNORE(root, [*dirs, *files])
        dirs[:] = [d for d in dirs if d not in skipped]
        for name in files:
            if name not in skipped:
                try:
                    total += os.lstat(os.path.join(root, name)).st_size
                except OSError:
                    continue
        if total > MAX_FOLDER_MB * MB:
            raise TargetError(f"{folder} holds more than {MAX_FOLDER_MB} MB; programs are copied into memory and "
                              f"may hold at most {MAX_FOLDER_MB} MB: move large data out of the program folder.")


def apply_patch(folder: Path, patch: Path) -> None:
    """Apply a unified diff atomically (all hunks or none) with ``git apply``."""
    git = shutil.which("git")
    if git is None:
        raise TargetError("git is needed to apply bug patches; install git (apt-get install git).")
    # git reads config from the folder and HOME: give it neither the user's HOME nor the engine's keys.
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(folder), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "LANG": "C.UTF-8"}
    result = subprocess.run(
        [git, "apply", "-p1", "--whitespace=nowarn", str(patch)],
        cwd=folder, capture_output=True, text=True, timeout=60, env=env,
    )
    if result.returncode != 0:
        raise TargetError(f"the patch {patch.name} does not apply to {folder.name} ({result.stderr.strip()[:200]}); regenerate it.")
