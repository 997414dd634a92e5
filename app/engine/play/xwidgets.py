"""Widgets and top-level windows read from the X window tree.

Toolkits with native child windows (Tk, Motif, Xt, GTK 2) give every widget its
own X window, so the tree holds exact widget rectangles that no image detector
can match: a button that shares the window's grey, an entry inside a white
form.  Toolkits that draw everything into one window (SDL/pygame, Qt, GTK 3)
leave the tree empty below the top-level, and the caller falls back to images.

The same tree shows the program's other top-level windows: a dialog or a
leaderboard opened over the main window, a posted menu.  :class:`TargetWindows`
lists them for a tester and can ask a dialog to close the way a window manager
does (``WM_DELETE_WINDOW``), which every toolkit honours.

Coordinates handed out are relative to the main window's top-left corner, the
frame of reference of captures and actions.  X errors (windows vanish at any
moment) never escape: a failed read yields fewer widgets, never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Protocol

import psutil
from Xlib import X, Xatom
from Xlib import display as xdisplay
from Xlib import error as xerror
from Xlib.ext import res as xres
from Xlib.protocol import event as xevent
from Xlib.xobject.drawable import Window

from app.engine.play.display import WindowBox

MIN_WIDGET_PX = 4
"""Narrower or lower windows are borders and separators, not widgets."""
WRAPPER_SHARE = 0.97
"""A window this close to the whole client in both dimensions is a wrapper (Tk's '.' inside its frame)."""
SMALL_CONTAINER_SHARE = 0.08
"""A window with children is kept only if it is this small (share of the client's area) ..."""
OWN_SURFACE_SHARE = 0.5
"""... and its children cover less than this share of it, so a click can land on the container itself."""
MAX_WINDOWS = 800
"""Give up walking a tree larger than this (a program with thousands of windows gets images)."""
MAX_DEPTH = 24

_XErrors = (xerror.XError, xerror.ConnectionClosedError)


@dataclass(frozen=True)
class Widget:
    """A region a person could click: (x0, y0) inclusive, (x1, y1) exclusive, main-window-relative.

    ``cls`` is the window's WM_CLASS class when the toolkit sets one (Tk sets it on top-levels only),
    ``window`` its X id (0 for a region found in an image), ``top`` the X id of the top-level
    window holding it, ``source`` "x" (window tree) or "image".
    """

    x0: int
    y0: int
    x1: int
    y1: int
    cls: str = ""
    window: int = 0
    top: int = 0
    source: str = "x"

    @property
    def width(self) -> int:
        return self.x1 - self.x0

    @property
    def height(self) -> int:
        return self.y1 - self.y0

    @property
    def area(self) -> int:
        return max(0, self.width) * max(0, self.height)

    @property
    def center(self) -> tuple[int, int]:
        return (self.x0 + self.x1) // 2, (self.y0 + self.y1) // 2

    def contains(self, x: int, y: int) -> bool:
        return self.x0 <= x < self.x1 and self.y0 <= y < self.y1


@dataclass(frozen=True)
class TopLevel:
    """One viewable top-level window of the target, in screen coordinates.

    ``kind``: "main" (the window being played), "dialog" (any other managed top-level of the
    program: a dialog, a form, a second window) or "popup" (override-redirect: a posted menu, a
    tooltip, a combobox list).  ``can_close``: it lists WM_DELETE_WINDOW in WM_PROTOCOLS.
    """

    id: int
    x: int
    y: int
    width: int
    height: int
    kind: str
    title: str = ""
    cls: str = ""
    transient_for: int = 0
    dialog_type: bool = False
    """_NET_WM_WINDOW_TYPE says dialog (set by Qt, GTK, SDL message boxes; Tk sets none by default)."""
    can_close: bool = False


# -- the widget tree ----------------------------------------------------------------
@dataclass
class _Node:
    win: Window
    x0: int
    y0: int
    x1: int
    y1: int
    children: list[_Node]


def widget_rects(conn: xdisplay.Display, top: int, origin: tuple[int, int] = (0, 0)) -> list[Widget]:
    """Leaf-ish widget rectangles inside top-level window ``top``, relative to screen point ``origin``.

    Skipped: the top-level itself, unmapped or input-only windows, windows smaller than
    :data:`MIN_WIDGET_PX`, wrappers covering about the whole client, and containers that only
    hold children; kept: leaves and small containers that show some surface of their own.
    Rectangles are clipped to their ancestors (what is visible of them).
    """
    try:
        win = conn.create_resource_object("window", top)
        geo = win.get_geometry()
        pos = conn.screen().root.translate_coords(win, 0, 0)
    except _XErrors:
        return []
    left, top_y = int(pos.x), int(pos.y)
    width, height = int(geo.width), int(geo.height)
    budget = [MAX_WINDOWS]
    tree = _walk(win, left, top_y, (left, top_y, left + width, top_y + height), 0, budget)
    if budget[0] <= 0:
        return []
    client_area = max(1, width * height)
    out: list[Widget] = []
    _collect(conn, tree, width, height, client_area, top, origin, out)
    out.sort(key=lambda w: (w.y0, w.x0, w.window))
    return out


def _walk(win: Window, ax: int, ay: int, clip: tuple[int, int, int, int], depth: int,
          budget: list[int]) -> list[_Node]:
    """Viewable input-output children of ``win`` (whose top-left is at screen ax, ay), recursively."""
    if depth >= MAX_DEPTH or budget[0] <= 0:
        return []
    try:
        children = win.query_tree().children
    except _XErrors:
        return []
    nodes: list[_Node] = []
    for child in children:
        budget[0] -= 1
        if budget[0] <= 0:
            return nodes
        try:
            attrs = child.get_attributes()
            if attrs.map_state != X.IsViewable or attrs.win_class != X.InputOutput:
                continue
            geo = child.get_geometry()
        except _XErrors:
            continue
        cx = ax + int(geo.x) + int(geo.border_width)
        cy = ay + int(geo.y) + int(geo.border_width)
        x0, y0 = max(cx, clip[0]), max(cy, clip[1])
        x1, y1 = min(cx + int(geo.width), clip[2]), min(cy + int(geo.height), clip[3])
        if x1 - x0 <= 0 or y1 - y0 <= 0:
            continue
        nodes.append(_Node(child, x0, y0, x1, y1, _walk(child, cx, cy, (x0, y0, x1, y1), depth + 1, budget)))
    return nodes


def _collect(conn: xdisplay.Display, nodes: list[_Node], width: int, height: int, client_area: int,
             top: int, origin: tuple[int, int], out: list[Widget]) -> None:
    for node in nodes:
        w, h = node.x1 - node.x0, node.y1 - node.y0
        _collect(conn, node.children, width, height, client_area, top, origin, out)
        if w < MIN_WIDGET_PX or h < MIN_WIDGET_PX:
            continue
        if w >= WRAPPER_SHARE * width and h >= WRAPPER_SHARE * height:
            continue
        if node.children:
            covered = sum((c.x1 - c.x0) * (c.y1 - c.y0) for c in node.children)
            if w * h > SMALL_CONTAINER_SHARE * client_area or covered >= OWN_SURFACE_SHARE * w * h:
                continue
        out.append(Widget(node.x0 - origin[0], node.y0 - origin[1], node.x1 - origin[0], node.y1 - origin[1],
                          _wm_class(node.win), node.win.id, top))


def _wm_class(win: Window) -> str:
    try:
        cls = win.get_wm_class()
    except _XErrors:
        return ""
    return str(cls[1]) if cls else ""


# -- top-level windows -------------------------------------------------------------
def owner_pid(conn: xdisplay.Display, win: Window) -> int | None:
    """The process that owns ``win``: _NET_WM_PID, else the X-Resource client PID; None if unknown."""
    try:
        prop = win.get_full_property(conn.get_atom("_NET_WM_PID"), X.AnyPropertyType)
        if prop is not None and len(prop.value):
            return int(prop.value[0])
    except _XErrors:
        return None
    if not conn.has_extension("X-Resource"):
        return None
    try:
        reply = conn.res_query_client_ids([{"client": win.id, "mask": xres.LocalClientPIDMask}])
    except (*_XErrors, AttributeError):
        return None
    for ident in reply.ids:
        if ident.spec.mask & xres.LocalClientPIDMask and ident.value:
            return int(ident.value[0])
    return None


def root_child_of(conn: xdisplay.Display, window_id: int) -> int:
    """The ancestor of ``window_id`` that is a child of the root (itself when it is one)."""
    root = conn.screen().root.id
    current = window_id
    for _ in range(MAX_DEPTH):
        try:
            parent = conn.create_resource_object("window", current).query_tree().parent
        except _XErrors:
            return current
        if parent is None or int(parent.id) in (0, root):
            return current
        current = int(parent.id)
    return current


def same_client(conn: xdisplay.Display, a: int, b: int) -> bool:
    """Whether two windows were created on the same X connection (same resource-id base)."""
    mask = int(conn.display.info.resource_id_mask)
    return (a & ~mask) == (b & ~mask)


def toplevels(conn: xdisplay.Display, main: int, pids: set[int] | Callable[[], set[int]] | None = None,
              owners: dict[int, bool] | None = None, details: bool = True) -> list[TopLevel]:
    """The target's viewable top-level windows, bottom to top in stacking order.

    A window belongs to the target when it was created on the main window's X connection or,
    given ``pids``, when its owner process is one of them.  Under a reparenting window manager
    the client window inside each frame is the one reported.  ``owners`` caches ownership.
    ``pids`` may be a function: it is called (once) only when a window not yet in ``owners`` was
    created on another connection (listing a process tree reads all of /proc: slow on a busy machine).
    ``details`` False: id, size and kind only (no position, title, class or protocols: fewer X round trips,
    for a caller that only needs the stacking, as the executor choosing where keys go).
    """
    cache = owners if owners is not None else {}
    main_root_child = root_child_of(conn, main)
    known: list[set[int]] = []

    def owner_pids() -> set[int] | None:
        if pids is None or isinstance(pids, set):
            return pids
        if not known:
            known.append(pids())
        return known[0]

    def owned(win: Window) -> bool:
        if win.id not in cache:
            if same_client(conn, win.id, main):
                cache[win.id] = True
            else:
                mine = owner_pids()
                cache[win.id] = mine is not None and owner_pid(conn, win) in mine
        return cache[win.id]

    out: list[TopLevel] = []
    try:
        children = conn.screen().root.query_tree().children
    except _XErrors:
        return []
    for child in children:
        try:
            attrs = child.get_attributes()
            if attrs.map_state != X.IsViewable or attrs.win_class != X.InputOutput:
                continue
            client = child if owned(child) else _owned_descendant(child, owned)
            if client is None:
                continue
            is_main = child.id == main_root_child
            info = _toplevel(conn, client, attrs.override_redirect, is_main, details)
        except _XErrors:
            continue
        if info is not None:
            out.append(info)
    if out and not any(t.kind == "main" for t in out):
        # The window found at start is gone (SDL re-creates its window for full screen, for one):
        # the program's largest managed window is the main one now, not a dialog.
        managed = [t for t in out if t.kind != "popup"]
        if managed:
            largest = max(managed, key=lambda t: t.width * t.height)
            out = [replace(t, kind="main") if t is largest else t for t in out]
    return out


def _owned_descendant(frame: Window, owned: Callable[[Window], bool]) -> Window | None:
    """The target's client window inside a window manager's frame (two levels down at most)."""
    level = [frame]
    for _ in range(2):
        nxt: list[Window] = []
        for win in level:
            for child in win.query_tree().children:
                if child.get_attributes().map_state != X.IsViewable:
                    continue
                if owned(child):
                    return child
                nxt.append(child)
        level = nxt
    return None


def _toplevel(conn: xdisplay.Display, win: Window, override: bool, is_main: bool,
              details: bool = True) -> TopLevel | None:
    geo = win.get_geometry()
    if geo.width <= 1 or geo.height <= 1:
        return None
    if not details:
        return TopLevel(id=int(win.id), x=0, y=0, width=int(geo.width), height=int(geo.height),
                        kind="main" if is_main else ("popup" if override else "dialog"))
    pos = conn.screen().root.translate_coords(win, 0, 0)
    transient = win.get_full_property(Xatom.WM_TRANSIENT_FOR, Xatom.WINDOW)
    transient_for = int(transient.value[0]) if transient is not None and len(transient.value) else 0
    wtype = win.get_full_property(conn.get_atom("_NET_WM_WINDOW_TYPE"), Xatom.ATOM)
    dialog_atom = conn.get_atom("_NET_WM_WINDOW_TYPE_DIALOG")
    protocols = win.get_wm_protocols() or []
    kind = "main" if is_main else ("popup" if override else "dialog")
    return TopLevel(
        id=int(win.id), x=int(pos.x), y=int(pos.y), width=int(geo.width), height=int(geo.height), kind=kind,
        title=_title(conn, win), cls=_wm_class(win), transient_for=transient_for,
        dialog_type=wtype is not None and dialog_atom in list(wtype.value),
        can_close=conn.get_atom("WM_DELETE_WINDOW") in list(protocols),
    )


def _title(conn: xdisplay.Display, win: Window) -> str:
    try:
        net = win.get_full_property(conn.get_atom("_NET_WM_NAME"), conn.get_atom("UTF8_STRING"))
        if net is not None:
            value = net.value
            return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else str(value)
        name = win.get_wm_name()
    except _XErrors:
        return ""
    if isinstance(name, bytes):
        return name.decode("latin-1")
    return str(name) if name else ""


def close_window(conn: xdisplay.Display, window_id: int) -> bool:
    """Ask a top-level to close as a window manager does (a WM_DELETE_WINDOW client message).

    Returns False, sending nothing, when the window does not take part in that protocol: a
    program that never asked for it would be killed by a real window manager's close.
    """
    try:
        win = conn.create_resource_object("window", window_id)
        delete = conn.get_atom("WM_DELETE_WINDOW")
        if delete not in list(win.get_wm_protocols() or []):
            return False
        message = xevent.ClientMessage(window=win, client_type=conn.get_atom("WM_PROTOCOLS"),
                                       data=(32, [delete, X.CurrentTime, 0, 0, 0]))
        win.send_event(message, event_mask=0)
        conn.sync()
    except _XErrors:
        return False
    return True


# -- one target's view -------------------------------------------------------------
class _WindowLike(WindowBox, Protocol):
    @property
    def id(self) -> int: ...


class TargetLike(Protocol):
    """What :class:`TargetWindows` needs of a running target (a ``TargetProcess``)."""

    @property
    def pid(self) -> int: ...
    @property
    def window(self) -> _WindowLike | None: ...
    def xconn(self) -> xdisplay.Display: ...


class TargetWindows:
    """The target's widgets and top-level windows, read afresh from the X tree on every call."""

    def __init__(self, target: TargetLike) -> None:
        self.target = target
        self._owners: dict[int, bool] = {}
        self._owners_of: tuple[int, int] = (0, 0)
        """(pid, main window) the ownership cache holds for: a restarted program starts it afresh."""

    def _pids(self) -> set[int]:
        pids = {self.target.pid}
        try:
            pids.update(c.pid for c in psutil.Process(self.target.pid).children(recursive=True))
        except psutil.Error:
            pass
        return pids

    def toplevels(self) -> list[TopLevel]:
        """Bottom to top; exactly one of them is "main" while the main window is viewable."""
        main = self.target.window
        if main is None:
            return []
        if self._owners_of != (self.target.pid, main.id):
            self._owners, self._owners_of = {}, (self.target.pid, main.id)
        try:
            return toplevels(self.target.xconn(), main.id, self._pids, self._owners)
        except _XErrors:
            return []

    def others(self) -> list[TopLevel]:
        """The target's top-level windows other than the main one (dialogs and popups), bottom to top."""
        return [t for t in self.toplevels() if t.kind != "main"]

    def widgets(self) -> list[Widget]:
        """Widgets of every top-level of the target that a click inside the main window can reach.

        A widget counts when its centre lies inside the main window and is not covered by a
        top-level stacked above its own; dialogs' widgets come last (they are on top).
        """
        main = self.target.window
        if main is None:
            return []
        tops = self.toplevels()
        if not any(t.kind == "main" for t in tops):
            tops = [TopLevel(main.id, main.x, main.y, main.width, main.height, "main")] + tops
        try:
            conn = self.target.xconn()
        except _XErrors:
            return []
        out: list[Widget] = []
        for i, top in enumerate(tops):
            above = [(t.x - main.x, t.y - main.y, t.x - main.x + t.width, t.y - main.y + t.height)
                     for t in tops[i + 1:]]
            for w in widget_rects(conn, top.id, (main.x, main.y)):
                cx, cy = w.center
                if not (0 <= cx < main.width and 0 <= cy < main.height):
                    continue
                if any(x0 <= cx < x1 and y0 <= cy < y1 for x0, y0, x1, y1 in above):
                    continue
                out.append(Widget(w.x0, w.y0, w.x1, w.y1, w.cls, w.window, top.id))
        return out

    def close(self, window_id: int) -> bool:
        """Send WM_DELETE_WINDOW to one of the target's non-main top-levels; False if not done."""
        if not any(t.id == window_id and t.kind == "dialog" for t in self.toplevels()):
            return False
        try:
            return close_window(self.target.xconn(), window_id)
        except _XErrors:
            return False
