"""Limits for every channel the engine reads from a program it did not write.

A played program talks to the engine on pipes and sockets (the frame gate,
the inside channel, the fork scouts' socket, a browser's DevTools pipe).
Whatever it sends, the engine must not hang, spin, grow without bound or end
in an internal error.  The rules, the same on every channel:

* **A deadline per read.**  :func:`read_some` waits at most until a deadline
  and reads at most a chunk; a reader loops on the clock, never on the data.
* **A byte budget per step.**  :class:`Budget` counts what a step took; past
  it the program is flooding the channel and is let go with a reason.
* **EOF means the program's side is gone.**  :func:`read_some` answers
  ``b""``; the caller records a finding and stops reading that channel (never
  reads it again in a loop).
* **A size and depth limit for every message.**  :func:`parse_json` refuses a
  message longer than its limit or nested deeper than :data:`MAX_DEPTH`
  before ``json`` sees it (no ``RecursionError``), and a non-finite number.
* **Numbers are checked before use.**  :func:`number` and :func:`integer`
  take only finite values in a range.
* **A malformed message is the program's fault.**  Each check raises
  :class:`ProgramFault` with a sentence about the program; the caller drops
  the message and notes the sentence once (:class:`Notes`) in the run's log.
  It is never an internal error and never ends a reader thread.
"""

from __future__ import annotations

import json
import math
import os
import select
import threading
import time
from typing import Any, Callable

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects taken in a message."""
MAX_MESSAGE = 1 << 20
"""The default longest message (bytes)."""
READ_CHUNK = 1 << 16
NOTES_KEPT = 32
"""Distinct notes one channel keeps (each said once); further ones are counted."""


class ProgramFault(ValueError):
    """What a program sent broke a channel's limits (a sentence about the program, for the run's log)."""


class Budget:
    """Bytes a channel may carry in one step; :meth:`take` is False once a step has taken more."""

    def __init__(self, per_step: int) -> None:
        self.per_step = per_step
        self.used = 0

    def take(self, n: int) -> bool:
        self.used += n
        return self.used <= self.per_step

    def next_step(self) -> None:
        self.used = 0


def read_some(fd: int, deadline: float, size: int = READ_CHUNK) -> bytes | None:
    """Up to ``size`` bytes from ``fd`` once it is readable before ``deadline`` (``time.monotonic``): ``None``
    when nothing came in time, ``b""`` at end of file (or a read error): the program's side is gone."""
    left = max(0.0, deadline - time.monotonic())
    try:
        ready, _, _ = select.select([fd], [], [], left)
    except (OSError, ValueError):
        return b""
    if not ready:
        return None
    try:
        return os.read(fd, size)
    except BlockingIOError:
        return None
    except OSError:
        return b""


def read_messages(fd: int, sep: bytes, max_size: int, take: Callable[[bytes], None],
                  dropped: Callable[[], None]) -> None:
    """Read ``fd`` to its end, handing each ``sep``-ended message to ``take``.  A message over ``max_size``
    bytes is dropped whole (``dropped`` is told), never held: a program that sends one endless message
    costs the engine ``max_size`` bytes at most.  Returns at end of file (the other side is gone)."""
    buf = bytearray()
    skipping = False
    while True:
        try:
            data = os.read(fd, READ_CHUNK)
        except OSError:
            data = b""
        if not data:
            return
        buf += data
        while True:
            cut = buf.find(sep)
            if cut < 0:
                if len(buf) > max_size:
                    buf.clear()
                    skipping = True
                break
            message = bytes(buf[:cut])
            del buf[:cut + len(sep)]
            if skipping or len(message) > max_size:
                skipping = False
                dropped()
                continue
            take(message)


def too_deep(text: bytes | str, max_depth: int = MAX_DEPTH) -> bool:
    """Whether arrays and objects nest deeper than ``max_depth`` (before ``json`` recurses): a count at C speed
    when there are few brackets, else :func:`nesting_depth`."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return data.count(b"[") + data.count(b"{") > max_depth and nesting_depth(data) > max_depth


def nesting_depth(text: bytes | str) -> int:
    """The deepest nesting of ``[`` and ``{`` outside strings, in one linear pass."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def _no_constant(name: str) -> float:
    raise ProgramFault(f"the program sent the non-number {name} in a message")


def parse_json(data: bytes | str, max_bytes: int = MAX_MESSAGE, max_depth: int = MAX_DEPTH) -> Any:
    """One JSON message within the limits, or :class:`ProgramFault` saying which limit it broke."""
    if len(data) > max_bytes:
        raise ProgramFault(f"the program sent a message of {len(data)} bytes, more than the {max_bytes} allowed")
    if too_deep(data, max_depth):
        raise ProgramFault(f"the program sent a message nested deeper than {max_depth} levels")
    try:
        return json.loads(data, parse_constant=_no_constant)
    except ProgramFault:
        raise
    except (ValueError, RecursionError) as exc:  # RecursionError: belt and braces, the depth check comes first
        raise ProgramFault("the program sent a message that is not JSON") from exc


def number(value: Any, low: float, high: float, what: str) -> float:
    """``value`` as a finite float in [low, high], else :class:`ProgramFault` naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ProgramFault(f"the program sent {what} that is not a number")
    try:
        out = float(value)
    except OverflowError as exc:
        raise ProgramFault(f"the program sent {what} too large to be a number") from exc
    if not math.isfinite(out) or not low <= out <= high:
        raise ProgramFault(f"the program sent {what} out of range ({str(value)[:40]})")
    return out


def integer(value: Any, low: int, high: int, what: str) -> int:
    """``value`` as an int in [low, high] (a float with no fraction is taken), else :class:`ProgramFault`."""
    out = number(value, low, high, what)
    if out != int(out):
        raise ProgramFault(f"the program sent {what} that is not a whole number")
    return int(out)


class Notes:
    """What a program did wrong on one channel, each sentence kept once (at most :data:`NOTES_KEPT`), handed
    to ``say`` (the run's log) the first time it happens."""

    def __init__(self, channel: str, say: Callable[[str], None] | None = None) -> None:
        self.channel = channel
        self.say = say
        self.kept: list[str] = []
        self.count = 0
        self._lock = threading.Lock()

    def add(self, sentence: str) -> None:
        text = f"{self.channel}: {sentence}"
        with self._lock:
            self.count += 1
            if text in self.kept or len(self.kept) >= NOTES_KEPT:
                return
            self.kept.append(text)
        if self.say is not None:
            try:
                self.say(text)
            except Exception:  # a log that cannot take a note must not end the reader
                pass
