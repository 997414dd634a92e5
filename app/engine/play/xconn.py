"""The engine's X connections: opened in one place, and quiet about errors of requests nobody waits for.

python-xlib reports an error of a request without a reply (set the input focus, send a key, move a
window) by printing ``X protocol error: <class 'Xlib.error.BadWindow'> ...`` on stderr.  Such a
request fails whenever the program's window is gone, which is what a program that quits by design
does between two of the engine's inputs: the line looked like a crash of the tool.  The engine
learns that a program ended from its process, never from these errors, so they are dropped; errors
of requests with a reply still raise where they are made.
"""

from __future__ import annotations

from typing import Any

from Xlib import display as xdisplay


def drop_error(err: Any, request: Any = None) -> None:
    """The error handler of every engine connection: an asynchronous error changes nothing the engine does."""


def open_x(name: str) -> xdisplay.Display:
    """A connection to X display ``name`` whose asynchronous errors are not printed (see the module docstring)."""
    conn = xdisplay.Display(name)
    conn.set_error_handler(drop_error)
    return conn
