"""What a run's surroundings broke, in one sentence: a dead display, a full disk, a database gone bad.

The session asks :func:`describe_fault` about an exception that is not a
:class:`~app.engine.errors.UserError` before it calls it an internal error:
a private Xvfb killed mid-run surfaces as whatever X call came next (a closed
connection, a failed capture), a full disk as ``OSError(ENOSPC)``; neither is
an engine bug, and both deserve a sentence that says what happened.
:func:`close_quietly` runs a cleanup step whose failure must not hide the
run's result (closing an X connection to a server that is gone raises).
"""

from __future__ import annotations

import errno
import sqlite3
import subprocess
from pathlib import Path
from typing import Callable

from app.engine.play.display import XDisplay
from app.engine.play.player import Player
from app.engine.trace.sqlite_faults import fault_for

X_EXIT_WAIT_S = 0.5
"""After a lost X connection, how long to wait for a dying Xvfb to exit before blaming something else."""
_X_GONE = ("ConnectionClosedError", "DisplayConnectionError", "ScreenShotError", "XIOError")
"""Exceptions (by name: Xlib's and mss's) that a lost X server shows up as."""


def describe_fault(exc: BaseException, display: XDisplay | None, db: Path | None = None,
                   player: Player | None = None) -> str | None:
    """One sentence for a fault the environment caused, or None when it looks like an engine bug."""
    x_gone = _named(exc, _X_GONE) or isinstance(exc, (BrokenPipeError, ConnectionResetError))
    if display is not None and display_died(display, wait_s=X_EXIT_WAIT_S if x_gone else 0.0):
        return (f"the private X display {display.name} (Xvfb) stopped during the run (was it killed, or out of "
                "memory?); run again.")
    if _named(exc, ("ScreenShotError",)) and display is not None:  # mss's XProtoError (BadMatch) is one
        return _uncapturable(display, player)
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        where = f" ({exc.filename})" if exc.filename else ""
        return f"the disk is full{where}; free some space and run again."
    if isinstance(exc, sqlite3.Error) and db is not None:
        fault = fault_for(exc, db)
        if fault is not None:
            return str(fault)
    if x_gone:
        name = display.name if display is not None else "the X display"
        return (f"the X display {name} closed its connection during the run ({type(exc).__name__}); check that it "
                "is still running and run again.")
    return None


def _named(exc: BaseException, names: tuple[str, ...]) -> bool:
    """``exc`` is of a class so named, or of a subclass of one (mss raises XProtoError, a ScreenShotError)."""
    return any(cls.__name__ in names for cls in type(exc).__mro__)


def _uncapturable(display: XDisplay, player: Player | None) -> str:
    """The display is alive but the window cannot be captured: it has left the screen (grown past it, moved)."""
    window = None
    if player is not None and player.target is not None:
        try:
            window = player.target.refresh_geometry()
        except Exception:  # the X connection may be in no state to answer
            window = None
    w, h = display.size
    if window is not None and (window.x + window.width > w or window.y + window.height > h or window.x < 0
                               or window.y < 0):
        return (f"the program's window grew or moved to {window.width}×{window.height} at ({window.x}, {window.y}), "
                f"beyond its {w}×{h} screen, so it cannot be captured; set size = [{max(w, window.width)}, "
                f"{max(h, window.height)}] in its playcoder.toml.")
    return (f"the program's window could not be captured on {display.name} (it may have left its {w}×{h} "
            "screen); give it a larger size in its playcoder.toml and run again.")


def display_died(display: XDisplay, wait_s: float = 0.0) -> bool:
    """A private display whose Xvfb has exited, or does within ``wait_s`` (a desktop display is not ours to watch)."""
    if display.process is None:
        return False
    try:
        display.process.wait(wait_s)
    except subprocess.TimeoutExpired:
        return False
    return True


def close_quietly(close: Callable[[], None]) -> BaseException | None:
    """Run one cleanup step; return (not raise) what it raised, so the next step and the result still happen."""
    try:
        close()
    except (Exception, KeyboardInterrupt) as exc:
        return exc
    return None
