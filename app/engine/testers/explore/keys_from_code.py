"""The keys and mouse buttons a program reads, from its own source (never by running it).

A toml's ``keys`` is a hint a person wrote; a program nobody described has none.
What a pygame game compares its events against (``event.key == pygame.K_LEFT``,
``keys[K_SPACE]`` from ``key.get_pressed()``, ``event.unicode == "r"``,
``event.button == 3``), what a Tk program binds (``bind("<Left>")``,
``bind_all("<Control-s>")``, ``bind("<Button-3>")``) and what a Qt program
compares ``event.key()`` with (``Qt.Key_Left``) is in its code.  The ast module
reads it; nothing is imported or executed.  Names come out as the engine's key
names (:mod:`app.engine.play.actions`): ``left``, ``enter``, ``a``, ``ctrl+s``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from app import pysyntax

MAX_FILES = 60
MAX_FILE_BYTES = 400_000
"""A program's own .py files read at most (a vendored library is not the program)."""
SKIP_DIRS = ("venv", ".venv", "site-packages", "node_modules", "__pycache__", ".git", "tests", "test", "bugs", "refs")

_NAMED = {
    "UP": "up", "DOWN": "down", "LEFT": "left", "RIGHT": "right", "RETURN": "enter", "KP_ENTER": "enter",
    "SPACE": "space", "ESCAPE": "escape", "TAB": "tab", "BACKSPACE": "backspace", "DELETE": "delete",
    "INSERT": "insert", "HOME": "home", "END": "end", "PAGEUP": "pageup", "PAGEDOWN": "pagedown",
    "PLUS": "+", "MINUS": "-", "EQUALS": "=", "PERIOD": ".", "COMMA": ",", "SLASH": "/", "ASTERISK": "*",
    "KP_PLUS": "+", "KP_MINUS": "-", "KP_MULTIPLY": "*", "KP_DIVIDE": "/", "KP_PERIOD": ".", "KP_EQUALS": "=",
    "SEMICOLON": ";", "QUOTE": "'", "LEFTBRACKET": "[", "RIGHTBRACKET": "]", "BACKSLASH": "\\",
    "LSHIFT": "shift", "RSHIFT": "shift", "LCTRL": "ctrl", "RCTRL": "ctrl", "LALT": "alt", "RALT": "alt",
    # Qt's Key_ names
    "ENTER": "enter", "EQUAL": "=", "ESCAPE_": "escape", "PAGEUP_": "pageup", "PAGE_UP": "pageup",
    "PAGE_DOWN": "pagedown", "SHIFT": "shift", "CONTROL": "ctrl", "ALT": "alt",
}
"""pygame ``K_*`` / Qt ``Key_*`` suffixes (upper-cased) → engine key names; letters, digits and F-keys by rule."""
_TK = {
    "left": "left", "right": "right", "up": "up", "down": "down", "return": "enter", "kp_enter": "enter",
    "space": "space", "escape": "escape", "tab": "tab", "backspace": "backspace", "delete": "delete",
    "insert": "insert", "home": "home", "end": "end", "prior": "pageup", "next": "pagedown",
    "plus": "+", "minus": "-", "equal": "=", "asterisk": "*", "slash": "/", "period": ".", "comma": ",",
    "kp_add": "+", "kp_subtract": "-", "kp_multiply": "*", "kp_divide": "/", "kp_decimal": ".",
}
"""Tk keysyms (lower-cased) → engine key names."""
_TK_MODS = {"control": "ctrl", "shift": "shift", "alt": "alt", "meta": "alt", "command": "ctrl", "mod1": "alt"}
_TK_BUTTON = re.compile(r"^(?:(double|triple)-)?(?:buttonpress|button|b)-?([1-5])(?:-motion)?$")
_MOUSE = {1: "left", 2: "middle", 3: "right", 4: "wheel", 5: "wheel"}
_PYGAME_BUTTONS = {"BUTTON_LEFT": 1, "BUTTON_MIDDLE": 2, "BUTTON_RIGHT": 3, "BUTTON_WHEELUP": 4,
                   "BUTTON_WHEELDOWN": 5}
_KEY_ATTRS = ("key", "unicode", "keysym", "char", "text", "scancode")
"""Attributes of an event that hold the key pressed (pygame, Tk, Qt's ``text()``)."""


@dataclass
class ReadInputs:
    """What a program's code reads from the keyboard and the mouse."""

    keys: list[str] = field(default_factory=list)
    """Engine key names and combos (``"ctrl+s"``), in the order first seen in the code."""
    buttons: set[str] = field(default_factory=set)
    """Mouse buttons read: left, middle, right, wheel; ``double`` for a double-click binding, ``drag`` for motion."""
    text: bool = False
    """The program reads typed text (``event.unicode`` without a constant, a Tk/Qt entry): words matter."""
    quits: set[str] = field(default_factory=set)
    """Keys whose handler ends the program (``sys.exit()``, ``root.destroy``, ``running = False``):
    pressed only where the program declares that ending is fine (``exit_ok``)."""

    def add_key(self, name: str | None) -> None:
        if name and name not in self.keys:
            self.keys.append(name)

    def merge(self, other: ReadInputs) -> None:
        for k in other.keys:
            self.add_key(k)
        self.buttons |= other.buttons
        self.text = self.text or other.text
        self.quits |= other.quits


def key_name(suffix: str) -> str | None:
    """A pygame ``K_`` or Qt ``Key_`` suffix ('a', 'LEFT', 'F5', 'KP4', 'Return') as an engine key name."""
    up = suffix.upper()
    if len(suffix) == 1 and suffix.isprintable():
        return suffix.lower()
    if up in _NAMED:
        return _NAMED[up]
    if re.fullmatch(r"F([1-9]|1[0-2])", up):
        return up.lower()
    if re.fullmatch(r"KP_?[0-9]", up):
        return up[-1]
    return None


def tk_sequence(sequence: str) -> tuple[str | None, set[str]]:
    """A Tk event sequence ('<Key-a>', '<Control-s>', '<Left>', 'x', '<Button-3>') as (key or combo, buttons)."""
    if not sequence.startswith("<"):
        return (sequence.lower() if len(sequence) == 1 else None), set()
    body = sequence.strip("<>")
    low = body.lower()
    button = _TK_BUTTON.match(low.replace("buttonpress-", "button-").replace("buttonrelease-", "button-"))
    if button is not None:
        kind, number = button.group(1), int(button.group(2))
        found = {_MOUSE[number]} | ({"double"} if kind else set()) | ({"drag"} if low.endswith("motion") else set())
        return None, found
    if low in ("mousewheel",):
        return None, {"wheel"}
    if low in ("key", "keypress"):
        return "text", set()  # every key goes to the handler: what is typed is read
    if low.endswith("-motion"):
        return None, {"drag"}
    parts = body.split("-")
    mods: list[str] = []
    while len(parts) > 1 and parts[0].lower() in _TK_MODS:
        mods.append(_TK_MODS[parts.pop(0).lower()])
    if parts and parts[0].lower() in ("key", "keypress", "keyrelease") and len(parts) > 1:
        parts = parts[1:]
    if len(parts) != 1:
        return None, set()
    sym = parts[0]
    key = sym if len(sym) == 1 else _TK.get(sym.lower()) or (sym.lower() if re.fullmatch(r"[Ff]([1-9]|1[0-2])", sym)
                                                               else None)
    if key is None:
        return None, set()
    if "shift" in mods and len(key) == 1:  # <Shift-A>: the character itself
        mods.remove("shift")
    return "+".join([*dict.fromkeys(mods), key]), set()


QUIT_CALLS = frozenset({"exit", "_exit", "quit", "destroy", "terminate", "close"})
QUIT_FLAGS = frozenset({"running", "run", "playing", "alive", "is_running", "game_running"})


def _ends_program(nodes: list[ast.stmt] | ast.expr) -> bool:
    """Code that ends the program: a call to exit/quit/destroy, or a loop flag set to False."""
    for node in ast.walk(ast.Module(body=list(nodes), type_ignores=[]) if isinstance(nodes, list) else nodes):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in QUIT_CALLS:
                return True
        if isinstance(node, (ast.Attribute, ast.Name)) and not isinstance(getattr(node, "ctx", None), ast.Store):
            name = node.attr if isinstance(node, ast.Attribute) else node.id
            if name in ("destroy", "quit") and not isinstance(node, ast.Name):
                return True  # bind("<Escape>", root.destroy): the handler itself
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value is False:
            if any(isinstance(t, ast.Name) and t.id in QUIT_FLAGS for t in node.targets):
                return True
    return False


class _Reader(ast.NodeVisitor):
    def __init__(self) -> None:
        self.found = ReadInputs()

    def visit_If(self, node: ast.If) -> None:
        """``if event.key == K_ESCAPE: sys.exit()``: a quitting key."""
        before = list(self.found.keys)
        self.visit(node.test)
        tested = [k for k in self.found.keys if k not in before]
        if tested and _ends_program(node.body):
            self.found.quits.update(tested)
        for stmt in [*node.body, *node.orelse]:
            self.visit(stmt)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._name(node.attr)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        self._name(node.id)

    def visit_alias(self, node: ast.alias) -> None:  # from pygame.locals import K_UP
        self._name(node.name)

    def _name(self, name: str) -> None:
        if name.startswith("K_"):
            self.found.add_key(key_name(name[2:]))
        elif name.startswith("Key_"):
            self.found.add_key(key_name(name[4:]))
        elif name in _PYGAME_BUTTONS:
            self.found.buttons.add(_MOUSE[_PYGAME_BUTTONS[name]])
        elif name in ("MOUSEBUTTONDOWN", "MOUSEBUTTONUP"):
            self.found.buttons.add("left")
        elif name == "MOUSEWHEEL":
            self.found.buttons.add("wheel")
        elif name == "MOUSEMOTION":
            self.found.buttons.add("drag")
        elif name == "TEXTINPUT":
            self.found.text = True

    def visit_Compare(self, node: ast.Compare) -> None:
        """``event.unicode == "r"``, ``event.keysym in ("Left", "a")``, ``event.button == 3``."""
        sides = [node.left, *node.comparators]
        attrs = {s.attr for s in sides if isinstance(s, ast.Attribute)}
        consts = [c for s in sides for c in _constants(s)]
        if attrs & {"unicode", "char", "keysym", "text"}:
            for value in consts:
                if isinstance(value, str):
                    self.found.add_key(_typed(value))
        if "button" in attrs:
            for value in consts:
                if isinstance(value, int) and value in _MOUSE:
                    self.found.buttons.add(_MOUSE[value])
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in ("bind", "bind_all", "bind_class", "tag_bind"):
            args = node.args[1:] if name in ("bind_class", "tag_bind") else node.args
            for arg in args[:1]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    key, buttons = tk_sequence(arg.value)
                    if key == "text":
                        self.found.text = True
                    else:
                        self.found.add_key(key)
                        handler = (node.args[2:] if name in ("bind_class", "tag_bind") else node.args[1:])[:1]
                        if key and handler and _ends_program(handler[0]):
                            self.found.quits.add(key)
                    self.found.buttons |= buttons
        elif name in ("Entry", "Text", "QLineEdit", "QTextEdit", "QPlainTextEdit", "Spinbox"):
            self.found.text = True
        elif name == "get_pressed" and isinstance(func, ast.Attribute) and _mentions(func.value, "mouse"):
            self.found.buttons.add("left")
        elif name in ("QKeySequence", "setShortcut", "QShortcut"):
            for arg in node.args[:1]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    self.found.add_key(qt_sequence(arg.value))
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        """``pygame.mouse.get_pressed()[2]``: the right button."""
        value = node.value
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                and value.func.attr == "get_pressed" and _mentions(value.func.value, "mouse")
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)):
            self.found.buttons.add(_MOUSE.get(node.slice.value + 1, "left"))
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.generic_visit(node)

    def unicode_read(self, tree: ast.AST) -> None:
        """``event.unicode`` used other than in a comparison with a constant: typed text is read."""
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.Call, ast.JoinedStr)):
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Attribute) and sub.attr == "unicode":
                        self.found.text = True
                        return


def qt_sequence(text: str) -> str | None:
    """A Qt key sequence ('Ctrl+S', 'Ctrl+Shift+N', 'Del') as an engine combo."""
    parts = [p.strip() for p in text.split("+") if p.strip()]
    if not parts or "," in text:
        return None
    mods = {"ctrl": "ctrl", "shift": "shift", "alt": "alt", "meta": "alt"}
    out = [mods[p.lower()] for p in parts[:-1] if p.lower() in mods]
    key = key_name({"Del": "DELETE", "Esc": "ESCAPE", "Return": "RETURN"}.get(parts[-1], parts[-1]))
    return "+".join([*out, key]) if key is not None and len(out) == len(parts) - 1 else None


def _typed(value: str) -> str | None:
    """A character or keysym compared with what was typed, as a key name."""
    if len(value) == 1 and value.isprintable():
        return "space" if value == " " else value.lower() if value.isalpha() else value
    if value in ("\r", "\n"):
        return "enter"
    if value == "\x08":
        return "backspace"
    if value == "\x1b":
        return "escape"
    return _TK.get(value.lower())


def _constants(node: ast.expr) -> list[object]:
    if isinstance(node, ast.Constant):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant)]
    return []


def _mentions(node: ast.expr, word: str) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == word or isinstance(n, ast.Name) and n.id == word
               for n in ast.walk(node))


def inputs_from_source(source: str) -> ReadInputs:
    """What one module's code reads; source that does not parse reads nothing."""
    try:
        tree = pysyntax.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ReadInputs()
    reader = _Reader()
    reader.visit(tree)
    reader.unicode_read(tree)
    return reader.found


def program_files(folder: Path) -> list[Path]:
    """The program's own .py files (not its tests, bug patches or a vendored environment), first ones first."""
    files = []
    for path in sorted(folder.rglob("*.py")):
        rel = path.relative_to(folder).parts
        if any(part in SKIP_DIRS for part in rel[:-1]) or rel[-1].startswith("test_"):
            continue
        files.append(path)
    return files[:MAX_FILES]


def inputs_from_folder(folder: Path) -> ReadInputs:
    """What a program folder's code reads, over all its own modules."""
    found = ReadInputs()
    for path in program_files(folder):
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            found.merge(inputs_from_source(path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    return found
