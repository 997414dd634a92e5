"""Shared by the desktop tests: Xvfb with a window manager, plain X windows, a green cover.

The cover is a plain X window of pure green (#00ff00) on a connection of its own
(another client, as another program would be); it logs every key and button event
it receives.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from typing import Any

import mss
import numpy as np
import pytest
from Xlib import X, Xutil
from Xlib import display as xdisplay
from Xlib.protocol import event as xevent

from app.engine.play.desktop import activate, move_window
from app.engine.play.display import start_xvfb
from app.engine.play.target import WindowInfo

needs_wm = pytest.mark.skipif(shutil.which("openbox") is None or shutil.which("Xvfb") is None,
                              reason="Xvfb and openbox are needed")

GREEN = 0x00FF00
TARGET_BG = 0x203040
POPUP = 0xFF0000
INPUT_EVENTS = (X.KeyPress, X.KeyRelease, X.ButtonPress, X.ButtonRelease)


@pytest.fixture
def wm_display(monkeypatch):
    """A private Xvfb running openbox, as $DISPLAY (a desktop run plays on $DISPLAY)."""
    display = start_xvfb((1280, 800))
    env = dict(os.environ, DISPLAY=display.name)
    wm = subprocess.Popen(["openbox", "--sm-disable"], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, start_new_session=True)
    wait_for_window_manager(display.name)
    monkeypatch.setenv("DISPLAY", display.name)
    yield display
    wm.terminate()
    wm.wait(5)
    display.close()


def wait_for_window_manager(name: str, timeout: float = 30.0) -> None:
    """Until the window manager frames a window it is asked to map (a request made while it starts may be lost)."""
    conn = xdisplay.Display(name)
    deadline = time.monotonic() + timeout
    try:
        screen = conn.screen()
        probe = screen.root.create_window(0, 0, 10, 10, 0, screen.root_depth, X.InputOutput, X.CopyFromParent)
        while True:
            probe.map()
            conn.sync()
            asked = time.monotonic()
            while time.monotonic() - asked < 1.0:
                framed = int(probe.query_tree().parent.id) != int(screen.root.id)
                if framed and probe.get_attributes().map_state == X.IsViewable:
                    probe.destroy()
                    conn.sync()
                    return
                time.sleep(0.05)
            assert time.monotonic() < deadline, "the window manager did not start"
            probe.unmap()
            conn.sync()
    finally:
        conn.close()


def x_window(conn: Any, rect: tuple[int, int, int, int], colour: int, *, override: bool = False,
            name: str = "") -> Any:
    screen = conn.screen()
    win = screen.root.create_window(
        rect[0], rect[1], rect[2], rect[3], 0, screen.root_depth, X.InputOutput, X.CopyFromParent,
        background_pixel=colour, override_redirect=override,
        event_mask=X.KeyPressMask | X.KeyReleaseMask | X.ButtonPressMask | X.ButtonReleaseMask | X.ExposureMask)
    if name:
        win.set_wm_name(name)
    if not override:  # placed where asked, not where the window manager finds room
        win.set_wm_normal_hints(flags=Xutil.USPosition | Xutil.USSize, x=rect[0], y=rect[1],
                                width=rect[2], height=rect[3])
    win.map()
    conn.sync()
    return win


def wait_viewable(conn: Any, win: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while win.get_attributes().map_state != X.IsViewable:
        assert time.monotonic() < deadline, "window never became viewable"
        time.sleep(0.02)
    time.sleep(0.2)  # the window manager's own placement settles


def window_info(conn: Any, win: Any) -> WindowInfo:
    geo = win.get_geometry()
    pos = conn.screen().root.translate_coords(win, 0, 0)
    return WindowInfo(win.id, int(pos.x), int(pos.y), int(geo.width), int(geo.height), "test")


def count_colour(bgrx: np.ndarray, colour: int) -> int:
    b, g, r = colour & 0xFF, (colour >> 8) & 0xFF, (colour >> 16) & 0xFF
    return int(((bgrx[:, :, 0] == b) & (bgrx[:, :, 1] == g) & (bgrx[:, :, 2] == r)).sum())


def screen_rect(display: str, info: WindowInfo) -> np.ndarray:
    with mss.MSS(display=display) as grabber:
        shot = grabber.grab({"left": info.x, "top": info.y, "width": info.width, "height": info.height})
    return np.frombuffer(bytes(shot.raw), dtype=np.uint8).reshape(shot.height, shot.width, 4)


def input_events(conn: Any, win_id: int) -> list[int]:
    out = []
    while conn.pending_events():
        event = conn.next_event()
        if event.type in INPUT_EVENTS and int(event.window.id) == win_id:
            out.append(event.type)
    return out


def iconify(display: str, window_id: int) -> None:
    """Minimise a window the way a user would (ICCCM WM_CHANGE_STATE to IconicState)."""
    conn = xdisplay.Display(display)
    try:
        win = conn.create_resource_object("window", window_id)
        message = xevent.ClientMessage(window=win, client_type=conn.intern_atom("WM_CHANGE_STATE"),
                                       data=(32, [3, 0, 0, 0, 0]))  # IconicState
        conn.screen().root.send_event(message, event_mask=X.SubstructureRedirectMask | X.SubstructureNotifyMask)
        conn.sync()
    finally:
        conn.close()


def restore(display: str, window_id: int) -> None:
    """Bring a minimised window back (EWMH activation)."""
    conn = xdisplay.Display(display)
    try:
        activate(conn, window_id)
        conn.sync()
    finally:
        conn.close()


class Cover(threading.Thread):
    """Another program's window over the target: placed there once the target appears, raised again
    every ``every_s``; it moves the target once (the run must follow) and logs any input it gets."""

    def __init__(self, display: str, title: str, every_s: float = 0.3, *, offset: tuple[int, int] = (40, 40),
                 size: tuple[int, int] = (320, 220), move_at: int | None = 6) -> None:
        super().__init__(daemon=True, name="green-cover")
        self.display, self.title, self.every_s = display, title, every_s
        self.offset, self.size, self.move_at = offset, size, move_at
        self.stop = threading.Event()
        self.inputs: list[int] = []
        self.covered_seen = 0
        self.moved_target = False
        self.error: BaseException | None = None

    def _find(self, conn: Any) -> Any:
        stack = [conn.screen().root]
        while stack:
            try:
                children = stack.pop().query_tree().children
            except Exception:
                continue  # windows come and go while we look
            for child in children:
                try:
                    if child.get_wm_name() == self.title:
                        return child
                except Exception:
                    continue
                stack.append(child)
        return None

    def run(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # reported by the test
            self.error = exc

    def _run(self) -> None:
        conn = xdisplay.Display(self.display)
        target = None
        while target is None and not self.stop.is_set():
            target = self._find(conn)
            time.sleep(0.05)
        if target is None:
            return
        time.sleep(0.5)
        root = conn.screen().root
        pos = root.translate_coords(target, 0, 0)
        cover = x_window(conn, (pos.x + self.offset[0], pos.y + self.offset[1], *self.size), GREEN, name="Cover")
        rounds = 0
        while not self.stop.wait(self.every_s):
            self.inputs += input_events(conn, cover.id)
            rounds += 1
            try:
                if rounds == self.move_at:
                    move_window(self.display, target.id, 300, 200)
                    self.moved_target = True
                    time.sleep(0.2)
                pos = root.translate_coords(target, 0, 0)
                geo = target.get_geometry()
                cover.configure(x=pos.x + self.offset[0], y=pos.y + self.offset[1], stack_mode=X.Above)
                conn.sync()
                time.sleep(0.05)
                info = WindowInfo(target.id, int(pos.x), int(pos.y), int(geo.width), int(geo.height), "")
                if count_colour(screen_rect(self.display, info), GREEN):
                    self.covered_seen += 1
            except Exception:
                continue  # the target is gone: the run ended
        self.inputs += input_events(conn, cover.id)
        conn.close()
