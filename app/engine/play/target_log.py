"""A played program's output, kept as a bounded head and tail (a program that prints without end cannot fill the disk).

A program that prints 1 GB must not cost the engine 1 GB of memory nor the
database 1.4 GB.  The log keeps the first :data:`HEAD_BYTES` of output whole
(where a program says what it is doing), then only the last
:data:`TAIL_BYTES` (where it says why it ended: the traceback); a line longer
than :data:`MAX_LINE_BYTES` is read in pieces.  What fell between is one
note: how many lines and bytes were dropped.

Positions (``since``) count every line the program printed, kept or not,
so a reader that follows the log with a cursor never reads a line twice.
"""

from __future__ import annotations

import threading
from collections import deque

LogLine = tuple[str, float, str]
KB = 1024
HEAD_BYTES = 512 * KB
"""The first this many bytes of a program's output are kept whole."""
TAIL_BYTES = 512 * KB
"""After the head, only the last this many bytes are kept."""
MAX_LINE_BYTES = 256 * KB
"""A longer line is read in pieces of this size (the store keeps the head of each and says it cut it)."""
NOTE_STREAM = "stderr"


class TargetLog:
    """The head and tail of a program's output lines (thread-safe: the readers append, the engine reads)."""

    def __init__(self, head_bytes: int = HEAD_BYTES, tail_bytes: int = TAIL_BYTES) -> None:
        self.head_bytes, self.tail_bytes = head_bytes, tail_bytes
        self._lock = threading.Lock()
        self._head: list[LogLine] = []
        self._head_size = 0
        self._tail: deque[tuple[int, LogLine]] = deque()
        self._tail_size = 0
        self.count = 0
        """Lines the program printed (kept or dropped)."""
        self.dropped_lines = 0
        self.dropped_bytes = 0
        self._saved = 0
        """Position up to which lines went to the store (see :meth:`unsaved`)."""
        self._note_saved = False

    def append(self, line: LogLine) -> None:
        size = len(line[2]) + 1
        with self._lock:
            seq = self.count
            self.count += 1
            if not self._tail and self._head_size + size <= self.head_bytes:
                self._head.append(line)
                self._head_size += size
                return
            self._tail.append((seq, line))
            self._tail_size += size
            while self._tail_size > self.tail_bytes and len(self._tail) > 1:
                _, old = self._tail.popleft()
                self._tail_size -= len(old[2]) + 1
                self.dropped_lines += 1
                self.dropped_bytes += len(old[2]) + 1

    def note(self) -> LogLine | None:
        """The line standing for what was dropped, or None."""
        with self._lock:
            return self._note()

    def _note(self) -> LogLine | None:
        if not self.dropped_lines:
            return None
        t = self._tail[0][1][1] if self._tail else 0.0
        return (NOTE_STREAM, t, f"playcoder: {self.dropped_lines} lines ({self.dropped_bytes} bytes) of the program's "
                f"output were dropped here; the first {self.head_bytes // KB} KB and the last "
                f"{self.tail_bytes // KB} KB are kept")

    def lines(self, since: int = 0) -> list[LogLine]:
        """Kept lines from position ``since`` on (the note stands where lines were dropped, when ``since`` is 0)."""
        return self.read_since(since)[0]

    def read_since(self, since: int) -> tuple[list[LogLine], int]:
        """Kept lines from position ``since`` on, and the position after them (for the next call)."""
        with self._lock:
            out = self._head[since:] if since < len(self._head) else []
            note = self._note()
            if note is not None and since <= len(self._head):
                out.append(note)
            out.extend(line for seq, line in self._tail if seq >= since)
            return out, self.count

    def unsaved(self, final: bool) -> list[LogLine]:
        """What the store has not had yet: during a run only the head (so a program printing without end adds
        at most the head); at its end (``final``) the rest: the note and the tail."""
        with self._lock:
            if not final:
                out = self._head[self._saved:]
                self._saved = max(self._saved, len(self._head))
                return out
            out = self._head[self._saved:] if self._saved < len(self._head) else []
            note = self._note()
            if note is not None and not self._note_saved:
                out.append(note)
                self._note_saved = True
            out.extend(line for seq, line in self._tail if seq >= self._saved)
            self._saved = self.count
            return out
