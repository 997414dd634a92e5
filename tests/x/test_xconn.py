"""A program that quits by design leaves the engine's pending X requests pointing at a window that is gone: the
engine's connections say nothing about it (python-xlib would print an `Xlib.error.BadWindow` line on stderr)."""

from __future__ import annotations

from Xlib import X
from Xlib import display as xdisplay

from app.engine.play.xconn import open_x

from suite import needs_xvfb

pytestmark = needs_xvfb
GONE = 0x3FFFFF  # no window has this id on a fresh display


def focus_a_window_that_is_gone(conn: xdisplay.Display) -> None:
    conn.set_input_focus(GONE, X.RevertToParent, X.CurrentTime)  # no reply: its error comes asynchronously
    conn.sync()


def test_errors_of_requests_to_a_window_that_is_gone_are_not_printed(xvfb, capfd):
    plain = xdisplay.Display(xvfb.name)
    try:
        focus_a_window_that_is_gone(plain)
    finally:
        plain.close()
    assert "BadWindow" in capfd.readouterr().err  # what python-xlib does by itself
    conn = open_x(xvfb.name)
    try:
        focus_a_window_that_is_gone(conn)
        assert conn.screen().root.get_geometry().width > 0  # the connection goes on working
    finally:
        conn.close()
    assert capfd.readouterr().err == ""
