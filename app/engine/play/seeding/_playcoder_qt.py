"""Inside a Qt program (PySide6, PyQt6, PyQt5): its widgets and its event loop's idleness, on the GUI thread.

Widgets may only be read on the GUI thread.  The request thread emits a
signal of a small QObject that lives on the GUI thread (a queued
connection): the slot runs when the event loop comes back, walks
``QApplication.allWidgets()`` and the menu bars' actions, and sends the
answer.  A GUI thread that is busy never runs it: the engine's question
times out.

Idle is answered at the event dispatcher's next ``aboutToBlock`` (nothing
left to do) after the slot ran.  ``QTimer.start`` and ``QTimer.singleShot``
are wrapped to know the timers the program started; a QTimer that is not
single-shot is reported as repeating, and so is a ``singleShot`` callable
that schedules itself again with the same delay as it runs (a clock).
"""

from __future__ import annotations

import importlib
import threading
import time
import weakref
from types import ModuleType
from typing import Any, Callable, Optional


TEXT_MAX = 200
MAX_WIDGETS = 2000
"""Widgets sent at most (with their texts, well below the engine's longest message of 1 MiB)."""
STALE_SHOT_S = 60.0
"""A single shot overdue by this much never fires (its context object was deleted): forgotten."""
OWN_SIGNALS_FROM = "QWidget"
"""Signals a class declares below QWidget (clicked, returnPressed, valueChanged ...) count as its commands."""


def _mono() -> float:
    return time.clock_gettime(time.CLOCK_MONOTONIC)  # time.monotonic may read the engine's clock


class QtAdapter:
    """Answers ``widgets`` and ``idle`` for the program's QApplication."""

    def __init__(self, channel: Any, binding: str, widgets: ModuleType,
                 reply: Optional[Callable[[int, Optional[float], bool], dict[str, Any]]] = None) -> None:
        self.channel = channel
        self.reply = reply or plain_reply
        """Makes the answer to an idle question (``_playcoder_inside`` hands its own, with the state digest:
        the adapter does not import it back, so the two modules do not import each other)."""
        self.w = widgets
        self.core = importlib.import_module(f"{binding}.QtCore")
        self.bridge: Any = None
        self.lock = threading.Lock()
        self.waiting: list[int] = []
        """Idle questions waiting for the loop's next aboutToBlock."""
        self.dispatcher: Any = None
        self.timers: Any = weakref.WeakSet()
        self.shots: list[list[Any]] = []
        """QTimer.singleShot calls: [due, delay ms, repeating, the callable] (removed when they fire)."""
        self.firing: list[tuple[Any, float]] = []
        self._wrap_timers()

    def _wrap_timers(self) -> None:
        adapter, timer_cls = self, self.core.QTimer
        real_start, real_shot = timer_cls.start, timer_cls.singleShot

        def start(timer: Any, *args: Any) -> Any:
            try:
                adapter.timers.add(timer)
            except Exception:
                pass
            return real_start(timer, *args)

        def single_shot(*args: Any, **kwargs: Any) -> Any:
            try:
                if args and isinstance(args[0], int) and callable(args[-1]) and not kwargs:
                    return adapter._shot(real_shot, args)
                if args and isinstance(args[0], int):
                    adapter.shots.append([_mono() + args[0] / 1000.0, float(args[0]), False, None])
            except Exception:
                pass
            return real_shot(*args, **kwargs)

        timer_cls.start = start
        timer_cls.singleShot = staticmethod(single_shot)

    def _shot(self, real_shot: Any, args: tuple[Any, ...]) -> Any:
        """``singleShot(ms, [context,] callable)``: known until it fires; a callable that schedules itself again
        with the same delay as it runs (a clock) is repeating."""
        delay, func = float(args[0]), args[-1]
        shot: list[Any] = [_mono() + delay / 1000.0, delay, False, func]
        try:
            shot[2] = any(f == func and d == delay for f, d in self.firing)
        except Exception:
            pass
        adapter = self

        def fired() -> Any:
            try:
                adapter.shots.remove(shot)
            except ValueError:
                pass
            adapter.firing.append((func, delay))
            try:
                return func()
            finally:
                adapter.firing.pop()

        self.shots.append(shot)
        return real_shot(*args[:-1], fired)

    # -- requests (from the request thread) ---------------------------------------------
    def ask(self, kind: str, ident: int) -> bool:
        app = self.w.QApplication.instance()
        if app is None:
            return False
        with self.lock:
            if self.bridge is None:
                self.bridge = self._make_bridge(app)
        self.bridge.asked.emit((kind, ident))
        return True

    def _make_bridge(self, app: Any) -> Any:
        core, adapter = self.core, self
        signal = getattr(core, "Signal", None) or getattr(core, "pyqtSignal")
        slot = getattr(core, "Slot", None) or getattr(core, "pyqtSlot")

        class Bridge(core.QObject):  # type: ignore[misc, name-defined]
            asked = signal(object)

            @slot(object)
            def answer(self, request: Any) -> None:
                adapter._answer(request)

        bridge = Bridge()
        bridge.moveToThread(app.thread())
        bridge.asked.connect(bridge.answer, _enum(core.Qt, "ConnectionType", "QueuedConnection"))
        return bridge

    # -- answers (on the GUI thread) ---------------------------------------------------
    def _answer(self, request: Any) -> None:
        kind, ident = request
        try:
            app = self.w.QApplication.instance()
            if kind == "widgets":
                self.channel.send({"type": "reply", "id": ident, "widgets": self._widgets(app)[:MAX_WIDGETS]})
                return
            if self.dispatcher is None:
                self.dispatcher = self.core.QAbstractEventDispatcher.instance(app.thread())
                self.dispatcher.aboutToBlock.connect(self._on_block)
            self.waiting.append(ident)
        except Exception:
            self.channel.send({"type": "reply", "id": ident, kind: None})

    def _on_block(self) -> None:
        if not self.waiting:
            return
        try:
            waiting, self.waiting = self.waiting, []
            now = _mono()
            # A shot whose firing is seen (a callable) stays until it fires; another, until it is due.
            self.shots = [shot for shot in self.shots if shot[0] > (now - STALE_SHOT_S if shot[3] is not None else now)]
            once = [max(0.0, (shot[0] - now) * 1000.0) for shot in self.shots if not shot[2]]
            again = [max(0.0, (shot[0] - now) * 1000.0) for shot in self.shots if shot[2]]
            for timer in list(self.timers):
                try:
                    left = float(timer.remainingTime())
                    if timer.isActive() and left >= 0:
                        (once if timer.isSingleShot() else again).append(left)
                except Exception:
                    pass
            soonest = min(once) if once else min(again) if again else None
            for ident in waiting:
                self.channel.send(self.reply(ident, soonest, not once and bool(again)))
        except Exception:
            pass

    def _widgets(self, app: Any) -> list[dict[str, Any]]:
        w, core = self.w, self.core
        tops = [t for t in app.topLevelWidgets() if t.isVisible() and not isinstance(t, w.QMenu)]
        main = app.activeWindow() or (max(tops, key=lambda t: t.width() * t.height()) if tops else None)
        if main is None:
            return []
        origin = main.mapToGlobal(core.QPoint(0, 0))
        out: list[dict[str, Any]] = []
        seen: set[int] = set()
        for widget in app.allWidgets():
            try:
                if isinstance(widget, w.QMenu):
                    continue
                out.append(self._describe(widget, origin))
                if isinstance(widget, w.QMenuBar):
                    for action in widget.actions():
                        self._action(action, (), widget, origin, out, seen)
                elif widget.isWindow():
                    for action in widget.actions():  # window shortcuts outside any menu
                        if not action.shortcut().isEmpty():
                            self._action(action, (), None, origin, out, seen)
            except Exception:
                pass
        return out

    def _describe(self, widget: Any, origin: Any) -> dict[str, Any]:
        visible = bool(widget.isVisible())
        box = None
        if visible:
            p = widget.mapToGlobal(self.core.QPoint(0, 0))
            x, y = p.x() - origin.x(), p.y() - origin.y()
            box = [x, y, x + widget.width(), y + widget.height()]
        return {"kind": self._kind(widget), "cls": type(widget).__name__, "text": _text(self.w, widget)[:TEXT_MAX],
                "enabled": bool(widget.isEnabled()), "visible": visible, "box": box,
                "has_command": self._connected(widget)}

    def _action(self, action: Any, path: tuple[str, ...], shown_in: Any, origin: Any, out: list[dict[str, Any]],
                seen: set[int]) -> None:
        """A menu bar's or a menu's action, and the actions of its menu below it."""
        if action.isSeparator() or id(action) in seen:
            return
        seen.add(id(action))
        label = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
        menu = action.menu() if hasattr(action, "menu") else None
        box = None
        if shown_in is not None and shown_in.isVisible():
            rect = shown_in.actionGeometry(action)
            p = shown_in.mapToGlobal(rect.topLeft())
            x, y = p.x() - origin.x(), p.y() - origin.y()
            box = [x, y, x + rect.width(), y + rect.height()]
        try:
            connected = bool(action.isSignalConnected(self.core.QMetaMethod.fromSignal(action.triggered)))
        except Exception:
            connected = True
        out.append({"kind": "menu" if menu is not None else "menuitem", "cls": type(action).__name__,
                    "text": label, "enabled": bool(action.isEnabled()), "visible": box is not None, "box": box,
                    "has_command": connected or menu is not None, "menu_path": list(path + (label,)),
                    "shortcut": action.shortcut().toString()})
        if menu is not None:
            for sub in menu.actions():
                self._action(sub, path + (label,), menu, origin, out, seen)

    def _kind(self, widget: Any) -> str:
        w = self.w
        for name, kind in (("QCheckBox", "check"), ("QRadioButton", "radio"), ("QAbstractButton", "button"),
                           ("QLineEdit", "entry"), ("QAbstractSpinBox", "entry"), ("QTextEdit", "text"),
                           ("QPlainTextEdit", "text"), ("QAbstractItemView", "list"), ("QAbstractSlider", "scale"),
                           ("QMenuBar", "menu"), ("QLabel", "label"), ("QGraphicsView", "canvas")):
            if isinstance(widget, getattr(w, name)):
                return kind
        if isinstance(widget, w.QComboBox):
            return "entry" if widget.isEditable() else "list"
        cls = type(widget)
        if cls.__module__.split(".", 1)[0] not in ("PySide6", "PyQt5", "PyQt6") and \
                getattr(cls, "paintEvent", None) is not getattr(w.QWidget, "paintEvent", None):
            return "canvas"  # the program draws it itself (a board, a game view)
        return "other"

    def _connected(self, widget: Any) -> bool:
        """Is any signal its class declares below QWidget connected (clicked, returnPressed, valueChanged ...), or
        does the program's own subclass handle the mouse or keys itself (a board drawn in ``paintEvent``)?"""
        if _handles_input(widget, self.w.QWidget):
            return True
        meta = widget.metaObject()
        start = getattr(self.w, OWN_SIGNALS_FROM).staticMetaObject.methodCount()
        signal = _enum(self.core.QMetaMethod, "MethodType", "Signal")
        for i in range(start, meta.methodCount()):
            method = meta.method(i)
            try:
                if method.methodType() == signal and widget.isSignalConnected(method):
                    return True
            except Exception:
                return False
        return False


INPUT_HANDLERS = ("mousePressEvent", "mouseReleaseEvent", "mouseDoubleClickEvent", "keyPressEvent", "wheelEvent")


def _handles_input(widget: Any, base: Any) -> bool:
    """A Python subclass that overrides an input event handler of QWidget."""
    cls = type(widget)
    if cls.__module__.split(".", 1)[0] in ("PySide6", "PyQt5", "PyQt6"):
        return False
    return any(getattr(cls, name, None) is not getattr(base, name, None) for name in INPUT_HANDLERS)


def _enum(owner: Any, scope: str, name: str) -> Any:
    """A Qt enum member, scoped (PySide6, PyQt6) or not (PyQt5)."""
    scoped = getattr(owner, scope, None)
    return getattr(scoped, name) if scoped is not None and hasattr(scoped, name) else getattr(owner, name)


def _text(w: ModuleType, widget: Any) -> str:
    try:
        if widget.isWindow():
            return str(widget.windowTitle())
        if isinstance(widget, (w.QTextEdit, w.QPlainTextEdit)):
            return str(widget.toPlainText())
        if isinstance(widget, w.QComboBox):
            return str(widget.currentText())
        if isinstance(widget, w.QGroupBox):
            return str(widget.title())
        if isinstance(widget, w.QLineEdit):
            return str(widget.text() or widget.placeholderText())
        text: Optional[Any] = getattr(widget, "text", None)
        return str(text()) if callable(text) else ""
    except Exception:
        return ""


def plain_reply(ident: int, next_timer_ms: Optional[float], repeating: bool) -> dict[str, Any]:
    """An idle answer without the program's state digest (an adapter made outside ``_playcoder_inside``)."""
    return {"type": "reply", "id": ident, "idle": True, "next_timer_ms": next_timer_ms, "repeating": repeating}
