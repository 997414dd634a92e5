"""ActionExecutor: perform actions on the target window like a person would.

Private displays are driven with XTEST through python-xlib on an explicit
connection (nobody's real mouse moves, runs can go in parallel).  The desktop
is driven with pyautogui, imported only then (it binds to $DISPLAY on import),
with its failsafe left on.  Coordinates are window-relative; an action outside
the window is refused — recorded, never performed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from Xlib import X, XK
from Xlib import error as xerror
from Xlib.ext import xtest

from app.engine.play.actions import (
    Action, ActionHistory, Click, DoubleClick, Drag, Finish, Hotkey, Press, RightClick, Scroll, Tap, Type, Wait,
)
from app.engine.errors import RunStopped
from app.engine.play.xwidgets import toplevels
from app.engine.play.xconn import open_x

KEY_HOLD_S = 0.1
"""Keys are held this long (as a person does, ~100 ms) so games that poll key state once a frame see them."""
BUTTON_HOLD_S = 0.1
"""Mouse buttons are held this long: a common pygame pattern reads ``mouse.get_pressed()`` after
MOUSEBUTTONDOWN, which is already False when press and release arrive in the same frame."""
DOUBLE_CLICK_GAP_S = 0.05
DOUBLE_CLICK_HOLD_S = 0.04
"""Shorter holds inside a double click, so both clicks fall within the toolkit's double-click time."""
DRAG_STEPS = 12
APPROACH_S = 0.02
"""Between the approach move (one pixel beside the point) and the move onto it."""
MOVE_SETTLE_S = 0.04
"""Between moving the pointer and pressing a button: more than a frame at 30 fps."""
PARK_DELAY_S = 0.1
"""After the last button release, the pointer stays this long (a person's pace, several frames)."""
EVENT_HOLD_S = 0.005
"""A press and its release at least this far apart for a toolkit that reads every X event in order (Tk,
Qt): it sees both, with different server timestamps, and no pause of a person's pace is needed."""
TYPE_GAP_S = 0.004
TAP_HOLD_S = 0.05
TAP_GAP_S = 0.1
"""A tap: held 50 ms, the next 100 ms later (a player tapping about six times a second; a
game that reads key events once a frame sees each one)."""
KEY_ALIASES = {
    "enter": "Return", "return": "Return", "esc": "Escape", "escape": "Escape", "space": "space",
    "tab": "Tab", "backspace": "BackSpace", "delete": "Delete", "del": "Delete", "insert": "Insert",
    "up": "Up", "down": "Down", "left": "Left", "right": "Right", "home": "Home", "end": "End",
    "pageup": "Prior", "pagedown": "Next", "ctrl": "Control_L", "control": "Control_L",
    "shift": "Shift_L", "alt": "Alt_L", "super": "Super_L", "win": "Super_L", "cmd": "Super_L", "meta": "Meta_L",
    "plus": "plus", "minus": "minus", "asterisk": "asterisk", "slash": "slash", "equal": "equal",
    "period": "period", "comma": "comma", "capslock": "Caps_Lock",
    **{f"kp_{n}": f"KP_{n}" for n in range(10)},
    **{f"kp_{word}": f"KP_{word.capitalize()}" for word in ("add", "subtract", "multiply", "divide", "decimal",
                                                             "equal", "enter")},
}
"""Key names people and models write, as X keysym names (keypad keys as ``kp_add``, ``kp_5``: take-over sends them)."""
SCROLL_BUTTONS = {"up": 4, "down": 5, "left": 6, "right": 7}


@dataclass(frozen=True)
class Pace:
    """The engine's own pauses around a mouse or key input.

    A person's pace (the default) is what a program that polls the pointer and the keys once a frame
    (pygame, SDL) needs, and what the engine must assume of a program it cannot see inside.  A toolkit
    whose event loop reads every X event in order (Tk, Qt: known from inside) needs none of them but a
    press and release a few ms apart: :data:`EVENT_LOOP_PACE`."""

    approach_s: float
    move_settle_s: float
    park_delay_s: float
    hold_s: float | None
    """None: the executor's own hold (the target's ``timing.hold_ms``)."""


PERSON_PACE = Pace(APPROACH_S, MOVE_SETTLE_S, PARK_DELAY_S, None)
EVENT_LOOP_PACE = Pace(0.0, 0.0, 0.0, EVENT_HOLD_S)


class ActionRefused(Exception):
    """The action was not performed (e.g. outside the window); the message says why."""


@dataclass(frozen=True)
class ActionResult:
    outcome: str  # "ok" | "refused" | "finish"
    message: str
    act_ms: float


class Backend(Protocol):
    def move(self, x: int, y: int) -> None: ...
    def button(self, button: int, down: bool) -> None: ...
    def key(self, name: str, down: bool) -> None: ...
    def type_char(self, ch: str) -> None: ...
    def focus(self) -> None: ...
    def park(self, x: int, y: int) -> None: ...
    def sync(self) -> None: ...
    def close(self) -> None: ...


def keysym_for(name: str) -> int:
    """Keysym of a key name ('enter', 'a', 'F5', '+'); raises ActionRefused if unknown."""
    if len(name) == 1:
        code = ord(name)
        return code if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF else 0x01000000 + code
    symbol = KEY_ALIASES.get(name.lower(), name)
    if symbol.lower().startswith("f") and symbol[1:].isdigit():
        symbol = symbol.upper()
    keysym = XK.string_to_keysym(symbol)
    if keysym == X.NoSymbol:
        raise ActionRefused(f"unknown key {name!r}")
    return int(keysym)


class XTestBackend:
    """XTEST input on an explicit display connection; window focus via SetInputFocus."""

    def __init__(self, display_name: str, window_id: int) -> None:
        self.conn = open_x(display_name)
        self.window = self.conn.create_resource_object("window", window_id)
        self._spare: int | None = None
        self._parking: Any = None
        self._owners: dict[int, bool] = {}
        """Which top-level windows are the target's, learnt once each (keys go to its topmost one)."""
        self._owners_of = window_id
        self.sent = 0
        """Key and button presses and releases sent so far (a web page's frame gate waits until its page has
        received them all before it plays frames: play/web_gate.py)."""

    def park(self, x: int, y: int) -> None:
        """Move the pointer onto a 1x1 input-only window of ours at (x, y), above everything.

        The target then gets a LeaveNotify wherever the point is, so a hover highlight goes
        away even when the window fills the whole screen.
        """
        try:
            if self._parking is None:
                root = self.conn.screen().root
                self._parking = root.create_window(x, y, 1, 1, 0, 0, X.InputOnly, X.CopyFromParent,
                                                   override_redirect=True)
                self._parking.map()
            self._parking.configure(x=x, y=y, stack_mode=X.Above)
        except xerror.XError:
            self._parking = None
        self.move(x, y)
        self.conn.sync()

    def move(self, x: int, y: int) -> None:
        xtest.fake_input(self.conn, X.MotionNotify, x=x, y=y)

    def button(self, button: int, down: bool) -> None:
        xtest.fake_input(self.conn, X.ButtonPress if down else X.ButtonRelease, button)
        self.sent += 1

    def _keycode(self, keysym: int) -> tuple[int, bool]:
        """Keycode and whether Shift is needed; remaps a spare keycode for unmapped symbols."""
        for code, index in self.conn.keysym_to_keycodes(keysym):
            if index in (0, 1):
                return code, index == 1
        spare = self._spare_keycode()
        self.conn.change_keyboard_mapping(spare, [(keysym, keysym)])
        self.conn.sync()
        return spare, False

    def _spare_keycode(self) -> int:
        if self._spare is None:
            first = self.conn.display.info.min_keycode
            count = self.conn.display.info.max_keycode - first + 1
            mapping = self.conn.get_keyboard_mapping(first, count)
            empty = [first + i for i, syms in enumerate(mapping) if not any(syms)]
            self._spare = empty[-1] if empty else self.conn.display.info.max_keycode
        return self._spare

    def key(self, name: str, down: bool) -> None:
        """Press or release one key.  A symbol on a key's shifted level ('asterisk', 'plus',
        'question') is pressed with Shift held, as a person types it; else 'asterisk' would
        arrive as '8' on a US keymap."""
        code, shift = self._keycode(keysym_for(name))
        shift_code = self.conn.keysym_to_keycode(XK.string_to_keysym("Shift_L"))
        if shift and down:
            xtest.fake_input(self.conn, X.KeyPress, shift_code)
        xtest.fake_input(self.conn, X.KeyPress if down else X.KeyRelease, code)
        if shift and not down:
            xtest.fake_input(self.conn, X.KeyRelease, shift_code)
        self.sent += 2 if shift else 1

    def type_char(self, ch: str) -> None:
        self.key(ch, True)
        self.key(ch, False)
        self.conn.sync()

    def _key_window(self) -> Any:
        """Where keys go: the target's topmost window, its dialog when one is stacked above the main
        window (as a window manager focuses a new dialog; on a private Xvfb nobody else does)."""
        if self._owners_of != self.window.id:
            self._owners, self._owners_of = {}, self.window.id
        tops = [t for t in toplevels(self.conn, self.window.id, owners=self._owners, details=False) if t.kind != "popup"]
        if tops and tops[-1].id != self.window.id:
            return self.conn.create_resource_object("window", tops[-1].id)
        return self.window

    def focus(self) -> None:
        try:
            window = self._key_window()
            if self._parking is not None:
                # Raise the window just below the parked pointer's window, never above it: with a
                # screen the window's size the parking point lies over the window, and crossing
                # events there make Tk hand the focus back to PointerRoot (keys then go nowhere).
                window.configure(sibling=self._parking, stack_mode=X.Below, onerror=xerror.CatchError())
            else:
                window.configure(stack_mode=X.Above)
            window.set_input_focus(X.RevertToParent, X.CurrentTime)
            self.conn.sync()
        except (xerror.XError, xerror.BadMatch):
            pass  # not viewable right now; the key still goes to the focused window

    def sync(self) -> None:
        self.conn.sync()

    def close(self) -> None:
        self.conn.close()


class PyAutoGuiBackend:
    """The user's desktop, as in the paper.  The failsafe (mouse to a corner) stays on."""

    def __init__(self, display_name: str, window_id: int) -> None:
        import pyautogui  # bound to $DISPLAY at import: only ever imported for desktop runs

        self.gui: Any = pyautogui
        self.gui.FAILSAFE = True
        self.gui.PAUSE = 0.0
        self._focus = XTestBackend(display_name, window_id)

    def _guard(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except self.gui.FailSafeException as exc:
            raise RunStopped() from exc

    def move(self, x: int, y: int) -> None:
        self._guard(lambda: self.gui.moveTo(x, y))

    def button(self, button: int, down: bool) -> None:
        if button in (4, 5, 6, 7):
            if down:
                amount = 1 if button in (4, 6) else -1
                scroll = self.gui.scroll if button in (4, 5) else self.gui.hscroll
                self._guard(lambda: scroll(amount))
            return
        which = {1: "left", 2: "middle", 3: "right"}[button]
        self._guard(lambda: (self.gui.mouseDown if down else self.gui.mouseUp)(button=which))

    def key(self, name: str, down: bool) -> None:
        key = name if len(name) == 1 else name.lower()
        self._guard(lambda: (self.gui.keyDown if down else self.gui.keyUp)(key))

    def type_char(self, ch: str) -> None:
        self._guard(lambda: self.gui.write(ch))

    def focus(self) -> None:
        self._focus.focus()

    def park(self, x: int, y: int) -> None:
        self.move(x, y)

    def sync(self) -> None:
        pass

    def close(self) -> None:
        self._focus.close()


class ActionExecutor:
    """Validates and performs actions; keeps the history of what was done."""

    def __init__(self, backend: Backend, geometry: Callable[[], tuple[int, int, int, int]],
                 sleep: Callable[[float], None] = time.sleep, park_pointer: tuple[int, int] | None = None,
                 hold_s: float | None = None) -> None:
        """``geometry`` returns the window's (left, top, width, height) in screen coordinates.
        ``park_pointer``: screen point the pointer returns to after mouse actions, so hover
        effects do not count as the program's response (isolated displays only)."""
        self.backend = backend
        self.geometry = geometry
        self.sleep = sleep
        self.park_pointer = park_pointer
        self._key_hold_s = KEY_HOLD_S if hold_s is None else hold_s
        self._button_hold_s = BUTTON_HOLD_S if hold_s is None else hold_s
        self.pace = PERSON_PACE
        """The pauses around inputs; :data:`EVENT_LOOP_PACE` for a program known to read every event."""
        self.history = ActionHistory()

    @property
    def key_hold_s(self) -> float:
        return self._key_hold_s if self.pace.hold_s is None else self.pace.hold_s

    @property
    def button_hold_s(self) -> float:
        return self._button_hold_s if self.pace.hold_s is None else self.pace.hold_s

    def close(self) -> None:
        self.backend.close()

    def _abs(self, x: int, y: int) -> tuple[int, int]:
        left, top, width, height = self.geometry()
        if not (0 <= x < width and 0 <= y < height):
            raise ActionRefused(f"({x}, {y}) is outside the {width}×{height} window")
        return left + x, top + y

    def execute(self, action: Action) -> ActionResult:
        start = time.monotonic()
        try:
            message = self._perform(action)
            outcome = "finish" if isinstance(action, Finish) else "ok"
        except ActionRefused as exc:
            outcome, message = "refused", str(exc)
        self.history.add(action, outcome)
        return ActionResult(outcome, message, (time.monotonic() - start) * 1000.0)

    def _click(self, x: int, y: int, button: int, count: int = 1) -> None:
        ax, ay = self._abs(x, y)
        # Two moves, the last from one pixel beside the point: a toolkit that was busy while the
        # pointer left (SDL blocked in a delay) keeps the position where the pointer left and
        # takes the single crossing into its window for no motion at all; the second move
        # is a plain motion event it cannot miss.
        self.backend.move(ax + 1, ay)
        self.backend.sync()
        self._pause(self.pace.approach_s)
        self.backend.move(ax, ay)
        self.backend.sync()
        # A toolkit that reads the pointer position once a frame (SDL) must see the move before
        # the press, or it reports the press where the pointer was.
        self._pause(self.pace.move_settle_s)
        for i in range(count):
            if i:
                self.sleep(DOUBLE_CLICK_GAP_S)
            self.backend.button(button, True)
            self.backend.sync()
            self.sleep(self.button_hold_s if count == 1 else min(self.button_hold_s, DOUBLE_CLICK_HOLD_S))
            self.backend.button(button, False)
            self.backend.sync()
        self._park()

    def park(self) -> None:
        """Move the pointer off the target (before the first look: no hover on a centred button)."""
        if self.park_pointer is not None:
            self.backend.park(*self.park_pointer)
        self.backend.sync()

    def _park(self) -> None:
        if self.park_pointer is not None:
            self.backend.sync()
            # Let the target handle the release before the pointer leaves: a toolkit that
            # captures the pointer while a button is down (SDL does) would otherwise take the
            # move as a drag inside its window and never see the pointer leave.
            self._pause(self.pace.park_delay_s)
            self.backend.park(*self.park_pointer)
        self.backend.sync()

    def _pause(self, seconds: float) -> None:
        if seconds > 0:
            self.sleep(seconds)

    def _perform(self, action: Action) -> str:
        b = self.backend
        if isinstance(action, Click):
            self._click(action.x, action.y, 1)
        elif isinstance(action, DoubleClick):
            self._click(action.x, action.y, 1, count=2)
        elif isinstance(action, RightClick):
            self._click(action.x, action.y, 3)
        elif isinstance(action, Drag):
            x1, y1 = self._abs(action.x, action.y)
            x2, y2 = self._abs(action.x2, action.y2)
            b.move(x1, y1)
            b.sync()
            self._pause(self.pace.move_settle_s)
            b.button(1, True)
            b.sync()
            for i in range(1, DRAG_STEPS + 1):
                b.move(x1 + (x2 - x1) * i // DRAG_STEPS, y1 + (y2 - y1) * i // DRAG_STEPS)
                b.sync()
                self.sleep(0.01)
            b.button(1, False)
            self._park()
        elif isinstance(action, Scroll):
            ax, ay = self._abs(action.x, action.y)
            b.move(ax, ay)
            b.sync()
            self._pause(self.pace.move_settle_s)
            for _ in range(action.amount):
                b.button(SCROLL_BUTTONS[action.direction], True)
                b.button(SCROLL_BUTTONS[action.direction], False)
            self._park()
        elif isinstance(action, (Press, Hotkey)):
            keys = (action.key,) if isinstance(action, Press) else action.keys
            for k in keys:
                keysym_for(k)  # refuse unknown names before anything is pressed
            b.focus()
            for k in keys:
                b.key(k, True)
            b.sync()
            self.sleep(self.key_hold_s)
            for k in reversed(keys):
                b.key(k, False)
            b.sync()
        elif isinstance(action, Tap):
            keysym_for(action.key)
            b.focus()
            for i in range(action.times):
                if i:
                    self.sleep(TAP_GAP_S)
                b.key(action.key, True)
                b.sync()
                self.sleep(TAP_HOLD_S)
                b.key(action.key, False)
                b.sync()
        elif isinstance(action, Type):
            for ch in action.text:
                # Focused again before every character: a key may close the dialog it went to (a space on
                # its OK button), and the X focus then falls to the root until the toolkit gives it back,
                # later in one run than another; the next characters go to the window now on top.
                b.focus()
                if ch == "\n":
                    b.key("enter", True)
                    b.key("enter", False)
                else:
                    b.type_char(ch)
                self.sleep(TYPE_GAP_S)
            b.sync()
        elif isinstance(action, Wait):
            self.sleep(action.seconds)
        elif isinstance(action, Finish):
            return f"finish: {action.verdict}"
        return "done"


def make_executor(display_name: str, isolated: bool, window_id: int,
                  geometry: Callable[[], tuple[int, int, int, int]], screen: tuple[int, int],
                  sleep: Callable[[float], None] = time.sleep, hold_s: float | None = None) -> ActionExecutor:
    backend: Backend = XTestBackend(display_name, window_id) if isolated else PyAutoGuiBackend(display_name, window_id)
    # The right edge's middle, on a 1x1 input-only window of ours (XTestBackend.park), so the target
    # sees the pointer leave even when it fills the screen; not a corner, where pyautogui's failsafe
    # would fire for a later desktop run on the same display.
    park = (screen[0] - 1, screen[1] // 2) if isolated else None
    return ActionExecutor(backend, geometry, sleep=sleep, park_pointer=park, hold_s=hold_s)
