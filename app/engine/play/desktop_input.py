"""Input on the user's desktop that reaches the target or nothing.

Before each press (a button, a key, a typed character) the target is raised
and focused (through the window manager), and the press is sent only after a
check made under a server grab, so that no other program can restack or take
the focus between the check and the press:

- a button: the deepest window under the pointer belongs to the target (the
  pointer is first put back on the aimed point should the window have moved);
- a key: the input focus is on one of the target's windows.

While the check fails the input waits (:data:`~app.engine.play.desktop.WAIT_S`),
then holds the run with one sentence, like a capture that cannot be the
target's.  Releases need no check: a button release goes where its press went
(the press grabbed the pointer), and a key release is sent with the focus put
back on the target.

The events are XTEST input on the same X connection that grabs the server (a
press sent on another connection would wait for the grab to end; this is why
the desktop is not driven through pyautogui, which keeps a connection of its
own).  pyautogui's failsafe is kept: a user who pushes the pointer into a
corner of the screen stops the run.  After each action the pointer goes back
to where the user had it.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any, Callable

from Xlib import X
from Xlib import error as xerror
from Xlib.ext import xtest

from app.engine.errors import RunStopped, TargetError
from app.engine.play.actions import Action
from app.engine.play.desktop import POLL_S, WAIT_S, Hold, activate
from app.engine.play.executor import PARK_DELAY_S, ActionExecutor, ActionResult, XTestBackend
from app.engine.play.target import WindowInfo
from app.engine.play.xwidgets import same_client

RAISE_EVERY_S = 0.25
"""While a press waits, the target is asked to come to the front again this often."""
MAX_CHAIN = 32
COVERED_AT_POINT = ("Another window is over the target where the run must click; the run waits until the "
                    "target is on top there (move that window away).")
HIDDEN = "The target window is minimised, hidden or closed; show it again to let the run go on."

_XErrors = (xerror.XError, xerror.ConnectionClosedError)


class DesktopBackend:
    """An executor backend for a target on a shared desktop (see the module docstring)."""

    def __init__(self, display_name: str, window: Callable[[], WindowInfo | None],
                 refresh: Callable[[], WindowInfo | None], hold: Hold | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        info = window()
        self.xtest = XTestBackend(display_name, info.id if info is not None else 0)
        self.conn = self.xtest.conn
        self._window, self._refresh, self._hold, self._sleep = window, refresh, hold, sleep
        self._saved: tuple[int, int] | None = None
        self._aim: tuple[int, int] | None = None
        self._keys_down: list[str] = []
        self.held = 0
        """How many times an input held the run."""
        self.moved_pointer = False

    # -- one action ----------------------------------------------------------------------------------
    def begin(self) -> None:
        """Start of an action: the failsafe, and where the user's pointer is (to put it back)."""
        pointer = self.conn.screen().root.query_pointer()
        x, y = int(pointer.root_x), int(pointer.root_y)
        screen = self.conn.screen()
        right, bottom = int(screen.width_in_pixels) - 1, int(screen.height_in_pixels) - 1
        if (x, y) in ((0, 0), (0, bottom), (right, 0), (right, bottom)):
            raise RunStopped()  # pyautogui's failsafe: the user pushed the pointer into a corner
        self._saved = (x, y)
        self.moved_pointer = False

    def end(self, delay: Callable[[float], None]) -> None:
        """End of an action: the pointer goes back where the user had it (after the target saw the release)."""
        saved, self._saved = self._saved, None
        if saved is not None and self.moved_pointer:
            delay(PARK_DELAY_S)
            xtest.fake_input(self.conn, X.MotionNotify, x=saved[0], y=saved[1])
            self.conn.sync()

    # -- Backend ------------------------------------------------------------------------------------
    def move(self, x: int, y: int) -> None:
        info = self._window()
        if info is not None:
            self._aim = (x - info.x, y - info.y)
        self.moved_pointer = True
        self.xtest.move(x, y)
        self.conn.sync()

    def button(self, button: int, down: bool) -> None:
        if not down:
            self.xtest.button(button, False)
            return
        self._reach(lambda: self.xtest.button(button, True), pointer=True)

    def key(self, name: str, down: bool) -> None:
        if down:
            self._reach(lambda: self.xtest.key(name, True), pointer=False)
            self._keys_down.append(name)
            return
        if name in self._keys_down:
            self._keys_down.remove(name)
        self._with_focus(lambda: self.xtest.key(name, False))

    def type_char(self, ch: str) -> None:
        self._reach(lambda: self.xtest.type_char(ch), pointer=False)

    def focus(self) -> None:
        info = self._window()
        if info is not None:
            try:
                activate(self.conn, info.id)
            except _XErrors:
                pass

    def park(self, x: int, y: int) -> None:
        """Not used on the desktop: the pointer goes back to the user's position instead (``end``)."""

    def sync(self) -> None:
        self.conn.sync()

    def close(self) -> None:
        for name in list(self._keys_down):
            self.key(name, False)
        self.xtest.close()

    # -- the check ------------------------------------------------------------------------------------
    def _reach(self, send: Callable[[], None], *, pointer: bool) -> None:
        """Send one press once the check passes; wait, then hold the run, while it fails."""
        since = last_raise = time.monotonic()
        self.focus()
        while True:
            reason = self._try(send, pointer)
            if reason is None:
                return
            now = time.monotonic()
            if now - since >= WAIT_S:
                self._block(reason, pointer)
                since = last_raise = time.monotonic()
                self.focus()
                continue
            self._refresh()
            if now - last_raise >= RAISE_EVERY_S:
                self.focus()
                last_raise = now
            self._sleep(POLL_S)

    def _try(self, send: Callable[[], None], pointer: bool) -> str | None:
        info = self._window()
        if info is None:
            return "The target has no window right now; the run waits for it."
        self.conn.grab_server()
        try:
            if pointer:
                reason = self._pointer_reaches(info)
            else:
                reason = self._focus_reaches(info)
            if reason is None:
                send()
            return reason
        except _XErrors:
            return HIDDEN
        finally:
            self.conn.ungrab_server()
            self.conn.sync()

    def _aimed_point(self, info: WindowInfo) -> tuple[int, int] | None:
        """Where the pointer must be now: the aimed window-relative point, wherever the window went."""
        if self._aim is None:
            return None
        root = self.conn.screen().root
        pos = root.translate_coords(self.conn.create_resource_object("window", info.id), 0, 0)
        return int(pos.x) + self._aim[0], int(pos.y) + self._aim[1]

    def _pointer_reaches(self, info: WindowInfo) -> str | None:
        """Under the grab: put the pointer on the aimed point, then ask the server which window holds it."""
        root = self.conn.screen().root
        want = self._aimed_point(info)
        if want is not None:
            now = root.query_pointer()
            if (int(now.root_x), int(now.root_y)) != want:
                xtest.fake_input(self.conn, X.MotionNotify, x=want[0], y=want[1])  # the window moved
        chain = [int(root.id)]
        current = root
        for _ in range(MAX_CHAIN):
            child = current.query_pointer().child
            if not child or int(child.id) == 0:
                break
            chain.append(int(child.id))
            current = child
        return None if self._owns(chain, info) else COVERED_AT_POINT

    def _visible_at_aim(self, info: WindowInfo) -> bool:
        """Without moving anything: is the target the deepest window at the aimed point?"""
        want = self._aimed_point(info)
        if want is None:
            return False
        root = self.conn.screen().root
        chain = [int(root.id)]
        current = root
        for _ in range(MAX_CHAIN):
            child = current.translate_coords(root, want[0], want[1]).child
            if not child or int(child.id) == 0:
                break
            chain.append(int(child.id))
            current = child
        return self._owns(chain, info)

    def _owns(self, chain: list[int], info: WindowInfo) -> bool:
        """A window chain from the root down ends in the target (its main window or one of its own)."""
        deepest = chain[-1]
        return info.id in chain or (deepest != chain[0] and same_client(self.conn, deepest, info.id))

    def _focused(self, info: WindowInfo) -> bool:
        fid = _window_id(self.conn.get_input_focus().focus)
        return fid > 1 and (fid == info.id or same_client(self.conn, fid, info.id))

    def _focus_reaches(self, info: WindowInfo) -> str | None:
        if self._focused(info):
            return None
        win = self.conn.create_resource_object("window", info.id)
        if win.get_attributes().map_state != X.IsViewable:
            return HIDDEN
        # The window manager did not hand the focus over (yet): give it directly, as on a private display.
        win.set_input_focus(X.RevertToParent, X.CurrentTime)
        if self._focused(info):
            return None
        return "Another program holds the keyboard and the target cannot get the focus; the run waits for it."

    def _with_focus(self, send: Callable[[], None]) -> None:
        """A release: with the focus back on the target if it moved, so the release goes where the press went."""
        info = self._window()
        self.conn.grab_server()
        try:
            if info is not None and not self._focused(info):
                self.conn.create_resource_object("window", info.id).set_input_focus(
                        X.RevertToParent, X.CurrentTime, onerror=xerror.CatchError())
            send()
        except _XErrors:
            pass
        finally:
            self.conn.ungrab_server()
            self.conn.sync()

    def _block(self, reason: str, pointer: bool) -> None:
        """Hold the run, the user's pointer back in place; keys already down go up first (to the
        target) and down again after."""
        down = list(self._keys_down)
        for name in reversed(down):
            self.key(name, False)
        if self._hold is None:
            raise TargetError(reason)
        if self._saved is not None and self.moved_pointer:
            xtest.fake_input(self.conn, X.MotionNotify, x=self._saved[0], y=self._saved[1])
            self.conn.sync()
        self.held += 1
        self._hold(reason, lambda: self._ready(pointer))
        for name in down:
            self._reach(partial(self.xtest.key, name, True), pointer=False)
            self._keys_down.append(name)

    def _ready(self, pointer: bool) -> bool:
        """Asked while the run is held, changing nothing (the user may be working meanwhile):
        is the aimed point on the target (a button), or is the target viewable (a key)?"""
        info = self._window()
        if info is None:
            return False
        try:
            if pointer:
                return self._visible_at_aim(info)
            win = self.conn.create_resource_object("window", info.id)
            return bool(win.get_attributes().map_state == X.IsViewable)
        except _XErrors:
            return False


class DesktopExecutor(ActionExecutor):
    """The executor for a desktop run: each action starts with the failsafe and ends with the
    user's pointer back in place."""

    def __init__(self, backend: DesktopBackend, geometry: Callable[[], tuple[int, int, int, int]],
                 sleep: Callable[[float], None] = time.sleep, hold_s: float | None = None) -> None:
        super().__init__(backend, geometry, sleep=sleep, park_pointer=None, hold_s=hold_s)
        self.desktop = backend

    def execute(self, action: Action) -> ActionResult:
        self.desktop.begin()
        try:
            return super().execute(action)
        finally:
            self.desktop.end(self.sleep)


def _window_id(focus: Any) -> int:
    """GetInputFocus gives a window object, or 0 (None) / 1 (PointerRoot) as plain numbers."""
    return int(focus.id) if hasattr(focus, "id") else int(focus or 0)
