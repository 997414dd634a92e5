"""Qt key events → the engine's key names (``press`` / ``hotkey`` actions) for take-over."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

Key = Qt.Key
SPECIAL_KEYS: dict[Any, str] = {
    Key.Key_Space: "space", Key.Key_Return: "enter", Key.Key_Enter: "enter", Key.Key_Escape: "escape",
    Key.Key_Backspace: "backspace", Key.Key_Tab: "tab", Key.Key_Backtab: "tab", Key.Key_Delete: "delete",
    Key.Key_Insert: "insert", Key.Key_Home: "home", Key.Key_End: "end", Key.Key_PageUp: "pageup",
    Key.Key_PageDown: "pagedown", Key.Key_Up: "up", Key.Key_Down: "down", Key.Key_Left: "left",
    Key.Key_Right: "right",
    **{getattr(Key, f"Key_F{n}"): f"f{n}" for n in range(1, 13)},
}
MODIFIER_KEYS = {Key.Key_Shift, Key.Key_Control, Key.Key_Alt, Key.Key_Meta, Key.Key_AltGr, Key.Key_CapsLock,
                 Key.Key_NumLock, Key.Key_Super_L, Key.Key_Super_R}
_PRINTABLE = set("abcdefghijklmnopqrstuvwxyz0123456789`-=[]\\;',./")


def key_action(key: int, text: str, modifiers: Qt.KeyboardModifier) -> dict[str, Any] | None:
    """The engine action for one key press, or None for a bare modifier or an unmappable key.

    Letters and digits become their character, named keys their engine name
    (space, enter, escape, backspace, tab, arrows, F-keys …).  With Ctrl or Alt
    held the press becomes a ``hotkey`` such as ``["ctrl", "s"]``.
    """
    try:
        qt_key = Key(key)
    except ValueError:
        return None
    if qt_key in MODIFIER_KEYS:
        return None
    name = SPECIAL_KEYS.get(qt_key)
    if name is None:
        if Key.Key_A <= qt_key <= Key.Key_Z:
            name = chr(ord("a") + int(qt_key) - int(Key.Key_A))
        elif Key.Key_0 <= qt_key <= Key.Key_9:
            name = chr(ord("0") + int(qt_key) - int(Key.Key_0))
        elif len(text) == 1 and text.lower() in _PRINTABLE:
            name = text.lower()
        else:
            return None
    held = []
    if modifiers & Qt.KeyboardModifier.ControlModifier:
        held.append("ctrl")
    if modifiers & Qt.KeyboardModifier.AltModifier:
        held.append("alt")
    if held:
        if modifiers & Qt.KeyboardModifier.ShiftModifier:
            held.append("shift")
        return {"action": "hotkey", "keys": [*held, name]}
    if modifiers & Qt.KeyboardModifier.ShiftModifier and len(text) == 1 and text.isprintable() and text != " ":
        return {"action": "type", "text": text}
    return {"action": "press", "key": name}
