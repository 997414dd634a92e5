"""Inside: the one channel from inside a played Python program to the engine.

The seeding ``sitecustomize`` runs in every played Python program; with
PLAYCODER_INSIDE ("REQ_FD,EVT_FD", two inherited pipe ends) it loads
``_playcoder_inside`` (:mod:`app.engine.play.seeding`), which answers from
inside what pixels cannot: the widget tree its toolkit knows (Tk, Qt), when
its event loop is back and what it has scheduled, and which lines of the
program's own files ran.  A program that is not Python never says hello:
:attr:`Inside.available` stays False and the engine works from pixels, as
before; each run records which it had (:attr:`Inside.source`).

The wire is JSON lines, each with ``"v": 1``.  Engine -> program: requests
``{"v":1, "id":N, "type":"coverage"|"widgets"|"idle"}``.  Program -> engine:
``hello`` (once at start and again once its toolkit is imported), replies
``{"v":1, "type":"reply", "id":N, ...}`` and ``coverage`` pushes (a reply's
lines may come in several messages; the last one carries the id).

It never blocks the engine: a reader thread takes the program's messages,
each at most :data:`MAX_LINE` bytes (longer ones are dropped and counted in
:attr:`Inside.dropped`), requests are written without blocking (a program
that never reads its requests fills the pipe: the query answers None), and
every query has a timeout after which it answers None.  Messages nested deeper
than :data:`~app.engine.play.channel_limits.MAX_DEPTH`, numbers that are not
finite or out of range, and forged paths are the program's fault: the message
(or the value) is dropped and the sentence noted once in the run's log
(:attr:`Inside.notes`), never an internal error and never a dead reader
(:mod:`app.engine.play.channel_limits`).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from app.engine.play.channel_limits import (MAX_DEPTH, Notes, ProgramFault, integer, number, parse_json,
                                            read_messages)
from app.engine.play.own_code import main_lines, own_lines

ENV = "PLAYCODER_INSIDE"
VERSION = 1
"""The wire's version: every message carries ``"v": 1``; a program speaking another is ignored."""
MAX_LINE = 1 << 20
"""The longest message the engine takes from a program (bytes); the program splits coverage below it."""
PYTHON_MAX = 40
COVERAGE_TIMEOUT_S = 0.5
"""How long :meth:`Inside.coverage` waits for the program to send its new lines."""
WIDGETS_TIMEOUT_S = 0.5
STATE_MAX = 64
"""The longest state digest kept (the program sends 16 hex digits)."""
DISPLAY_CHANGES_KEPT = 64
"""Display mode changes remembered (the film asks about the latest few seconds only)."""
TOOLKITS = ("tk", "qt", "pygame", "web", "")
TIMER_MAX_MS = 24 * 3600 * 1000.0
"""The farthest a timer may be due (a day): a larger or non-finite ``next_timer_ms`` is the program's fault."""
COORD_MAX = 1 << 20
"""The largest widget coordinate taken (pixels, either sign)."""
KINDS = ("button", "entry", "text", "list", "check", "radio", "scale", "menu", "menuitem", "canvas", "label",
         "other")
"""The normalised widget kinds (:attr:`InsideWidget.kind`), the same for every toolkit."""

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class InsideWidget:
    """One widget as its toolkit knows it.

    ``box`` is (x0, y0, x1, y1) relative to the main window's client area (the
    picture the engine captures); ``menu_path`` holds the labels from the menu
    bar down for a menu item (else ``()``); ``shortcut`` is the accelerator
    text a menu item or action shows (``"Ctrl+N"``), else ``""``.
    """

    kind: str
    cls: str
    text: str
    enabled: bool
    visible: bool
    box: Box | None
    has_command: bool
    menu_path: tuple[str, ...] = ()
    shortcut: str = ""


@dataclass(frozen=True)
class IdleReport:
    """What the program's event loop said when asked.

    ``idle``: the loop came back and nothing was queued; ``next_timer_ms``: how
    soon the soonest pending timer is due (None: none); ``repeating``: that
    timer reschedules itself with the same delay (a caret blink, a clock), so
    a step need not wait for it.
    """

    idle: bool
    next_timer_ms: float | None
    repeating: bool


@dataclass(frozen=True)
class CoverageDelta:
    """Lines of the program's own files that ran since the last :meth:`Inside.coverage` call.

    ``lines`` holds (file, line) pairs, the file relative to the program
    folder.  An empty delta is falsy; test ``is None`` for "no answer".
    """

    lines: frozenset[tuple[str, int]]

    def __len__(self) -> int:
        return len(self.lines)

    def by_file(self) -> dict[str, list[int]]:
        """The lines per file, sorted: how the store keeps them."""
        out: dict[str, list[int]] = {}
        for file, line in self.lines:
            out.setdefault(file, []).append(line)
        return {file: sorted(lines) for file, lines in sorted(out.items())}


class Inside:
    """The engine's end of one program start's channel (created by :class:`TargetProcess`)."""

    def __init__(self, folder: Path | None = None, note: Callable[[str], None] | None = None) -> None:
        """``folder``: the program folder, for :meth:`lines_total` (its own .py files); ``note``: where the
        program's faults on this channel are said (the run's log)."""
        self._init_state(folder)
        self.notes.say = note
        self._req_r, self._req_w = os.pipe()
        self._evt_r, self._evt_w = os.pipe()
        os.set_blocking(self._req_w, False)
        self._reader = threading.Thread(target=self._read, daemon=True, name="inside-reader")
        self._reader.start()

    def _init_state(self, folder: Path | None) -> None:
        """What every channel keeps, whatever carries it (a web page's is the DevTools protocol:
        play/web_inside.py)."""
        self.folder = folder
        self.notes = Notes("inside channel")
        """The program's faults on this channel, each said once (see :mod:`app.engine.play.channel_limits`)."""
        self.available = False
        """Has the program said hello (a Python program running the seeding sitecustomize)?"""
        self.toolkit = ""
        """The GUI toolkit the program imported: tk, qt, pygame or '' (none yet, or not Python)."""
        self.python = ""
        self.dropped = 0
        """Messages the program sent that were too long or not JSON of this version (dropped)."""
        self._lock = threading.Condition()
        self._next_id = 0
        self._replies: dict[int, dict[str, Any]] = {}
        self._waiting: set[int] = set()
        """Ids of questions still waited for: a late answer to one given up on is not kept."""
        self._fresh: dict[str, set[tuple[str, int]]] = {}
        """Per reader of :meth:`coverage`: the pairs it has not been given yet."""
        self._seen: set[tuple[str, int]] = set()
        self._total: dict[str, frozenset[int]] | None = None
        self._main: tuple[str, str] | None = None
        """The installed module ``python -m`` runs (path, module path), as the hello said: own code too."""
        self.display_changes: deque[float] = deque(maxlen=DISPLAY_CHANGES_KEPT)
        """When (wall time, as the message came) the program changed its display mode: a pygame program's
        second ``set_mode`` or a fullscreen toggle."""
        self.state = ""
        """The program's state digest at its latest idle answer (a Tk or Qt program says; '' when not known): the
        values its main module's globals reach. An input during whose step it changed did something, seen or not."""
        self._closed = False

    # -- starting ------------------------------------------------------------------
    def env(self) -> dict[str, str]:
        return {ENV: f"{self._req_r},{self._evt_w}"}

    def child_fds(self) -> tuple[int, ...]:
        """The ends the program inherits."""
        return (self._req_r, self._evt_w)

    def started(self) -> None:
        """The program has its ends: close the engine's copies (a program that ends reads as EOF)."""
        for fd in (self._req_r, self._evt_w):
            _close(fd)
        self._req_r = self._evt_w = -1

    @property
    def source(self) -> str:
        """What the run saw the program through: 'inside' (it said hello) or 'pixels'."""
        return "inside" if self.available else "pixels"

    # -- queries -------------------------------------------------------------------
    def coverage(self, timeout_s: float = COVERAGE_TIMEOUT_S, reader: str = "") -> CoverageDelta | None:
        """The (file, line) pairs of the program's own files first run since this ``reader``'s last call
        (its first call: all so far); None when the program cannot be asked (not Python, ended) or did not
        answer in time (its lines then come with the next call).

        Readers are independent: the session records each step's lines (reader "run") while an explorer
        takes its own feedback (the default reader)."""
        if not self.available:
            return None
        reply = self._ask("coverage", timeout_s)
        with self._lock:
            fresh = self._fresh.get(reader)
            if fresh is None:
                fresh = set(self._seen)
            self._fresh[reader] = set()
            if reply is None and not fresh:
                return None
        return CoverageDelta(frozenset(fresh))

    def lines_hit(self) -> int:
        """Lines of the program's own files run so far (of those :meth:`lines_total` counts)."""
        total = self._lines_by_file()
        with self._lock:
            seen = list(self._seen)
        return sum(1 for file, line in seen if line in total.get(file, ()))

    def display_changed_at(self) -> list[float]:
        """When the program changed its display mode (see :attr:`display_changes`), oldest first."""
        with self._lock:
            return list(self.display_changes)

    def lines_total(self) -> int:
        """Executable lines of the program's own .py files (tests and the engine's seeding left out)."""
        return sum(len(lines) for lines in self._lines_by_file().values())

    def lines_by_file(self) -> dict[str, frozenset[int]]:
        """Each own .py file (relative to the folder) with its executable lines."""
        return dict(self._lines_by_file())

    def widgets(self, timeout_s: float = WIDGETS_TIMEOUT_S) -> list[InsideWidget] | None:
        """The widgets of the program's windows as its toolkit knows them; None when it cannot tell
        (no known toolkit, no window yet, its GUI thread busy past ``timeout_s``)."""
        if not self.available:
            return None
        reply = self._ask("widgets", timeout_s)
        if reply is None or not isinstance(reply.get("widgets"), list):
            return None
        out = []
        for raw in reply["widgets"]:
            try:
                widget = _widget(raw)
            except ProgramFault as fault:
                self.notes.add(str(fault))
                continue
            if widget is not None:
                out.append(widget)
        return out

    def idle(self, timeout_s: float, quick: bool = False) -> IdleReport | None:
        """Ask the program's event loop whether it is back and idle; None when it did not answer within
        ``timeout_s`` (busy, frozen, not Python) or cannot tell (pygame: the frame gate says it).  ``quick``:
        the question only confirms a picture that changed since the input; a program that can tell nothing
        happened since its last answer may say so without waiting for another frame."""
        if not self.available:
            return None
        reply = self._ask(self._idle_kind(quick), timeout_s)
        if reply is None or not isinstance(reply.get("idle"), bool):
            return None
        due = reply.get("next_timer_ms")
        try:
            soon = None if due is None else number(due, 0, TIMER_MAX_MS, "a timer's due time")
        except ProgramFault as fault:
            self.notes.add(str(fault))
            return None
        state = reply.get("state")
        if isinstance(state, str) and len(state) <= STATE_MAX:
            self.state = state
        return IdleReport(bool(reply["idle"]), soon, bool(reply.get("repeating", False)))

    def wait_hello(self, timeout_s: float) -> bool:
        """Wait until the program has said hello (or ``timeout_s``): a test's or a launcher's sync point."""
        end = time.monotonic() + timeout_s
        with self._lock:
            while not self.available and not self._closed:
                left = end - time.monotonic()
                if left <= 0:
                    break
                self._lock.wait(left)
            return self.available

    def stop_frozen(self) -> None:
        """The program was found frozen (a fatal finding): stop what keeps its loop away, where the channel
        can, so the lines it ran can still be read.  A Python program's channel cannot: nothing happens."""

    def close(self) -> None:
        """Stop listening (the program ended or is stopped); queries answer None from now on."""
        for fd in (self._req_r, self._evt_w, self._req_w):
            if fd >= 0:
                _close(fd)
        self._req_r = self._evt_w = self._req_w = -1
        with self._lock:
            self._closed = True
            self._lock.notify_all()

    # -- the wire ------------------------------------------------------------------
    def _idle_kind(self, quick: bool) -> str:
        """The question that asks for idle: one kind for a Python program, which answers at once anyway."""
        return "idle"

    def _ask(self, kind: str, timeout_s: float) -> dict[str, Any] | None:
        with self._lock:
            if self._closed or self._req_w < 0:
                return None
            self._next_id += 1
            ident = self._next_id
            self._waiting.add(ident)
        data = (json.dumps({"v": VERSION, "id": ident, "type": kind}) + "\n").encode()
        try:
            written = os.write(self._req_w, data)
        except OSError:  # BlockingIOError: the pipe is full, the program is not reading
            written = 0
        end = time.monotonic() + timeout_s
        with self._lock:
            try:
                if written != len(data):  # a partial write only happens on a full pipe
                    return None
                while ident not in self._replies and not self._closed:
                    left = end - time.monotonic()
                    if left <= 0:
                        return None
                    self._lock.wait(left)
                return self._replies.pop(ident, None)
            finally:
                self._waiting.discard(ident)
                self._replies.pop(ident, None)

    def _read(self) -> None:
        read_messages(self._evt_r, b"\n", MAX_LINE, self._take_safely, self._count_dropped)
        _close(self._evt_r)
        with self._lock:
            self._closed = True
            self._lock.notify_all()

    def _count_dropped(self) -> None:
        with self._lock:
            self.dropped += 1

    def _take_safely(self, line: bytes) -> None:
        try:
            self._take(line)
        except Exception as exc:  # whatever a message does, the reader lives on (it is the program's)
            self._count_dropped()
            self.notes.add(f"the program sent a message the engine could not take ({type(exc).__name__})")

    def _take(self, line: bytes) -> None:
        """One message from the program; anything malformed is dropped and counted, never raised."""
        try:
            msg = parse_json(line, MAX_LINE, MAX_DEPTH)
        except ProgramFault as fault:
            self.notes.add(str(fault))
            msg = None
        if not isinstance(msg, dict) or msg.get("v") != VERSION:
            with self._lock:
                self.dropped += 1
            return
        kind = msg.get("type")
        files = msg.get("files") if kind in ("coverage", "reply") else None
        # Only lines of the program's own files count: a program cannot make the engine keep anything else.
        own = self._lines_by_file() if isinstance(files, dict) and self.folder is not None else None
        with self._lock:
            if kind == "hello":
                self.available = True
                toolkit = msg.get("toolkit")
                if isinstance(toolkit, str) and toolkit in TOOLKITS and toolkit:
                    self.toolkit = toolkit
                self.python = str(msg.get("python", self.python))[:PYTHON_MAX]
                main = msg.get("main")
                if isinstance(main, dict) and self._main is None and self._total is None:
                    path, name = main.get("path"), main.get("name")
                    if isinstance(path, str) and isinstance(name, str) and len(path) < 4096 and len(name) < 512:
                        self._main = (path, name)
            elif kind == "display":
                self.display_changes.append(time.time())
            elif kind in ("coverage", "reply"):
                if isinstance(files, dict):
                    self._note_lines(files, own)
                ident = msg.get("id")
                if isinstance(ident, int) and ident in self._waiting and (kind == "reply" or msg.get("done")):
                    self._replies[ident] = msg
            else:
                self.dropped += 1
            self._lock.notify_all()

    def _note_lines(self, files: dict[Any, Any], own: dict[str, frozenset[int]] | None) -> None:
        for file, lines in files.items():
            if not isinstance(file, str) or not isinstance(lines, list) or (own is not None and file not in own):
                continue
            allowed = own[file] if own is not None else None
            pairs = {(file, n) for n in lines if isinstance(n, int) and (allowed is None or n in allowed)} - self._seen
            for fresh in self._fresh.values():
                fresh |= pairs
            self._seen |= pairs

    def _lines_by_file(self) -> dict[str, frozenset[int]]:
        if self._total is None:
            total = own_lines(self.folder) if self.folder is not None else {}
            if self._main is not None and self.folder is not None:
                total.update(main_lines(*self._main, folder=self.folder))
            self._total = total
        return self._total


def _widget(raw: Any) -> InsideWidget | None:
    if not isinstance(raw, dict):
        return None
    box = raw.get("box")
    if isinstance(box, list) and len(box) == 4:
        box = [integer(v, -COORD_MAX, COORD_MAX, "a widget's box") for v in box]
    try:
        kind = str(raw.get("kind", "other"))
        return InsideWidget(
            kind=kind if kind in KINDS else "other", cls=str(raw.get("cls", "")), text=str(raw.get("text", "")),
            enabled=bool(raw.get("enabled", True)), visible=bool(raw.get("visible", True)),
            box=(int(box[0]), int(box[1]), int(box[2]), int(box[3])) if isinstance(box, list) and len(box) == 4
            else None,
            has_command=bool(raw.get("has_command", False)),
            menu_path=tuple(str(p) for p in raw.get("menu_path") or ()), shortcut=str(raw.get("shortcut", "")))
    except (TypeError, ValueError):
        return None


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
