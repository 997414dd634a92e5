"""The keys and mouse input a web page's own scripts read, found with patterns (never run).

``e.key === "ArrowUp"``, ``case "Enter":``, ``event.code == 'KeyW'``, ``keyCode === 32`` and the listeners a
page adds (``keydown``, ``click``, ``mousedown``, ``mousemove``, ``wheel``, ``input``) become the engine's key
and button names, so the explorers press what a page reads as they do for a Python program.  Only the
program's own ``.js``/``.mjs``/``.ts``/``.tsx``/``.jsx`` files and inline ``<script>`` of its ``.html`` files
are read, not ``node_modules`` or built bundles of libraries.
"""

from __future__ import annotations

import re
from pathlib import Path

from app.engine.testers.explore.read_inputs import ReadInputs

SUFFIXES = (".js", ".mjs", ".ts", ".tsx", ".jsx", ".html", ".htm")
SKIPPED = {"node_modules", ".git", "dist", "build", "vendor", ".cache"}
MAX_FILES = 200
MAX_BYTES = 1024 * 1024
NAMED = {"arrowup": "up", "arrowdown": "down", "arrowleft": "left", "arrowright": "right", "enter": "enter",
         "escape": "escape", "esc": "escape", " ": "space", "space": "space", "spacebar": "space",
         "backspace": "backspace", "tab": "tab", "delete": "delete", "home": "home", "end": "end",
         "pageup": "page_up", "pagedown": "page_down", "shift": "shift", "control": "ctrl", "+": "plus",
         "-": "minus"}
KEY_CODES = {8: "backspace", 9: "tab", 13: "enter", 27: "escape", 32: "space", 37: "left", 38: "up", 39: "right",
             40: "down", 46: "delete"}
_KEY_TEST = re.compile(r"""\.(?:key|code)\s*===?\s*(["'`])(.{1,12}?)\1|case\s+(["'`])(.{1,12}?)\3\s*:""")
_KEY_CODE = re.compile(r"""\.(?:keyCode|which)\s*===?\s*(\d{1,3})""")
_LISTENS = re.compile(r"""(?:addEventListener\(\s*["'](\w+)["']|\bon(click|mousedown|mousemove|wheel|keydown|input|dblclick|contextmenu)\s*=)""")
BUTTONS = {"click": "left", "mousedown": "left", "pointerdown": "left", "mouseup": "left", "dblclick": "double",
           "contextmenu": "right", "wheel": "wheel", "mousemove": "drag", "pointermove": "drag"}


def key_name(raw: str) -> str | None:
    """The engine's name for a key a script compares with (``"ArrowUp"`` -> ``up``, ``"KeyW"`` -> ``w``)."""
    low = raw.lower()
    if low in NAMED:
        return NAMED[low]
    if re.fullmatch(r"key[a-z]", low):
        return low[-1]
    if re.fullmatch(r"digit\d", low):
        return low[-1]
    if len(raw) == 1 and raw.isalnum():
        return low
    return None


def inputs_from_scripts(folder: Path) -> ReadInputs:
    """What the page's own scripts read (empty for a folder with none)."""
    found = ReadInputs()
    for path in _scripts(folder):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for match in _KEY_TEST.finditer(text):
            found.add_key(key_name(match.group(2) or match.group(4) or ""))
        for match in _KEY_CODE.finditer(text):
            found.add_key(KEY_CODES.get(int(match.group(1))))
        for match in _LISTENS.finditer(text):
            event = (match.group(1) or match.group(2) or "").lower()
            if event in BUTTONS:
                found.buttons.add(BUTTONS[event])
            if event in ("input", "keypress", "beforeinput"):
                found.text = True
    return found


def _scripts(folder: Path) -> list[Path]:
    out: list[Path] = []
    if not folder.is_dir():
        return out
    for path in sorted(folder.rglob("*")):
        if len(out) >= MAX_FILES:
            break
        rel = path.relative_to(folder).parts
        if set(rel[:-1]) & SKIPPED or not path.is_file() or path.suffix.lower() not in SUFFIXES:
            continue
        try:
            if path.stat().st_size <= MAX_BYTES and not path.name.endswith(".min.js"):
                out.append(path)
        except OSError:
            continue
    return out
