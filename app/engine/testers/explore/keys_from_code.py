"""The keys and mouse buttons a program reads, from its own source (never by running it).

A toml's ``keys`` is a hint a person wrote; a program nobody described has none.
What a pygame game compares its events against (``event.key == pygame.K_LEFT``,
``keys[K_SPACE]`` from ``key.get_pressed()``, ``event.unicode == "r"``,
``event.button == 3``), what a Tk program binds (``bind("<Left>")``,
``bind_all("<Control-s>")``, ``bind("<Button-3>")``) and what a Qt program
compares ``event.key()`` with (``Qt.Key_Left``) and what a turtle program hands to
``onkey(f, "Up")`` or ``onscreenclick(f)`` is in its code.  The ast module
reads it; nothing is imported or executed.  Names come out as the engine's key
names (:mod:`app.engine.play.actions`): ``left``, ``enter``, ``a``, ``ctrl+s``.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import sys
from importlib.machinery import PathFinder
from pathlib import Path
from typing import Sequence

from app import pysyntax
from app.engine.testers.explore.key_tables import KEY_ATTRS, loop_variable, sequences, string_tables, table_name
from app.engine.testers.explore.read_inputs import ReadInputs

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


QUIT_CALLS = frozenset({"exit", "_exit", "quit", "destroy", "terminate", "close", "bye"})
QUIT_FLAGS = frozenset({"running", "run", "playing", "alive", "is_running", "game_running", "going", "loop"})
DONE_FLAGS = frozenset({"done", "finished", "quit", "should_quit"})


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
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            names = {t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else ""
                     for t in node.targets}
            if node.value.value in (False, 0) and names & QUIT_FLAGS:  # running = False, self.loop = False
                return True
            if node.value.value in (True, 1) and names & DONE_FLAGS:  # done = True
                return True
    return False


RESTART_CALLS = frozenset({"reset", "restart", "new_game", "newgame", "reset_game", "restart_game", "start_over",
                           "play_again", "new_round"})


def _starts_over(nodes: list[ast.stmt] | ast.expr) -> bool:
    """Code that starts the game over whatever the state: a statement of the key's own body that calls a
    function named like :data:`RESTART_CALLS` (``game.reset()``; one under a further test, such as space that
    flaps and restarts only once the game is over, does not count), or a handler given by such a name
    (``bind("<r>", restart)``)."""
    def named(node: ast.expr) -> bool:
        return (node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else "") \
            in RESTART_CALLS

    if not isinstance(nodes, list):
        return named(nodes) or isinstance(nodes, ast.Lambda) and isinstance(nodes.body, ast.Call) \
            and named(nodes.body.func)
    return any(isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and named(stmt.value.func)
               for stmt in nodes)


def _leaves_loop(body: list[ast.stmt]) -> bool:
    """A ``return`` or ``break`` straight in an event loop's key test: the loop (the program) ends."""
    return any(isinstance(stmt, (ast.Return, ast.Break)) for stmt in body)


class _Reader(ast.NodeVisitor):
    def __init__(self) -> None:
        self.found = ReadInputs()
        self.loops = 0
        """``while`` loops around the node visited, in the function being read (an event loop)."""
        self.tables: dict[str, list[str]] = {}
        """Names bound to a literal table of strings (:mod:`key_tables`)."""
        self.bound: dict[str, list[str]] = {}
        """Loop variables running over a table's keys, in the loop being read."""

    def visit_For(self, node: ast.For) -> None:
        """``for key, fn in KEYS.items(): root.bind(f"<{key}>", fn)``: the loop variable holds the table's keys."""
        name, var = table_name(node.iter), loop_variable(node)
        if name in self.tables and var:
            before = self.bound.get(var)
            self.bound[var] = self.tables[name]
            self.generic_visit(node)
            if before is None:
                self.bound.pop(var, None)
            else:
                self.bound[var] = before
            return
        self.generic_visit(node)

    def _table_keys(self, node: ast.expr) -> list[str]:
        name = table_name(node)
        return self.tables.get(name, []) if name else []

    def visit_While(self, node: ast.While) -> None:
        self.loops += 1
        self.generic_visit(node)
        self.loops -= 1

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        loops, self.loops = self.loops, 0  # a handler defined in a loop returns from itself, not the loop
        self.generic_visit(node)
        self.loops = loops

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        """``if event.key == K_ESCAPE: sys.exit()``: a quitting key."""
        before = list(self.found.keys)
        self.visit(node.test)
        tested = [k for k in self.found.keys if k not in before]
        if tested and (_ends_program(node.body) or self.loops and _leaves_loop(node.body)):
            self.found.quits.update(tested)
        if _starts_over(node.body):
            probe = _Reader()
            probe.visit(node.test)
            self.found.restarts.update(probe.found.keys)
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
        if attrs & KEY_ATTRS:
            consts += [v for s in sides if not isinstance(s, ast.Constant) for v in self._table_keys(s)]
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
            for sequence in [seq for arg in args[:1] for seq in sequences(arg, self.bound)]:
                key, buttons = tk_sequence(sequence)
                if key == "text":
                    self.found.text = True
                else:
                    self.found.add_key(key)
                    handler = (node.args[2:] if name in ("bind_class", "tag_bind") else node.args[1:])[:1]
                    if key and handler and _ends_program(handler[0]):
                        self.found.quits.add(key)
                    if key and handler and _starts_over(handler[0]):
                        self.found.restarts.add(key)
                self.found.buttons |= buttons
        elif name == "get" and isinstance(func, ast.Attribute) and node.args and _is_key_of_event(node.args[0]):
            for value in self._table_keys(func.value):  # KEYS.get(event.keysym)
                self.found.add_key(_typed(value))
        elif name in TURTLE_KEYS:
            self._turtle_key(node)
        elif name in TURTLE_CLICKS:
            button = _argument(node, 1, "btn")
            number = button.value if isinstance(button, ast.Constant) and isinstance(button.value, int) else 1
            self.found.buttons |= {TURTLE_CLICKS[name] or _MOUSE.get(number, "left")}
        elif name in ("Entry", "Text", "QLineEdit", "QTextEdit", "QPlainTextEdit", "Spinbox"):
            self.found.text = True
        elif name == "get_pressed" and isinstance(func, ast.Attribute) and _mentions(func.value, "mouse"):
            self.found.buttons.add("left")
        elif name in ("QKeySequence", "setShortcut", "QShortcut"):
            for arg in node.args[:1]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    self.found.add_key(qt_sequence(arg.value))
        self.generic_visit(node)

    def _turtle_key(self, node: ast.Call) -> None:
        """``onkey(f, "Up")``, ``onkeypress(f, key="space")``: turtle binds ``<KeyPress-Up>``; without a key,
        every key goes to the handler (typed keys are read)."""
        key = _argument(node, 1, "key")
        if key is None or isinstance(key, ast.Constant) and key.value is None:
            self.found.text = True
            return
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value):
            return  # a key held in a variable: not known without running the program
        name, _ = tk_sequence(f"<KeyPress-{key.value}>")  # "R" is the keysym of a capital R, as in Tk
        if name is None or name == "text":
            return
        self.found.add_key(name)
        handler = _argument(node, 0, "fun")
        if handler is not None and (_ends_program(handler) or _names_quit(handler)):
            self.found.quits.add(name)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        """``pygame.mouse.get_pressed()[2]``: the right button; ``keys[pygame.K_LEFT]``: a key read held;
        ``KEYS[event.keysym]``: the table's keys."""
        index = node.slice
        if _is_key_of_event(index):
            for keysym in self._table_keys(node.value):
                self.found.add_key(_typed(keysym))
        suffix = index.attr if isinstance(index, ast.Attribute) else index.id if isinstance(index, ast.Name) else ""
        if suffix.startswith("K_"):
            held = key_name(suffix[2:])
            if held:
                self.found.held.add(held)
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


TURTLE_KEYS = frozenset({"onkey", "onkeypress", "onkeyrelease"})
TURTLE_CLICKS: dict[str, str | None] = {"onscreenclick": None, "onclick": None, "onrelease": None, "ondrag": "drag"}
"""turtle's mouse hooks → the button read (None: the ``btn`` argument's, left by default)."""


def _argument(node: ast.Call, index: int, keyword: str) -> ast.expr | None:
    """A call's argument by position or by keyword."""
    if len(node.args) > index and not any(isinstance(a, ast.Starred) for a in node.args[:index + 1]):
        return node.args[index]
    return next((k.value for k in node.keywords if k.arg == keyword), None)


def _names_quit(handler: ast.expr) -> bool:
    """A handler given by name that ends the program (``onkey(bye, "q")``, ``onkey(screen.bye, "Escape")``)."""
    name = handler.attr if isinstance(handler, ast.Attribute) else handler.id if isinstance(handler, ast.Name) else ""
    return name in QUIT_CALLS


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


def _is_key_of_event(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in KEY_ATTRS


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
    reader.tables = string_tables(tree)
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


def run_module(command: Sequence[str]) -> str | None:
    """The module a ``python [options] -m MODULE`` command runs, or None for any other command."""
    for i, part in enumerate(command[1:], 1):
        if part == "-m":
            return command[i + 1] if i + 1 < len(command) else None
        if part.startswith("-m") and len(part) > 2:
            return part[2:]
        if not part.startswith("-"):
            return None  # a script (or -c) comes first: its own arguments follow
    return None


def engine_python(command: Sequence[str], requirements: str | None = None) -> bool:
    """Whether the command runs on the engine's own interpreter (``python`` without a ``requirements``
    environment, or the engine's executable by path): only then is the engine's module path the program's."""
    if not command or requirements:
        return False
    first = command[0]
    if first in ("python", "python3"):
        return True
    found = shutil.which(first) if "/" not in first else first
    return found is not None and os.path.realpath(found) == os.path.realpath(sys.executable)


def module_file(name: str, folder: Path) -> Path | None:
    """The source file ``python -m name`` runs from ``folder`` on the engine's interpreter: the module's
    .py, or a package's ``__main__.py``.  Found on the module path without importing anything (a parent
    package's ``__init__`` is not run); None for a module without source (built in, frozen, compiled)."""
    parts = name.split(".")
    if not all(p.isidentifier() for p in parts):
        return None
    here = os.path.realpath(os.getcwd())
    path: list[str] | None = [str(folder)] + [p for p in sys.path if p and os.path.realpath(p) != here]
    spec = None
    for part in parts:
        if path is None:
            return None
        try:
            spec = PathFinder.find_spec(part, path)
        except (ImportError, ValueError, OSError):
            return None
        if spec is None:
            return None
        path = list(spec.submodule_search_locations) if spec.submodule_search_locations is not None else None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    origin = Path(spec.origin)
    if spec.submodule_search_locations is not None:  # a package runs as its __main__
        origin = origin.parent / "__main__.py"
    return origin if origin.is_file() else None


def inputs_from_target(folder: Path, command: Sequence[str] = (), requirements: str | None = None) -> ReadInputs:
    """What a target reads: its folder's own modules and, for a ``python -m MODULE`` command on the engine's
    interpreter, the module that runs (an installed game's source is not in the folder).  Only that one file
    is read: the rest of its package is library code shared with other programs."""
    found = inputs_from_folder(folder)
    from app.engine.testers.explore.keys_from_js import inputs_from_scripts  # it builds on this module's types

    found.merge(inputs_from_scripts(folder))  # a web page's own scripts (none in a Python program's folder)
    name = run_module(command) if engine_python(command, requirements) else None
    path = module_file(name, folder) if name else None
    if path is not None:
        try:
            if path.stat().st_size <= MAX_FILE_BYTES:
                found.merge(inputs_from_source(path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            pass
    return found
