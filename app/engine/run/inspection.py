"""Look at a program before wrapping it: its window's real size, its controls, the keys it reads, its saved state.

``playcoder inspect FOLDER`` starts the program the way a run does (scratch copy, sandbox, a private
display larger than any declared size, so the window shows its true size), waits for its window,
watches it briefly, and reports what a person writing ``playcoder.toml`` needs: the window's size,
the controls with their texts and boxes (from inside the program when the inside channel answers,
else the X window tree, else the picture, with texts read by OCR), the keys its code reads, files that
look like saved state, and a starter ``playcoder.toml`` that ``playcoder test`` accepts.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from app.engine.errors import TargetError
from app.engine.play import saved_state
from app.engine.play.display import start_xvfb
from app.engine.play.target import TargetProcess
from app.engine.play.targetspec import SPEC_FILE, TargetSpec, load_spec, parse_spec, unknown_key

if TYPE_CHECKING:
    from app.engine.testers.explore.keys_from_code import ReadInputs

SCREEN = (1600, 1200)
"""The private screen of an inspection: larger than any usual window, so its real size shows."""
WATCH_S = 1.5
"""How long the program is watched after its window appears (it may resize, or quit by design)."""
SETTLE_S = 0.5
"""A pause after the window appears before it is measured (toolkits resize once after mapping)."""
MAX_WIDGETS = 60
ENTRY_GUESSES = ("main.py", "app.py", "game.py", "run.py", "__main__.py")
GAME_MODULES = ("pygame", "arcade", "pyglet")
_COPY_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".git", ".venv", "venv", "node_modules")


@dataclass
class Inspection:
    """What ``playcoder inspect`` found."""

    window: tuple[int, int]
    widgets: list[dict[str, Any]]
    widget_source: str
    """inside | x | image: where the widget list came from."""
    keys: list[str]
    saved_state: list[str]
    exited: int | None
    """The program's exit code when it quit during the watch, else None."""
    spec: TargetSpec
    toml: str = ""
    notes: list[str] = field(default_factory=list)
    picture: bytes | None = None
    """The window as it looked when its controls were read (PNG): the workbench's New target draws them on it."""
    quit_keys: list[str] = field(default_factory=list)
    """Keys whose handler ends the program: left out of ``keys`` (the explorer's first presses would end the run)."""

    def as_json(self) -> dict[str, Any]:
        return {"window": list(self.window), "widgets": self.widgets, "widget_source": self.widget_source,
                "keys": self.keys, "quit_keys": self.quit_keys, "saved_state": self.saved_state, "toml": self.toml,
                "notes": self.notes}


def guess_command(folder: Path) -> list[str]:
    """``python ENTRY``: the one top-level file that runs as a script (``if __name__ == "__main__"``), else
    the usual entry names, else the only .py file; TargetError when none fits."""
    return ["python", _entry(folder)[0]]


def _entry(folder: Path) -> tuple[str, str]:
    """The entry file and what the guess rests on (said in the starter toml)."""
    own = sorted(p.name for p in folder.glob("*.py") if not p.name.startswith(("test_", "setup", "conftest")))
    scripts = [name for name in own if _runs_as_script(folder / name)]
    if len(scripts) == 1:
        return scripts[0], 'the only file with `if __name__ == "__main__"`'
    for name in ENTRY_GUESSES:
        if (folder / name).is_file() and (not scripts or name in scripts):
            return name, f"the usual entry name {name}"
    if len(own) == 1:
        return own[0], "the only Python file"
    raise TargetError(f"cannot tell how {folder} starts ({len(own)} Python files at its top); "
                      'give it with --command "python FILE.py".')


DEV_PORTS = (("vite", 5173), ("react-scripts", 3000), ("next", 3000), ("parcel", 1234), ("webpack", 8080))
"""The port a dev server listens on by default, by the tool its script runs."""


def web_entry(folder: Path) -> str | dict[str, Any] | None:
    """How a web folder is played: its top ``index.html`` (when no Python file at its top runs as a script), else
    the ``dev`` or ``start`` script of its ``package.json`` with the port its tool listens on; None: not web."""
    if (folder / "index.html").is_file() and not any(_runs_as_script(p) for p in folder.glob("*.py")):
        return "index.html"
    try:
        scripts = json.loads((folder / "package.json").read_text(encoding="utf-8")).get("scripts") or {}
    except (OSError, ValueError, AttributeError):
        return None
    name = next((n for n in ("dev", "start") if isinstance(scripts.get(n), str)), None)
    if name is None:
        return None
    port = re.search(r"--port[= ](\d{2,5})", scripts[name])
    guess = next((p for tool, p in DEV_PORTS if tool in scripts[name]), 8080)
    return {"command": ["npm", "run", name], "url": f"http://127.0.0.1:{port.group(1) if port else guess}/"}


def _runs_as_script(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "__name__" in text and "__main__" in text


def split_command(command: str) -> list[str]:
    """A ``--command`` string as the shell would split it: a quoted path may hold spaces."""
    try:
        parts = shlex.split(command)
    except ValueError as exc:
        raise TargetError(f"--command {command!r} cannot be read ({exc}); close its quotes.") from None
    if not parts:
        raise TargetError('--command is empty; give how the program starts, e.g. --command "python main.py".')
    return parts


def _spec(folder: Path, copy: Path, command: str | None) -> TargetSpec:
    data: dict[str, Any] = {}
    if (copy / SPEC_FILE).is_file():
        spec = load_spec(copy, source=folder)
        if command is None:
            return spec
        data = {"name": spec.name, "kind": spec.kind}
        if spec.requirements is not None:
            data["requirements"] = spec.requirements
    data.setdefault("name", folder.name)
    web = None if command else web_entry(copy)
    if web is not None:
        data["web"] = web
        return parse_spec(data, folder=copy, source=folder, bug=None, where="the web folder")
    data["command"] = split_command(command) if command else guess_command(copy)
    if "requirements" not in data and (copy / "requirements.txt").is_file():
        data["requirements"] = "requirements.txt"  # the program does not start without its own packages
    return parse_spec(data, folder=copy, source=folder, bug=None, where="--command")


def inspect(folder: Path, command: str | None = None) -> Inspection:
    """Start the program in ``folder`` on a private display and look at it (the folder is never written)."""
    from app.engine.testers.explore.keys_from_code import inputs_from_target  # another part's reader, read late

    folder = folder.expanduser().resolve()
    if not folder.is_dir():
        raise TargetError(f"{folder} is not a folder; give the folder of the program to inspect.")
    with tempfile.TemporaryDirectory(prefix="playcoder-inspect-") as tmp:
        copy = Path(tmp) / folder.name
        shutil.copytree(folder, copy, ignore=_COPY_IGNORE, symlinks=True)
        spec = _spec(folder, copy, command)
        before = saved_state.snapshot(copy)
        with start_xvfb(SCREEN) as display:
            target = TargetProcess(spec, display, seed=0)
            try:
                target.wait_for_window()
                time.sleep(SETTLE_S)
                win = target.refresh_geometry() or target.window
                assert win is not None
                widgets, source = _widgets(target)
                picture = _picture(target)
                deadline = time.monotonic() + WATCH_S
                while time.monotonic() < deadline and target.alive():
                    time.sleep(0.05)
                after = saved_state.snapshot(_program_view(target, copy))
                exited = target.returncode
            finally:
                target.shutdown()
    reads = inputs_from_target(folder, spec.command, spec.requirements)
    keys = [k for k in reads.keys if unknown_key(k) is None and k not in reads.quits]
    present = saved_state.state_files(folder)
    state = sorted(set(present) | {f for f in saved_state.written(before, after)
                                   if f.lower().endswith(saved_state.STATE_SUFFIXES) or f not in before})
    found = Inspection((win.width, win.height), widgets[:MAX_WIDGETS], source, keys, state, exited, spec,
                       picture=picture)
    found.quit_keys = sorted(k for k in reads.quits if unknown_key(k) is None)
    found.toml = starter_toml(found, folder)
    unread = unread_keys(spec.keys, reads)
    if unread:
        # A declared key is held to answering (one that never changes the window is a no-response): a key the
        # code never reads is a wrong declaration, or the program lacks what it should do.
        them = "it" if len(unread) == 1 else "them"
        found.notes.append(f"{SPEC_FILE} declares {', '.join(unread)}, which the program's code was not seen reading "
                           f"(keys kept in data, or 'any key', are not seen); every declared key is expected to change "
                           f"the window, so drop {them} unless the program answers {them}")
    return found


TEXT_KEYS = frozenset({"enter", "backspace", "delete", "left", "right", "home", "end", "tab", "space", "period",
                       "minus", "plus", "comma", "slash", "asterisk", "equal"})
"""Keys a text field answers by itself (the program's code need not read them)."""


def unread_keys(declared: Sequence[str], reads: ReadInputs) -> list[str]:
    """Declared keys the program's code was not seen reading (none when it was seen reading no key at all: a
    program in another language, or one whose keys are all in a toolkit's hands).  A printable or editing key
    is read by any text field when the program takes typed text."""
    seen = {k.lower() for k in reads.keys}
    if not seen:
        return []
    return [k for k in declared if k.lower() not in seen
            and not (reads.text and (len(k) == 1 or k.lower() in TEXT_KEYS))]


def _program_view(target: TargetProcess, copy: Path) -> Path:
    """Where the engine sees the program's own copy of its folder: inside its mount namespace when confined."""
    if target.confined:
        view = Path(f"/proc/{target.pid}/root") / str(copy).lstrip("/")
        if view.is_dir():
            return view
    return target.sandboxed.folder


def _picture(target: TargetProcess) -> bytes | None:
    """The window's picture as PNG (None when it cannot be captured: the inspection goes on without it)."""
    import io

    from app.engine.play.observer import VisualObserver

    win = target.window
    if win is None:
        return None
    try:
        observer = VisualObserver(target.display.name, lambda: (win.x, win.y, win.width, win.height))
        try:
            image = observer.capture().image()
        finally:
            observer.close()
    except Exception:  # noqa: BLE001 - a picture is a convenience; the sizes and controls are the result
        return None
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def _widgets(target: TargetProcess) -> tuple[list[dict[str, Any]], str]:
    inside = getattr(target, "inside", None)  # the inside channel, where this engine has it (play/inside.py)
    if inside is not None:
        got = inside.widgets()
        if got:
            return [{"kind": w.kind, "text": w.text, "box": list(w.box)} for w in got
                    if w.visible and w.box is not None], "inside"
    from app.engine.judge.expectations import ocr_engine, read_line
    from app.engine.play.observer import VisualObserver
    from app.engine.play.xwidgets import TargetWindows
    from app.engine.testers.offline import detect_widgets

    win = target.window
    assert win is not None
    observer = VisualObserver(target.display.name, lambda: (win.x, win.y, win.width, win.height))
    try:
        frame = observer.capture()
    finally:
        observer.close()
    boxes = [(w.x0, w.y0, w.x1, w.y1) for w in TargetWindows(target).widgets()]
    source = "x"
    if not boxes:
        boxes, source = list(detect_widgets(frame, join_px=8)), "image"
    ocr = ocr_engine()
    out = []
    for box in boxes[:MAX_WIDGETS]:
        text = read_line(frame, list(box), ocr) if ocr is not None else ""
        out.append({"kind": "control" if source == "x" else "region", "text": text, "box": list(box)})
    return out, source


def _string(value: str) -> str:
    return json.dumps(value)  # a JSON string is a TOML basic string


def starter_toml(found: Inspection, folder: Path) -> str:
    """A playcoder.toml for what was seen: name, kind, command, size, keys, exit_ok, a first criterion; each guess
    says what it rests on."""
    spec = found.spec
    game_file = _first_importing(folder, GAME_MODULES)
    kind = (f'kind = "game"                     # {game_file} imports a game library' if game_file else
            'kind = "app"                      # no game library (pygame, arcade, pyglet) is imported')
    entry = spec.command[-1] if spec.command else ""
    if spec.web is not None:
        canvas = any(w.get("kind") == "canvas" for w in found.widgets)
        kind = ('kind = "game"                     # the page draws on a canvas' if canvas else
                'kind = "app"                      # the page shows no canvas')
    start = (f"web = {_string(spec.web.page)}" + "             # the engine serves the folder and opens this page"
             if spec.web is not None and spec.web.page else
             f"web = {{command = [{', '.join(_string(c) for c in spec.command)}], url = {_string(spec.web.url)}}}"
             "   # the program's own server; check the port it listens on" if spec.web is not None else
             f"command = [{', '.join(_string(c) for c in spec.command)}]" + _entry_note(folder, entry))
    lines = [f"name = {_string(spec.name)}", kind, start,
             (f"size = [{spec.size[0]}, {spec.size[1]}]          # the page's viewport" if spec.web is not None else
              f"size = [{found.window[0]}, {found.window[1]}]          # the window's real size, as inspected"),
             'goal = ""                        # what a player tries to do (for the LLM tester)',
             f"keys = [{', '.join(_string(k) for k in found.keys)}]"]
    if found.quit_keys:
        lines.append(f"# left out of keys, they end the program: {', '.join(found.quit_keys)}")
    if found.exited == 0:
        lines.append("exit_ok = true                    # it quit by itself with code 0 while watched")
    else:
        lines.append("exit_ok = false                   # true if the program quits by design (game over)")
    if game_file and _first_importing(folder, ("pygame",)):
        lines.append("# frame_gate = true               # [[script]] cases play it frame by frame from its start")
    if spec.requirements is not None:
        lines.append(f"requirements = {_string(spec.requirements)}   # the engine builds the program's own environment")
    elif (folder / "pyproject.toml").is_file():
        lines.append('# requirements = "pyproject.toml"   # the engine builds the program\'s own environment')
    if found.saved_state:
        lines.append(f"# saved state in the folder: {', '.join(found.saved_state[:8])} "
                     "(every run starts from it; the engine plays a scratch copy)")
    lines += ["", "[[criteria]]", 'id = "opens"', 'text = "The window opens and shows the first screen"', ""]
    return "\n".join(lines)


def _entry_note(folder: Path, entry: str) -> str:
    try:
        name, why = _entry(folder)
    except TargetError:
        return ""
    return f"   # {why}" if name == entry else ""


MAX_SCANNED = 400
"""Python files read for the game/app guess (a vendored tree is not the program)."""


def _first_importing(folder: Path, modules: tuple[str, ...]) -> str | None:
    """The first of the program's own Python files (its subfolders too) that imports one of ``modules``."""
    skip = saved_state.SKIP_DIRS
    paths = sorted(p for p in folder.rglob("*.py") if not skip & set(p.relative_to(folder).parts[:-1]))
    for path in paths[:MAX_SCANNED]:
        if _imports(path, modules):
            return str(path.relative_to(folder))
    return None


def _imports(path: Path, modules: tuple[str, ...]) -> bool:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(f"import {m}" in text or f"from {m}" in text for m in modules)
