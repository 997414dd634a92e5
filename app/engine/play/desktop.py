"""The target on the user's own desktop: frames that are its own, or none at all.

On a shared desktop any window may cover the target: the workbench after a
pause, a terminal, a notification.  :class:`DesktopCapture` therefore reads the
target's *own* pixels through Composite (:mod:`~app.engine.play.composite`) and
paints the target's other windows stacked above its main one (a posted menu, a
dialog) over them, as the screen would show them with nobody else's windows.
Without Composite it reads the screen rectangle, but only while no window of
another program overlaps the target in the stacking order.

A frame that cannot be the target's is never returned: the capture waits
(:data:`WAIT_S`), then holds the run with one sentence (``hold``: the session
pauses it, :meth:`~app.engine.play.control.RunControl.hold`) until the reason
is gone or the user resumes.  A program that has exited keeps its last frame:
the oracles see the exit, not a window that is no longer there.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from Xlib import X
from Xlib import display as xdisplay
from Xlib import error as xerror
from Xlib.protocol import event as xevent
from Xlib.xobject.drawable import Window

from app.engine.errors import DisplayError, TargetError
from app.engine.play.composite import WindowImage, WindowPixels, WindowUnreadable
from app.engine.play.target import WindowInfo
from app.engine.play.xwidgets import root_child_of, same_client
from app.engine.play.xconn import open_x

WAIT_S = 2.0
"""How long a capture or an input waits for the target to be readable or reachable before the run is held."""
POLL_S = 0.05
FRAME_DEPTH = 2
"""How deep under a window manager's frame the client window is looked for."""

Hold = Callable[[str, Callable[[], bool]], None]
"""``hold(sentence, ready)``: pause the run saying why, until ``ready()`` or the user resumes; may raise RunStopped."""
Rect = tuple[int, int, int, int]

_XErrors = (xerror.XError, xerror.ConnectionClosedError)


class NotTheTarget(Exception):
    """What would be read or reached now is not (only) the target; ``str()`` is the sentence a user sees."""


@dataclass(frozen=True)
class Above:
    """A viewable window stacked above the target's main window that overlaps it (root coordinates).

    ``own``: it is one of the target's windows (``id`` is then the client window inside any frame).
    """

    id: int
    own: bool
    rect: Rect


def overlaps(a: Rect, b: Rect) -> bool:
    """Whether two (x, y, width, height) rectangles share at least one pixel."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


class Stacking:
    """Who is above the target's main window, read from the root's children (bottom to top)."""

    def __init__(self, conn: xdisplay.Display) -> None:
        self.conn = conn
        self._clients: dict[int, int] = {}
        """Root child → the target's client window inside it (0: none); frames never change clients."""
        self._tops: dict[int, int] = {}
        """Main window → its root child (its frame), checked against the root's children on every use."""

    def above(self, main: int, rect: Rect) -> list[Above]:
        """Viewable input-output windows above ``main``'s top-level that overlap ``rect``, bottom to top."""
        root = self.conn.screen().root
        try:
            children = root.query_tree().children
        except _XErrors:
            return []
        ids = [int(c.id) for c in children]
        top = self._tops.get(main, 0)
        if top not in ids:  # first look, or the window was reparented (a window manager started)
            top = self._tops[main] = root_child_of(self.conn, main)
            if top not in ids:
                return []
        self._clients = {k: v for k, v in self._clients.items() if k in ids}
        out: list[Above] = []
        for child in children[ids.index(top) + 1:]:
            try:
                attrs = child.get_attributes()
                if attrs.map_state != X.IsViewable or attrs.win_class != X.InputOutput:
                    continue
                geo = child.get_geometry()
                box = (int(geo.x), int(geo.y), int(geo.width) + 2 * int(geo.border_width),
                       int(geo.height) + 2 * int(geo.border_width))
                if not overlaps(box, rect):
                    continue
                client = self._client(child, main)
                if client:
                    win = self.conn.create_resource_object("window", client)
                    cgeo = win.get_geometry()
                    pos = root.translate_coords(win, 0, 0)
                    out.append(Above(client, True, (int(pos.x), int(pos.y), int(cgeo.width), int(cgeo.height))))
                else:
                    out.append(Above(int(child.id), False, box))
            except _XErrors:
                continue
        return out

    def _client(self, child: Window, main: int) -> int:
        cid = int(child.id)
        if cid not in self._clients:
            self._clients[cid] = cid if same_client(self.conn, cid, main) else self._own_inside(child, main)
        return self._clients[cid]

    def _own_inside(self, frame: Window, main: int) -> int:
        level = [frame]
        for _ in range(FRAME_DEPTH):
            nxt: list[Window] = []
            for win in level:
                for child in win.query_tree().children:
                    if same_client(self.conn, int(child.id), main):
                        return int(child.id)
                    nxt.append(child)
            level = nxt
        return 0


class DesktopCapture:
    """Frames of the target on a shared desktop (an observer's frame source).

    ``window`` gives the target's current main window; ``refresh`` re-reads it (and finds a
    window the program re-created); ``alive`` says whether the program still runs.
    """

    def __init__(self, display_name: str, window: Callable[[], WindowInfo | None],
                 refresh: Callable[[], WindowInfo | None], alive: Callable[[], bool], hold: Hold | None = None,
                 sleep: Callable[[float], None] = time.sleep, use_composite: bool = True) -> None:
        try:
            self.conn = open_x(display_name)
        except (xerror.DisplayError, xerror.DisplayConnectionError, OSError) as exc:
            raise DisplayError(f"cannot connect to X display {display_name} ({exc}); check that it is running.") from exc
        self.display_name = display_name
        self._window, self._refresh, self._alive = window, refresh, alive
        self._hold, self._sleep = hold, sleep
        self.pixels = WindowPixels(self.conn)
        self.use_composite = use_composite and self.pixels.available
        """False: the screen rectangle is read, and only while nobody else's window overlaps it."""
        self.stacking = Stacking(self.conn)
        self._mss: Any = None
        self._last: WindowImage | None = None
        self.held = 0
        """How many times a capture held the run (tests and the report read it)."""

    def close(self) -> None:
        self.pixels.close()
        grabber = self._mss
        if grabber is not None:
            grabber.close()
        try:
            self.conn.close()
        except _XErrors:
            pass

    # -- the observer's frame source ------------------------------------------------------------
    def grab(self) -> tuple[int, int, bytes]:
        """The target's pixels now; waits or holds the run rather than return anybody else's."""
        since: float | None = None
        while True:
            try:
                image = self.read()
            except NotTheTarget as exc:
                reason = str(exc)
            else:
                self._last = image
                return image.width, image.height, image.bgrx
            if not self._alive():
                return self._final_frame()
            before = self._window()
            after = self._refresh()
            if after is not None and (before is None or after.id != before.id):
                continue  # the program re-created its window: read the new one at once
            now = time.monotonic()
            since = now if since is None else since
            if now - since < WAIT_S:
                self._sleep(POLL_S)
                continue
            self._block(reason)
            since = None

    def read(self) -> WindowImage:
        """One attempt: the target's pixels, or :class:`NotTheTarget` saying why there are none."""
        info = self._window()
        if info is None:
            raise NotTheTarget("The target has no window right now; the run waits for it.")
        if self.use_composite:
            return self._composed(info)
        return self._rectangle(info)

    def readable(self) -> bool:
        try:
            self.read()
        except NotTheTarget:
            return False
        return True

    # -- helpers -------------------------------------------------------------------------------------
    def _block(self, reason: str) -> None:
        if self._hold is None:
            raise TargetError(reason)
        self.held += 1
        self._hold(reason, self.readable)

    def _final_frame(self) -> tuple[int, int, bytes]:
        """After the program exited: its last frame (or black of the window's size)."""
        if self._last is not None:
            return self._last.width, self._last.height, self._last.bgrx
        info = self._window()
        width, height = (info.width, info.height) if info is not None else (1, 1)
        return width, height, bytes(width * height * 4)

    def _composed(self, info: WindowInfo) -> WindowImage:
        try:
            base = self.pixels.grab(info.id)
        except WindowUnreadable as exc:
            raise NotTheTarget("The target window is minimised, hidden or closed; show it again to let the "
                               "run go on.") from exc
        try:
            pos = self.conn.screen().root.translate_coords(self.conn.create_resource_object("window", info.id), 0, 0)
        except _XErrors:
            return base
        rect = (int(pos.x), int(pos.y), base.width, base.height)
        own = [a for a in self.stacking.above(info.id, rect) if a.own]
        if not own:
            return base
        canvas = base.array().copy()
        for above in own:
            try:
                layer = self.pixels.grab(above.id)
            except WindowUnreadable:
                continue  # a menu closing right now
            _paste(canvas, rect, layer, above.rect)
        return WindowImage(base.width, base.height, canvas.tobytes())

    def _rectangle(self, info: WindowInfo) -> WindowImage:
        """The screen rectangle under the window, only while the target's windows are all that is there."""
        try:
            win = self.conn.create_resource_object("window", info.id)
            viewable = win.get_attributes().map_state == X.IsViewable
            geo = win.get_geometry()
            pos = self.conn.screen().root.translate_coords(win, 0, 0)  # where it is now, not at the last step
        except _XErrors:
            viewable = False
        if not viewable:
            raise NotTheTarget("The target window is minimised, hidden or closed; show it again to let the run go on.")
        rect = (int(pos.x), int(pos.y), int(geo.width), int(geo.height))
        screen = self.conn.screen()
        if rect[0] < 0 or rect[1] < 0 or rect[0] + rect[2] > screen.width_in_pixels \
                or rect[1] + rect[3] > screen.height_in_pixels:
            raise NotTheTarget("The target window is partly off the screen, and this X server cannot read hidden "
                               "parts of windows (it has no Composite extension); move it fully onto the screen.")
        foreign = [a for a in self.stacking.above(info.id, rect) if not a.own]
        if foreign:
            raise NotTheTarget("Another window covers the target, and this X server cannot read covered windows "
                               "(it has no Composite extension); move that window away to let the run go on.")
        if self._mss is None:
            import mss

            self._mss = mss.MSS(display=self.display_name)
        shot = self._mss.grab({"left": rect[0], "top": rect[1], "width": rect[2], "height": rect[3]})
        raw = np.frombuffer(bytes(shot.raw), dtype=np.uint8).reshape(shot.height, shot.width, 4).copy()
        raw[:, :, 3] = 0
        return WindowImage(int(shot.width), int(shot.height), raw.tobytes())


def _paste(canvas: np.ndarray, rect: Rect, layer: WindowImage, where: Rect) -> None:
    """Paint ``layer`` (at root rectangle ``where``) over ``canvas`` (the window at root rectangle ``rect``)."""
    x0, y0 = max(rect[0], where[0]), max(rect[1], where[1])
    x1 = min(rect[0] + rect[2], where[0] + min(where[2], layer.width))
    y1 = min(rect[1] + rect[3], where[1] + min(where[3], layer.height))
    if x1 <= x0 or y1 <= y0:
        return
    src = layer.array()
    canvas[y0 - rect[1]:y1 - rect[1], x0 - rect[0]:x1 - rect[0]] = src[y0 - where[1]:y1 - where[1],
                                                                         x0 - where[0]:x1 - where[0]]


def activate(conn: xdisplay.Display, window_id: int) -> None:
    """Ask the window manager to raise and focus a window (EWMH), and restack it ourselves for one without.

    Source indication 2 ("a pager") is what tools acting for the user send; window managers
    honour it where they would refuse an application's own request (focus-stealing prevention).
    """
    root = conn.screen().root
    win = conn.create_resource_object("window", window_id)
    message = xevent.ClientMessage(window=win, client_type=conn.intern_atom("_NET_ACTIVE_WINDOW"),
                                   data=(32, [2, X.CurrentTime, 0, 0, 0]))
    root.send_event(message, event_mask=X.SubstructureRedirectMask | X.SubstructureNotifyMask,
                    onerror=xerror.CatchError())
    win.configure(stack_mode=X.Above, onerror=xerror.CatchError())
    conn.flush()


def _connect(display_name: str) -> xdisplay.Display | None:
    try:
        return open_x(display_name)
    except (xerror.DisplayError, xerror.DisplayConnectionError, OSError):
        return None


def outer_rect(display_name: str, window_id: int) -> Rect | None:
    """The window with its decorations: its window manager frame's (x, y, width, height), or None."""
    conn = _connect(display_name)
    if conn is None:
        return None
    try:
        geo = conn.create_resource_object("window", root_child_of(conn, window_id)).get_geometry()
        border = 2 * int(geo.border_width)
        return int(geo.x), int(geo.y), int(geo.width) + border, int(geo.height) + border
    except _XErrors:
        return None
    finally:
        conn.close()


def move_window(display_name: str, window_id: int, x: int, y: int) -> bool:
    """Ask for a top-level window at root (x, y); False if the request could not be made.

    The request goes to the window manager like a program's own move (ICCCM: a configure
    request on the client window); with the usual north-west gravity the manager puts the
    frame's top-left corner there.
    """
    conn = _connect(display_name)
    if conn is None:
        return False
    try:
        win = conn.create_resource_object("window", window_id)
        catcher = xerror.CatchError()
        win.configure(x=x, y=y, onerror=catcher)
        conn.sync()
        return catcher.get_error() is None
    except _XErrors:
        return False
    finally:
        conn.close()
