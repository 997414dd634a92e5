"""The program's end of the engine's inside channel (:mod:`app.engine.play.inside`).

Loaded by the seeding ``sitecustomize`` when PLAYCODER_INSIDE ("REQ_FD,EVT_FD")
is set.  It says hello, records which lines of the program's own files run,
and answers the engine's requests (coverage, widgets, idle) from a daemon
thread; what only the GUI thread may read is asked of the toolkit's adapter
(``_playcoder_tk``, ``_playcoder_qt``), loaded when the program imports its
toolkit.  Nothing here may break the program: every hook swallows its errors,
and the channel's pipes are closed to programs the game starts.

Runs inside the played program, so it imports nothing of the engine.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import select
import sys
import threading
from types import CodeType, FrameType, ModuleType
from typing import Any, Callable, Optional

VERSION = 1
ENV = "PLAYCODER_INSIDE"
CHUNK_LINES = 20000
"""Line numbers per coverage message: well below the engine's longest message (1 MiB)."""
PUSH_EVERY_S = 1.0
"""New lines are also pushed unasked this often (a program killed at the end keeps them)."""
MAX_REQUEST = 4096
SKIPPED_DIRS = frozenset({"tests", "test", "__pycache__", "site-packages", "dist-packages", "node_modules",
                          "venv", ".venv", "env", ".git", "build", "dist"})
"""As the engine counts the program's own files (app.engine.play.own_code.SKIPPED_DIRS)."""
_HERE = os.path.dirname(os.path.abspath(__file__))


class Channel:
    """JSON lines to the engine: queued from any thread, written by one daemon thread."""

    def __init__(self, req_fd: int, evt_fd: int) -> None:
        self.req_fd, self.evt_fd = req_fd, evt_fd
        self.open = True
        self.out: "queue.SimpleQueue[bytes]" = queue.SimpleQueue()
        self.lock = threading.Lock()

    def send(self, msg: dict[str, Any]) -> None:
        """Queue a message (never blocks the caller: a GUI thread may send)."""
        if self.open:
            msg["v"] = VERSION
            self.out.put((json.dumps(msg, separators=(",", ":")) + "\n").encode())

    def send_now(self, msg: dict[str, Any]) -> None:
        """Write at once (at exit, when the writer thread may be gone)."""
        msg["v"] = VERSION
        self._write((json.dumps(msg, separators=(",", ":")) + "\n").encode())

    def writer(self) -> None:
        while self.open:
            self._write(self.out.get())

    def _write(self, data: bytes) -> None:
        with self.lock:
            try:
                while data and self.open:
                    data = data[os.write(self.evt_fd, data):]
            except OSError:
                self.open = False  # the engine is gone


class Tracer:
    """Lines of the program's own files, each reported once.

    Python 3.12+: ``sys.monitoring`` (each line disabled once seen).  Before:
    ``sys.settrace``; a code object whose lines were all seen is not traced
    again, so a game loop that runs the same code costs one lookup per call.
    """

    def __init__(self, root: str, main: Optional[tuple[str, str]] = None) -> None:
        """``main``: (absolute path, name) of the module ``python -m`` runs: the program's own code wherever it
        lies (an installed program), named by its module path (``freegames/paint.py``)."""
        self.root = os.path.abspath(root) + os.sep
        self.main = main
        self.files: dict[str, Optional[str]] = {}
        self.codes: dict[int, tuple[CodeType, Optional[str], set[int]]] = {}
        """id(code) -> (code kept alive so the id stays its own, its file, lines not yet seen); own files only."""
        self.fresh: dict[str, set[int]] = {}
        self.lock = threading.Lock()

    def start(self) -> None:
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None:
            tool = monitoring.COVERAGE_ID
            monitoring.use_tool_id(tool, "playcoder")
            monitoring.register_callback(tool, monitoring.events.LINE, self._on_line)
            monitoring.set_events(tool, monitoring.events.LINE)
            return
        threading.settrace(self._on_call)
        sys.settrace(self._on_call)

    def take(self) -> dict[str, set[int]]:
        with self.lock:
            fresh, self.fresh = self.fresh, {}
        return fresh

    def own(self, filename: str) -> Optional[str]:
        """The file relative to the program folder, or None for a file that is not the program's own."""
        rel = self.files.get(filename, "")
        if rel != "":
            return rel
        path = os.path.abspath(filename)
        rel = None
        if self.main is not None and path == self.main[0]:
            self.files[filename] = self.main[1]
            return self.main[1]
        # A relative name may be code made up in memory (shiboken's signature modules): a file of ours exists.
        real = os.path.isabs(filename) or os.path.isfile(path)
        if real and path.startswith(self.root) and path.endswith(".py") and not path.startswith(_HERE + os.sep):
            rel = path[len(self.root):].replace(os.sep, "/")
            parts = rel.split("/")
            if any(p in SKIPPED_DIRS or p.startswith(".") for p in parts[:-1]) or parts[-1].startswith("test_"):
                rel = None
        self.files[filename] = rel
        return rel

    def _hit(self, rel: str, line: int) -> None:
        with self.lock:
            self.fresh.setdefault(rel, set()).add(line)

    def _on_line(self, code: CodeType, line: int) -> Any:
        try:
            rel = self.own(code.co_filename)
            if rel is not None:
                self._hit(rel, line)
        except Exception:
            pass
        return sys.monitoring.DISABLE  # type: ignore[attr-defined]

    def _on_call(self, frame: FrameType, event: str, arg: Any) -> Any:
        try:
            code = frame.f_code
            entry = self.codes.get(id(code))
            if entry is None:
                rel = self.own(code.co_filename)
                if rel is None:  # not kept: code made at run time (eval) would pile up
                    return None
                entry = self.codes[id(code)] = (code, rel, {ln for _, _, ln in code.co_lines() if ln})
            _code, rel, unseen = entry
            if not unseen:
                return None
            line = frame.f_lineno
            if line in unseen:
                unseen.discard(line)
                self._hit(rel or "", line)
            return self._on_event
        except Exception:
            return None

    def _on_event(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event != "line":
            return self._on_event
        try:
            _code, rel, unseen = self.codes[id(frame.f_code)]
            line = frame.f_lineno
            if line in unseen:
                unseen.discard(line)
                self._hit(rel or "", line)
            return self._on_event if unseen else None
        except Exception:
            return None


STATE_NODES = 1500
"""Values a state digest visits at most, breadth first (the top of a program's state always; a huge board only
in part, the same part each time): about a millisecond on the GUI thread."""
STATE_DEPTH = 4
_PLAIN = (int, float, complex, str, bytes, bool, type(None))
_TOOLKITS = ("tkinter", "turtle", "PySide6", "PyQt5", "PyQt6", "shiboken6", "pygame")


def state_digest() -> str:
    """A digest of the program's own state: the values reachable from its main module's globals (numbers,
    strings, containers, the attributes of its objects, which function or class is held), breadth first, a
    few levels deep. Modules and the toolkit's objects are left out (what they show is compared as pictures).
    What a key that picks a mode changes (a paint program's shape), though nothing is drawn until the next
    click. Asked on the GUI thread, with the idle answer."""
    import collections
    import hashlib

    main = sys.modules.get("__main__")
    space = getattr(main, "__dict__", None)
    if not isinstance(space, dict):
        return ""
    h = hashlib.blake2b(digest_size=8)
    seen: set[int] = set()
    todo: "collections.deque[tuple[Any, int]]" = collections.deque()
    try:
        names = sorted(k for k in list(space) if isinstance(k, str) and not k.startswith("__"))
        values = [space.get(name) for name in names]
        todo.extend((v, 0) for v in values if not isinstance(v, (ModuleType, type)) and not callable(v))
        budget = STATE_NODES
        while todo and budget > 0:
            value, depth = todo.popleft()
            budget -= 1
            if isinstance(value, _PLAIN):
                h.update(repr(value).encode("utf-8", "replace")[:256])
                continue
            if isinstance(value, (ModuleType, type)) or callable(value):
                name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
                h.update(b"f" + str(name or type(value).__name__).encode("utf-8", "replace")[:128])
                continue
            if id(value) in seen or depth >= STATE_DEPTH:
                h.update(b"@")
                continue
            seen.add(id(value))
            if isinstance(value, dict):
                keys = [k for k in list(value)[:200] if isinstance(k, _PLAIN)]
                h.update(b"{" + repr(keys).encode("utf-8", "replace")[:1024])
                todo.extend((value.get(k), depth + 1) for k in keys)
            elif isinstance(value, (list, tuple, set, frozenset)):
                items = list(value)[:200]
                if isinstance(value, (set, frozenset)):
                    items = sorted(items, key=repr)
                h.update(b"[%d" % len(value))
                todo.extend((item, depth + 1) for item in items)
            elif (getattr(type(value), "__module__", "") or "").split(".")[0] not in _TOOLKITS:
                attrs = getattr(value, "__dict__", None)
                if isinstance(attrs, dict):
                    h.update(type(value).__name__.encode())
                    todo.append((attrs, depth + 1))
    except Exception:
        return ""
    return h.hexdigest()


def idle_reply(ident: int, next_timer_ms: Optional[float], repeating: bool) -> dict[str, Any]:
    """A toolkit adapter's answer to an idle question, on its GUI thread: idle, the next timer, and the state
    digest (:func:`state_digest`), so the engine sees whether an input changed the program's state."""
    return {"type": "reply", "id": ident, "idle": True, "next_timer_ms": next_timer_ms, "repeating": repeating,
            "state": state_digest()}


def main_module() -> Optional[tuple[str, str]]:
    """(absolute path, module path) of the module ``python -m NAME`` runs (installed, or in a package folder
    the program folder's own count leaves out: ``site-packages`` of a venv inside it).

    Found on ``sys.path`` the way the import system would, without importing anything (no package's
    ``__init__`` runs before the program's own start).  None for a script, or a module not found."""
    argv = list(getattr(sys, "orig_argv", []) or [])
    name = ""
    for i, arg in enumerate(argv[1:], 1):
        if arg == "-m" and i + 1 < len(argv):
            name = argv[i + 1]
            break
        if arg.startswith("-m") and len(arg) > 2:
            name = arg[2:]
            break
        if not arg.startswith("-") or arg == "-c":
            return None  # a script (or -c) comes first: no module is run
    if not name:
        return None
    try:
        from importlib.machinery import PathFinder
        parts = name.split(".")
        search: Optional[list[str]] = None
        spec = None
        for depth in range(len(parts)):
            spec = PathFinder.find_spec(".".join(parts[:depth + 1]), search)
            if spec is None:
                return None
            search = list(spec.submodule_search_locations or [])
        if spec is None:
            return None
        origin, rel = spec.origin, "/".join(parts) + ".py"
        if spec.submodule_search_locations:  # a package: python -m runs its __main__
            found = PathFinder.find_spec(name + ".__main__", list(spec.submodule_search_locations))
            origin, rel = (found.origin if found is not None else None), "/".join(parts) + "/__main__.py"
        if not origin or not origin.endswith(".py") or not os.path.isfile(origin):
            return None
        return os.path.abspath(origin), rel
    except Exception:
        return None


class Inside:
    """Hello, coverage and the engine's requests; a toolkit adapter answers what its GUI thread knows."""

    def __init__(self, channel: Channel, tracer: Tracer) -> None:
        self.channel = channel
        self.tracer = tracer
        self.toolkit = ""
        self.adapter: Any = None
        """The toolkit's adapter: ``ask(kind, ident)`` answers on the GUI thread (or says it cannot)."""

    def hello(self) -> None:
        msg: dict[str, Any] = {"type": "hello", "toolkit": self.toolkit, "python": sys.version.split()[0]}
        if self.tracer.main is not None:
            msg["main"] = {"path": self.tracer.main[0], "name": self.tracer.main[1]}
        self.channel.send(msg)

    def toolkit_imported(self, toolkit: str, adapter: Any) -> None:
        if self.toolkit in ("tk", "qt") and toolkit == "pygame":
            return  # a Tk or Qt program that also imports pygame (for sound) stays what it was
        self.toolkit, self.adapter = toolkit, adapter
        self.hello()

    def push(self, ident: Optional[int] = None, now: bool = False) -> None:
        """Send the lines first run since the last push; the last message carries ``ident``."""
        fresh = self.tracer.take()
        send = self.channel.send_now if now else self.channel.send
        parts: list[tuple[str, list[int]]] = []
        for rel, lines in fresh.items():
            ordered = sorted(lines)
            parts.extend((rel, ordered[i:i + CHUNK_LINES]) for i in range(0, len(ordered), CHUNK_LINES))
        if not parts and ident is None:
            return
        kind = "reply" if ident is not None else "coverage"
        size = 0
        batch: dict[str, list[int]] = {}
        for rel, chunk in parts:
            if size + len(chunk) > CHUNK_LINES and batch:
                send({"type": "coverage", "files": batch})
                batch, size = {}, 0
            batch.setdefault(rel, []).extend(chunk)
            size += len(chunk)
        msg: dict[str, Any] = {"type": kind, "files": batch}
        if ident is not None:
            msg.update(id=ident, done=True)
        send(msg)

    def serve(self) -> None:
        """The request thread: read the engine's requests; push new lines now and then."""
        buf = b""
        while self.channel.open:
            try:
                ready, _, _ = select.select([self.channel.req_fd], [], [], PUSH_EVERY_S)
                if not ready:
                    self.push()
                    continue
                data = os.read(self.channel.req_fd, 65536)
            except OSError:
                return
            if not data:
                return  # the engine closed its end
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self._answer(line)
            if len(buf) > MAX_REQUEST:
                buf = b""

    def _answer(self, line: bytes) -> None:
        try:
            req = json.loads(line)
            if not isinstance(req, dict) or req.get("v") != VERSION or not isinstance(req.get("id"), int):
                return
            ident, kind = req["id"], req.get("type")
            if kind == "coverage":
                self.push(ident)
            elif kind in ("widgets", "idle"):
                if self.adapter is None or not self.adapter.ask(kind, ident):
                    self.channel.send({"type": "reply", "id": ident, kind: None})
            else:
                self.channel.send({"type": "reply", "id": ident, "error": f"unknown request {kind!r}"})
        except Exception:
            pass


def _on_import(inside: Inside, toolkit: str, make: Callable[[Inside, ModuleType], Any]) -> Callable[[ModuleType], None]:
    def then(module: ModuleType) -> None:
        try:
            adapter = make(inside, module)
        except Exception:
            adapter = None
        inside.toolkit_imported(toolkit, adapter)

    return then


def _tk_adapter(inside: Inside, module: ModuleType) -> Any:
    import _playcoder_tk

    return _playcoder_tk.TkAdapter(inside.channel, module, ENGINE_TIME, idle_reply)


def _pygame_hooks(inside: Inside, module: ModuleType) -> Any:
    """Say when the program changes its display mode (a second ``set_mode``, a fullscreen toggle): SDL shows a
    new, empty surface until the program draws again, which the film must not take for the program's flicker.
    No adapter: a pygame program's loop is asked through its frame gate."""
    display = getattr(module, "display", None)
    if display is None:
        return None
    calls = [0]

    def said(real: Callable[..., Any], counts: bool) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            calls[0] += 1
            if not counts or calls[0] > 1:
                inside.channel.send({"type": "display"})
            return real(*args, **kwargs)

        try:
            wrapped.__name__, wrapped.__doc__ = real.__name__, real.__doc__
        except Exception:
            pass
        return wrapped

    for name, counts in (("set_mode", True), ("toggle_fullscreen", False)):
        real = getattr(display, name, None)
        if callable(real):
            setattr(display, name, said(real, counts))
    return None


def _qt_adapter(binding: str) -> Callable[[Inside, ModuleType], Any]:
    def make(inside: Inside, module: ModuleType) -> Any:
        import _playcoder_qt

        return _playcoder_qt.QtAdapter(inside.channel, binding, module, idle_reply)

    return make


TRACER: Optional[Tracer] = None
ENGINE_TIME: Optional[Callable[[], float]] = None
"""Set by the sitecustomize in lockstep play: the engine's time, which Tk's timers are then due by."""
"""The program's tracer once started (a forked branch of a game reads what it ran: _playcoder_fork)."""


def start(after_import: Callable[[str, Callable[[ModuleType], None]], Any]) -> None:
    """Open the channel named by PLAYCODER_INSIDE, start tracing and serving, say hello.

    ``after_import(name, then)``: the sitecustomize's after-import finder (one per module).
    """
    raw = os.environ.pop(ENV, "")
    try:
        req_fd, evt_fd = (int(x) for x in raw.split(","))
        os.fstat(req_fd)
        os.fstat(evt_fd)
    except (ValueError, OSError):
        return
    for fd in (req_fd, evt_fd):
        os.set_inheritable(fd, False)  # programs the game starts do not inherit the channel
    channel = Channel(req_fd, evt_fd)
    global TRACER
    tracer = TRACER = Tracer(os.getcwd(), main_module())
    inside = Inside(channel, tracer)

    def forget_in_child() -> None:  # a forked child must not hold the engine's pipes open
        channel.open = False
        for fd in (req_fd, evt_fd):
            try:
                os.close(fd)
            except OSError:
                pass

    os.register_at_fork(after_in_child=forget_in_child)
    threading.Thread(target=channel.writer, daemon=True, name="playcoder-inside-writer").start()
    threading.Thread(target=inside.serve, daemon=True, name="playcoder-inside").start()
    atexit.register(lambda: inside.push(now=True))
    for name, toolkit, make in (("tkinter", "tk", _tk_adapter), ("PySide6.QtWidgets", "qt", _qt_adapter("PySide6")),
                                ("PyQt6.QtWidgets", "qt", _qt_adapter("PyQt6")),
                                ("PyQt5.QtWidgets", "qt", _qt_adapter("PyQt5")),
                                ("pygame", "pygame", _pygame_hooks)):
        sys.meta_path.insert(0, after_import(name, _on_import(inside, toolkit, make)))
    inside.hello()
    tracer.start()
