"""Inside a Tk program: its widget tree and its event loop's idleness, answered on the Tk thread.

Tk may only be asked from the thread that runs it.  The request thread of
``_playcoder_inside`` queues a question and writes a byte to a private pipe on
which the Tk thread has a file handler (``createfilehandler``): whether the
program runs ``mainloop`` or its own ``update()`` loop, Tcl calls the handler
when its event loop comes back, and the answer is sent from there.  A program
whose Tk thread is busy never calls it: the engine's question times out.

Idle is answered from an ``after idle`` callback (Tcl runs those only when no
other event is ready, after its pending redraws).  ``Misc.after`` and
``after_cancel`` are wrapped to know the timers the program scheduled and
when they are due; a callback that schedules itself again with the same delay
(a caret blink, a clock) is marked repeating.

In lockstep play (differential: a candidate beside its reference runs) the
engine hands over its clock, and Tk's timers run on it: ``after(ms, f)`` is
due ``ms`` after the engine's time of the call and fires on the Tk thread
once the engine's time has passed it (a poll every :data:`POLL_MS`, and
before every idle answer), in due order.  A turtle game on ``ontimer`` then
moves by the engine's steps, not by the machine's pace, so the candidate
and its references show the same moment of a moving game, as pygame games
on the frame gate do.  Such timers are reported as repeating (the input may
be answered at the next step) and never hold a step: the engine's time does
not pass while a step settles.
"""

from __future__ import annotations

import collections
import heapq
import itertools
import os
import sys
import tkinter.font  # noqa: F401  (the menu bar's label widths)

import time
from types import ModuleType
from typing import Any, Callable, Optional

TEXT_MAX = 200
MAX_WIDGETS = 2000
"""Widgets sent at most (with their texts, well below the engine's longest message of 1 MiB)."""
"""Characters of a widget's text sent to the engine."""
STALE_TIMER_S = 60.0
"""A timer overdue by this much never fires (its interpreter was destroyed): forgotten."""
KINDS = {
    "Button": "button", "TButton": "button", "Menubutton": "button", "TMenubutton": "button",
    "Entry": "entry", "TEntry": "entry", "Spinbox": "entry", "TSpinbox": "entry", "TCombobox": "entry",
    "Text": "text", "Listbox": "list", "Treeview": "list",
    "Checkbutton": "check", "TCheckbutton": "check", "Radiobutton": "radio", "TRadiobutton": "radio",
    "Scale": "scale", "TScale": "scale", "Menu": "menu", "Canvas": "canvas",
    "Label": "label", "TLabel": "label", "Message": "label",
}
MENUBAR_PAD = 13
"""Pixels a menu bar entry takes beyond its label (Tk 8.6 on X11, default font), when no neighbour tells."""
CANVAS_ITEMS = 500
"""Canvas items looked at for bindings of their own."""
CLICK_BINDINGS = ("<Button", "<ButtonRelease", "<Double", "<1>", "<Key", "<Return")
POLL_MS = 5
"""On the engine's clock: how often the Tk thread looks whether the engine's time has passed a timer."""
HANDLER_HOLD_S = 5.0
"""In lockstep play, a handler of the program that calls ``update()`` (a demo animated inside a button's command)
holds the idle answer until it returns, for this long at most: the next input then reaches it at the same point
of its work in the candidate and the references, not wherever the machine's pace had taken each.  A handler
running longer (a game loop inside a command) is answered as idle within its ``update()`` as before."""
HOLD_ASK_MS = 20
"""While a handler holds the idle answer: how often the question is asked again."""
MAX_FIRED = 10000
"""Timers fired at one look at most (a callback that schedules itself at 1 ms cannot hold the Tk thread)."""


def _report(widget: Any) -> None:
    """An exception in a timer's callback, reported as Tk reports one (the program's own report, if it set one)."""
    try:
        widget._root().report_callback_exception(*sys.exc_info())
    except Exception:
        import traceback

        traceback.print_exc()


def _mono() -> float:
    return time.clock_gettime(time.CLOCK_MONOTONIC)  # time.monotonic may read the engine's clock


class TkAdapter:
    """Answers ``widgets`` and ``idle`` for the program's Tk roots."""

    def __init__(self, channel: Any, tkinter: ModuleType, engine_time: Optional[Callable[[], float]] = None,
                 reply: Optional[Callable[[int, Optional[float], bool], dict[str, Any]]] = None) -> None:
        self.channel = channel
        self.reply = reply or plain_reply
        """Makes the answer to an idle question (``_playcoder_inside`` hands its own, with the state digest:
        the adapter does not import it back, so the two modules do not import each other)."""
        self.tkinter = tkinter
        self.engine_time = engine_time
        """The engine's time in lockstep play: then timers are due by it (:meth:`_after_on_clock`)."""
        self.on_clock: list[tuple[float, int, str]] = []
        """A heap of (due in engine seconds, order, id) of the timers on the engine's clock."""
        self.on_clock_calls: dict[str, tuple[Any, Callable[..., Any], tuple[Any, ...]]] = {}
        """id -> (widget, callback, args) of those not yet fired nor cancelled."""
        self.order = itertools.count()
        self.polling = False
        self.due_now: Optional[float] = None
        """While a timer on the engine's clock runs: its due time."""
        self.deferred: list[int] = []
        """Idle questions that came while a timer's callback ran (answered after it)."""
        self.roots: list[Any] = []
        self.pending: "collections.deque[tuple[str, int]]" = collections.deque()
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        self.timers: dict[str, tuple[float, float, bool]] = {}
        """after id -> (due, delay ms, repeating)."""
        self.firing: list[tuple[Any, float]] = []
        self.calls = 0
        """Tk callbacks running now, nested (a command whose ``update()`` runs another callback, or this
        adapter's own idle answer)."""
        self.handler_since = 0.0
        """When the outermost of them began (monotonic)."""
        self.updating = 0
        """Calls of ``update()`` or ``update_idletasks()`` running now (the program draws from within its own
        code: a loop, or an animation inside a handler)."""
        self.real_after: Optional[Callable[..., Any]] = None
        self._wrap()

    # -- hooks ---------------------------------------------------------------------
    def _wrap(self) -> None:
        adapter, tk = self, self.tkinter
        real_init, real_after, real_cancel = tk.Tk.__init__, tk.Misc.after, tk.Misc.after_cancel
        real_destroy = tk.Tk.destroy
        real_call = tk.CallWrapper.__call__
        self.real_after = real_after

        def init(root: Any, *args: Any, **kwargs: Any) -> None:
            real_init(root, *args, **kwargs)
            try:
                adapter.roots.append(root)
                root.tk.createfilehandler(adapter.wake_r, tk.READABLE, adapter._on_wake)
            except Exception:
                pass
            if adapter.engine_time is not None and not adapter.polling:
                adapter.polling = True
                adapter._poll(root, real_after)

        def destroy(root: Any) -> None:
            try:
                adapter.roots.remove(root)
            except ValueError:
                pass
            real_destroy(root)

        def after(widget: Any, ms: Any, func: Any = None, *args: Any) -> Any:
            if func is None or not isinstance(ms, (int, float)):
                return real_after(widget, ms, func, *args)
            if adapter.engine_time is not None and ms > 0:
                return adapter._after_on_clock(widget, float(ms), func, args)
            return adapter._after(real_after, widget, float(ms), func, args)

        def after_cancel(widget: Any, ident: Any) -> None:
            if adapter.on_clock_calls.pop(str(ident), None) is not None:
                return
            adapter.timers.pop(str(ident), None)
            real_cancel(widget, ident)

        def call(wrapper: Any, *args: Any) -> Any:
            if not adapter.calls:
                adapter.handler_since = _mono()
            adapter.calls += 1
            try:
                return real_call(wrapper, *args)
            finally:
                adapter.calls -= 1

        def updating(real: Callable[..., Any]) -> Callable[..., Any]:
            def update(widget: Any) -> Any:
                adapter.updating += 1
                try:
                    return real(widget)
                finally:
                    adapter.updating -= 1
            return update

        tk.CallWrapper.__call__ = call
        tk.Misc.update = updating(tk.Misc.update)
        tk.Misc.update_idletasks = updating(tk.Misc.update_idletasks)
        tk.Tk.__init__ = init
        tk.Tk.destroy = destroy
        tk.Misc.after = after
        tk.Misc.after_cancel = after_cancel

    def _after(self, real_after: Callable[..., Any], widget: Any, delay: float, func: Any, args: tuple[Any, ...]) -> Any:
        holder: list[str] = []
        adapter = self

        def fired(*a: Any) -> Any:
            if holder:
                adapter.timers.pop(holder[0], None)
            adapter.firing.append((func, delay))
            try:
                return func(*a)
            finally:
                adapter.firing.pop()

        try:
            fired.__name__ = getattr(func, "__name__", "fired")
        except Exception:
            pass
        ident = real_after(widget, int(delay), fired, *args)
        try:
            repeating = any(f == func and d == delay for f, d in self.firing)
            holder.append(str(ident))
            self.timers[str(ident)] = (_mono() + delay / 1000.0, delay, repeating)
        except Exception:
            pass
        return ident

    # -- timers on the engine's clock (lockstep play) -----------------------------------
    def _after_on_clock(self, widget: Any, delay: float, func: Any, args: tuple[Any, ...]) -> str:
        assert self.engine_time is not None
        n = next(self.order)
        ident = f"after#playcoder{n}"
        # Within a timer's callback the time is the timer's due time (events in order, as a simulation runs
        # them): a 40 ms animation fires five times when the engine moves on 0.2 s, as it would have live.
        now = self.due_now if self.due_now is not None else self.engine_time()
        heapq.heappush(self.on_clock, (now + delay / 1000.0, n, ident))
        self.on_clock_calls[ident] = (widget, func, args)
        return ident

    def _poll(self, root: Any, real_after: Callable[..., Any]) -> None:
        """Fire what the engine's time has passed, then look again in :data:`POLL_MS` (a real Tk timer)."""
        self._fire_due()
        try:
            real_after(root, POLL_MS, self._poll, root, real_after)
        except Exception:
            self.polling = False  # the root is gone: the next root starts polling again

    def _fire_due(self) -> int:
        """Call, in due order, the timers the engine's time has passed (and those they schedule that are due
        too); how many ran."""
        if self.engine_time is None or self.due_now is not None:
            return 0  # (within a callback that calls update(): its own loop goes on once it has returned)
        now = self.engine_time() + 1e-9
        fired = 0
        while self.on_clock and self.on_clock[0][0] <= now and fired < MAX_FIRED:
            due, _, ident = heapq.heappop(self.on_clock)
            call = self.on_clock_calls.pop(ident, None)
            if call is None:
                continue  # cancelled
            widget, func, args = call
            fired += 1
            self.firing.append((func, 0.0))
            outer, self.due_now = self.due_now, due
            try:
                func(*args)
            except Exception:
                _report(widget)
            finally:
                self.firing.pop()
                self.due_now = outer
        if self.deferred:  # idle was asked within a callback's update(): answered now that the callbacks ran
            root = self._root()
            waiting, self.deferred = self.deferred, []
            for question in waiting:
                if root is not None:
                    root.after_idle(self._idle_reply, question)
        return fired

    def _next_on_clock_ms(self) -> Optional[float]:
        """Engine milliseconds until the next timer on the engine's clock is due (None: none waits)."""
        if self.engine_time is None:
            return None
        while self.on_clock and self.on_clock[0][2] not in self.on_clock_calls:
            heapq.heappop(self.on_clock)
        return max(0.0, (self.on_clock[0][0] - self.engine_time()) * 1000.0) if self.on_clock else None

    # -- requests (from the request thread) ------------------------------------------
    def ask(self, kind: str, ident: int) -> bool:
        """Queue a question for the Tk thread; False when there is no Tk window to ask."""
        if not self.roots:  # (no Tk call here: from this thread it would wait for a busy Tk thread)
            return False
        self.pending.append((kind, ident))
        try:
            os.write(self.wake_w, b"?")
        except OSError:
            pass  # the pipe is full: the Tk thread has a wake-up waiting already
        return True

    def _root(self) -> Any:
        for root in list(self.roots):
            try:
                if root.tk is not None and root.winfo_exists():
                    return root
            except Exception:
                pass
            self.roots.remove(root)
        return None

    # -- answers (on the Tk thread) ---------------------------------------------------
    def _on_wake(self, fd: int, mask: int) -> None:
        try:
            while os.read(self.wake_r, 4096):
                pass
        except OSError:
            pass
        while self.pending:
            kind, ident = self.pending.popleft()
            try:
                root = self._root()
                if root is None:
                    self.channel.send({"type": "reply", "id": ident, kind: None})
                elif kind == "widgets":
                    self.channel.send({"type": "reply", "id": ident, "widgets": self._widgets(root)[:MAX_WIDGETS]})
                else:
                    root.after_idle(self._idle_reply, ident)
            except Exception:
                self.channel.send({"type": "reply", "id": ident, kind: None})

    def _idle_reply(self, ident: int) -> None:
        if self.due_now is not None:
            # Asked from within a timer's callback (turtle's update() runs idle callbacks): the callback has
            # not returned (nor scheduled its next tick), so the program is not idle yet.
            self.deferred.append(ident)
            return
        if self._held(ident):
            return
        if self._fire_due():  # the engine's time passed a timer: it runs, and Tk paints it, before idle
            root = self._root()
            if root is not None:
                root.after_idle(self._idle_reply, ident)
                return
        now = _mono()
        for key, (due, _, _) in list(self.timers.items()):
            if due < now - STALE_TIMER_S:
                self.timers.pop(key, None)
        once = [due for due, _, rep in self.timers.values() if not rep]
        again = [due for due, _, rep in self.timers.values() if rep]
        soonest = min(once) if once else min(again) if again else None
        next_ms = None if soonest is None else max(0.0, (soonest - now) * 1000.0)
        repeating = not once and bool(again)
        clock_ms = self._next_on_clock_ms()
        if clock_ms is not None and not once:
            # A timer on the engine's clock fires at a later step, never within this one: like a repeating
            # timer it holds no step, and the input may be answered when it fires.
            next_ms, repeating = clock_ms if next_ms is None else min(next_ms, clock_ms), True
        self.channel.send(self.reply(ident, next_ms, repeating))

    def _held(self, ident: int) -> bool:
        """In lockstep play, asked from within a handler's ``update()`` (this answer is one callback, a handler
        beneath it another) less than :data:`HANDLER_HOLD_S` after the handler began: asked again in
        :data:`HOLD_ASK_MS`, so the answer comes once the handler returned (or the hold ran out).  A handler
        waiting in a modal dialog (``wait_window``, a message box) calls no ``update()``: it is answered."""
        if self.engine_time is None or self.calls < 2 or not self.updating \
                or _mono() - self.handler_since >= HANDLER_HOLD_S:
            return False
        root = self._root()
        if root is None or self.real_after is None:
            return False
        try:
            self.real_after(root, HOLD_ASK_MS, self._idle_reply, ident)
        except Exception:
            return False
        return True

    def _widgets(self, root: Any) -> list[dict[str, Any]]:
        main = _main_window(root)
        ox, oy = self._origin(main)
        out: list[dict[str, Any]] = []
        seen_menus: set[str] = set()
        menubar = str(main.cget("menu") or "")
        if menubar:
            self._menubar(main, menubar, ox, oy, out, seen_menus)
        stack = list(reversed(root.winfo_children()))
        while stack:
            widget = stack.pop()
            try:
                if widget.winfo_class() == "Menu":
                    if str(widget) not in seen_menus:
                        self._menu(widget, (), (ox, oy), out, seen_menus)
                    continue
                out.append(self._describe(widget, ox, oy))
            except Exception:
                pass
            try:
                stack.extend(reversed(widget.winfo_children()))
            except Exception:
                pass
        return out

    @staticmethod
    def _origin(main: Any) -> tuple[int, int]:
        """Where the captured window starts: above the main window's client area sits its menu bar (a clone)."""
        x, y = int(main.winfo_rootx()), int(main.winfo_rooty())
        for child in main.tk.splitlist(main.tk.call("winfo", "children", str(main))):
            name = str(child)
            try:
                if name.rsplit(".", 1)[-1].startswith("#") and int(main.tk.call("winfo", "ismapped", name)):
                    y = min(y, int(main.tk.call("winfo", "rooty", name)))
            except Exception:
                pass
        return x, y

    def _describe(self, widget: Any, ox: int, oy: int) -> dict[str, Any]:
        cls = str(widget.winfo_class())
        visible = bool(widget.winfo_viewable())
        box = None
        if visible:
            x, y = int(widget.winfo_rootx()) - ox, int(widget.winfo_rooty()) - oy
            box = [x, y, x + int(widget.winfo_width()), y + int(widget.winfo_height())]
        return {"kind": KINDS.get(cls, "other"), "cls": cls, "text": _text(widget, cls)[:TEXT_MAX],
                "enabled": _enabled(widget), "visible": visible, "box": box, "has_command": _has_command(widget)}

    def _menubar(self, root: Any, name: str, ox: int, oy: int, out: list[dict[str, Any]], seen: set[str]) -> None:
        """The menu bar of the main window ``root`` (the root, or the Toplevel shown in its place)."""
        menu = root.nametowidget(name)
        seen.add(str(menu))
        clone = _clone("" if str(root) == "." else str(root), str(menu))
        last = menu.index("end")
        if last is None:
            return
        try:
            cx, cy = int(root.tk.call("winfo", "rootx", clone)) - ox, int(root.tk.call("winfo", "rooty", clone)) - oy
            cw, ch = int(root.tk.call("winfo", "width", clone)), int(root.tk.call("winfo", "height", clone))
            xs = [int(root.tk.call(clone, "xposition", i)) for i in range(int(last) + 1)]
            xs.append(min(cw, xs[-1] + self._label_width(menu, int(last), xs)))
        except Exception:
            xs = []
        for i in range(int(last) + 1):
            kind = str(menu.type(i))
            if kind in ("separator", "tearoff"):
                continue
            label = str(menu.entrycget(i, "label"))
            box = [cx + xs[i], cy, cx + xs[i + 1], cy + ch] if xs else None
            entry = _entry(menu, i, (label,), box)
            out.append(entry)
            if kind == "cascade":
                entry["kind"] = "menu"
                sub = str(menu.entrycget(i, "menu"))
                if sub:
                    self._menu(menu.nametowidget(sub), (label,), (ox, oy), out, seen, _clone(clone, sub))

    def _label_width(self, menu: Any, last: int, xs: list[int]) -> int:
        """The menu bar's last entry's width (the bar has no next entry to say where it ends): its label's
        width plus the padding the entry before it had."""
        font = self.tkinter.font.Font(font=menu.cget("font"))
        pad = MENUBAR_PAD
        if last > 0 and str(menu.type(last - 1)) not in ("separator", "tearoff"):
            pad = xs[last] - xs[last - 1] - int(font.measure(str(menu.entrycget(last - 1, "label"))))
        return int(font.measure(str(menu.entrycget(last, "label")))) + pad

    def _menu(self, menu: Any, path: tuple[str, ...], origin: tuple[int, int], out: list[dict[str, Any]],
              seen: set[str], clone: str = "") -> None:
        """A menu's entries (a drop-down or a popup); boxes only while it is posted (on the screen).

        A menu bar's cascades post a clone of their menu (``clone``): it is what is on the screen."""
        if str(menu) in seen:
            return
        seen.add(str(menu))
        last = menu.index("end")
        if last is None:
            return
        shown = menu
        try:
            if clone and int(menu.tk.call("winfo", "ismapped", clone)):
                shown = _Path(menu, clone)
        except Exception:
            pass
        posted = bool(shown.winfo_ismapped())
        for i in range(int(last) + 1):
            kind = str(menu.type(i))
            if kind in ("separator", "tearoff"):
                continue
            label = str(menu.entrycget(i, "label"))
            box = None
            if posted:
                y0 = int(shown.yposition(i))
                y1 = int(shown.yposition(i + 1)) if i < int(last) else int(shown.winfo_height())
                x, y = int(shown.winfo_rootx()) - origin[0], int(shown.winfo_rooty()) - origin[1]
                box = [x, y + y0, x + int(shown.winfo_width()), y + y1]
            out.append(_entry(menu, i, path + (label,), box))
            if kind == "cascade":
                sub = str(menu.entrycget(i, "menu"))
                if sub:
                    self._menu(menu.nametowidget(sub), path + (label,), origin, out, seen,
                               _clone(clone, sub) if clone else "")


def _main_window(root: Any) -> Any:
    """The window the engine plays: the root, or (a withdrawn root) the largest Toplevel on the screen."""
    if root.winfo_viewable():
        return root
    tops = [w for w in root.winfo_children() if w.winfo_class() == "Toplevel" and w.winfo_viewable()]
    return max(tops, key=lambda w: w.winfo_width() * w.winfo_height()) if tops else root


def _clone(parent_clone: str, menu: str) -> str:
    """The Tk path of the clone a menu bar's cascade posts (Tk names it after the parent's clone)."""
    return f"{parent_clone}.#{menu.lstrip('.').replace('.', '#')}"


class _Path:
    """A Tk window known only by its path (a menu clone tkinter has no object for)."""

    def __init__(self, widget: Any, path: str) -> None:
        self.tk, self.path = widget.tk, path

    def winfo_ismapped(self) -> bool:
        return bool(int(self.tk.call("winfo", "ismapped", self.path)))

    def winfo_rootx(self) -> int:
        return int(self.tk.call("winfo", "rootx", self.path))

    def winfo_rooty(self) -> int:
        return int(self.tk.call("winfo", "rooty", self.path))

    def winfo_width(self) -> int:
        return int(self.tk.call("winfo", "width", self.path))

    def winfo_height(self) -> int:
        return int(self.tk.call("winfo", "height", self.path))

    def yposition(self, index: int) -> int:
        return int(self.tk.call(self.path, "yposition", index))


def _entry(menu: Any, i: int, path: tuple[str, ...], box: Optional[list[int]]) -> dict[str, Any]:
    def get(option: str) -> str:
        try:
            return str(menu.entrycget(i, option))
        except Exception:
            return ""

    return {"kind": "menuitem", "cls": f"Menu.{menu.type(i)}", "text": path[-1] if path else "",
            "enabled": get("state") != "disabled", "visible": box is not None, "box": box,
            "has_command": bool(get("command")) or str(menu.type(i)) == "cascade", "menu_path": list(path),
            "shortcut": get("accelerator")}


def _text(widget: Any, cls: str) -> str:
    try:
        if cls in ("Entry", "TEntry", "Spinbox", "TSpinbox", "TCombobox"):
            return str(widget.get())
        if cls == "Text":
            return str(widget.get("1.0", "end-1c"))
        if cls == "Listbox":
            return "\n".join(str(item) for item in widget.get(0, "end"))
        return str(widget.cget("text"))
    except Exception:
        return ""


def _enabled(widget: Any) -> bool:
    try:
        if hasattr(widget, "instate"):
            return not widget.instate(("disabled",))
        return str(widget.cget("state")) != "disabled"
    except Exception:
        return True


def _has_command(widget: Any) -> bool:
    try:
        if str(widget.cget("command")):
            return True
    except Exception:
        pass
    try:
        if any(seq.startswith(CLICK_BINDINGS) for seq in widget.bind()):
            return True
        if str(widget.winfo_class()) == "Canvas":  # items bound one by one (canvas.tag_bind)
            return any(any(seq.startswith(CLICK_BINDINGS) for seq in widget.tag_bind(item))
                       for item in widget.find_all()[:CANVAS_ITEMS])
        return False
    except Exception:
        return False


def plain_reply(ident: int, next_timer_ms: Optional[float], repeating: bool) -> dict[str, Any]:
    """An idle answer without the program's state digest (an adapter made outside ``_playcoder_inside``)."""
    return {"type": "reply", "id": ident, "idle": True, "next_timer_ms": next_timer_ms, "repeating": repeating}
