"""A small Chrome DevTools protocol client over ``--remote-debugging-pipe``.

The browser reads commands on its fd 3 and writes replies and events on its fd 4, each message one JSON
object ended by a NUL byte.  Two pipes cross the sandbox's namespaces with no port open anywhere: the engine
keeps one end of each (:meth:`DevTools.child_fds` are the browser's, moved to 3 and 4 by the launcher in
``play/seeding/_playcoder_web.py``).

Nothing here can hang the engine or make it keep unbounded data:

* one reader thread takes the browser's messages, each at most :data:`MAX_MESSAGE` bytes (longer ones are
  dropped up to their NUL and counted in :attr:`DevTools.dropped`);
* a command is written without blocking for longer than its deadline (a browser that stops reading fills
  the pipe: the call answers None);
* every call has a deadline after which it answers None; end of file means the browser is gone, and every
  call waiting or made after that answers None at once;
* event handlers run on the reader thread and must be quick; one that raises is ignored.
"""

from __future__ import annotations

import json
import os
import select
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable
from app.engine.play.channel_limits import read_messages

MAX_MESSAGE = 64 * 1024 * 1024
"""The longest message taken from the browser (bytes): a large program's precise coverage fits."""
CALL_TIMEOUT_S = 5.0
"""A command's default deadline."""

Handler = Callable[[dict[str, Any], str], None]
"""An event handler: the event's params and the session it came from ('' for the browser)."""


@dataclass(frozen=True)
class CallError:
    """The browser answered a command with an error (its message)."""

    message: str


class DevTools:
    """The engine's end of one browser's DevTools pipe."""

    def __init__(self) -> None:
        self._to_r, self._to_w = os.pipe()
        self._from_r, self._from_w = os.pipe()
        os.set_blocking(self._to_w, False)
        self._lock = threading.Condition()
        self._write_lock = threading.Lock()
        self._next_id = 0
        self._replies: dict[int, dict[str, Any]] = {}
        self._waiting: set[int] = set()
        self._handlers: dict[str, list[Handler]] = {}
        self.dropped = 0
        """Messages too long or not JSON objects (dropped)."""
        self.closed = False
        """The browser is gone (its end of the pipe closed) or :meth:`close` was called."""
        self._reader = threading.Thread(target=self._read, daemon=True, name="devtools-reader")
        self._reader.start()

    # -- starting ------------------------------------------------------------------
    def child_fds(self) -> tuple[int, int]:
        """The browser's ends: (where it reads commands, where it writes answers)."""
        return (self._to_r, self._from_w)

    def started(self) -> None:
        """The browser holds its ends: close the engine's copies, so that its end reads as end of file."""
        for fd in (self._to_r, self._from_w):
            _close(fd)
        self._to_r = self._from_w = -1

    # -- calls and events ------------------------------------------------------------
    def on(self, event: str, handler: Handler) -> None:
        """Call ``handler(params, session)`` for every ``event`` (such as ``Runtime.exceptionThrown``)."""
        with self._lock:
            self._handlers.setdefault(event, []).append(handler)

    def call(self, method: str, params: dict[str, Any] | None = None, *, session: str = "",
             timeout_s: float = CALL_TIMEOUT_S) -> dict[str, Any] | CallError | None:
        """Send one command and wait for its answer: its ``result``, a :class:`CallError`, or None when the
        browser did not answer within ``timeout_s`` (busy, frozen, gone)."""
        end = time.monotonic() + timeout_s
        with self._lock:
            if self.closed:
                return None
            self._next_id += 1
            ident = self._next_id
            self._waiting.add(ident)
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        try:
            if not self._write(json.dumps(message).encode() + b"\0", end):
                return None
            with self._lock:
                while ident not in self._replies and not self.closed:
                    left = end - time.monotonic()
                    if left <= 0:
                        return None
                    self._lock.wait(left)
                reply = self._replies.pop(ident, None)
        finally:
            with self._lock:
                self._waiting.discard(ident)
                self._replies.pop(ident, None)
        if reply is None:
            return None
        if isinstance(reply.get("error"), dict):
            return CallError(str(reply["error"].get("message", "error"))[:500])
        result = reply.get("result")
        return result if isinstance(result, dict) else {}

    def _write(self, data: bytes, end: float) -> bool:
        with self._write_lock:
            view = memoryview(data)
            while view:
                if self._to_w < 0:
                    return False
                try:
                    written = os.write(self._to_w, view)
                except BlockingIOError:
                    written = 0
                except OSError:
                    return False
                view = view[written:]
                if view:
                    left = end - time.monotonic()
                    if left <= 0:
                        return False  # the browser stopped reading; a half-sent command spoils the pipe
                    select.select([], [self._to_w], [], min(left, 0.05))
            return True

    def close(self) -> None:
        """Stop talking: every call answers None from now on."""
        with self._write_lock:
            for fd in (self._to_r, self._from_w, self._to_w):
                if fd >= 0:
                    _close(fd)
            self._to_r = self._from_w = self._to_w = -1
        with self._lock:
            self.closed = True
            self._lock.notify_all()

    # -- the reader ------------------------------------------------------------------
    def _read(self) -> None:
        read_messages(self._from_r, b"\0", MAX_MESSAGE, self._take, self._count_dropped)
        _close(self._from_r)
        with self._lock:
            self.closed = True
            self._lock.notify_all()

    def _count_dropped(self) -> None:
        with self._lock:
            self.dropped += 1

    def _take(self, raw: bytes) -> None:
        try:
            message = json.loads(raw)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            self._count_dropped()
            return
        ident = message.get("id")
        if isinstance(ident, int):
            with self._lock:
                if ident in self._waiting:
                    self._replies[ident] = message
                    self._lock.notify_all()
            return
        method = message.get("method")
        params = message.get("params")
        if not isinstance(method, str) or not isinstance(params, dict):
            return
        with self._lock:
            handlers = list(self._handlers.get(method, ()))
        session = message.get("sessionId")
        for handler in handlers:
            try:
                handler(params, session if isinstance(session, str) else "")
            except Exception:  # a handler's mistake must not stop the reader
                pass


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
