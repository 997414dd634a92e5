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
"""The characters on a US keyboard's unshifted keys: pressed as keys (a game binds them); any other character
(``+``, ``*``, ``!``, a capital) is typed as the character it is, with the Shift a person would hold."""
KEYPAD_NAMES = {"+": "KP_Add", "-": "KP_Subtract", "*": "KP_Multiply", "/": "KP_Divide", ".": "KP_Decimal",
                "=": "KP_Equal"}
"""A keypad operator as its own X key (a program that binds ``<KP_Add>`` gets it; an entry shows its character).
Keypad digits (Num Lock on, or Qt would not give their text) are sent as the digits they type."""


def key_action(key: int, text: str, modifiers: Qt.KeyboardModifier) -> dict[str, Any] | None:
    """The engine action for one key press, or None for a bare modifier or an unmappable key.

    Letters, digits and unshifted punctuation become a ``press`` of their key,
    named keys their engine name (space, enter, escape, backspace, tab, arrows,
    F-keys …), keypad keys their keypad key (``KP_Add``), and every other
    printable character (``+``, ``*``, ``!``, ``A``) a ``type`` of itself.
    With Ctrl or Alt held the press becomes a ``hotkey`` such as ``["ctrl", "s"]``.
    """
    try:
        qt_key = Key(key)
    except ValueError:
        return None
    if qt_key in MODIFIER_KEYS:
        return None
    name = _key_name(qt_key, text, modifiers)
    held = [word for flag, word in ((Qt.KeyboardModifier.ControlModifier, "ctrl"),
                                    (Qt.KeyboardModifier.AltModifier, "alt")) if modifiers & flag]
    if held:
        if name is None:
            return None
        if modifiers & Qt.KeyboardModifier.ShiftModifier:
            held.append("shift")
        return {"action": "hotkey", "keys": [*held, name]}
    if name is not None and (name not in _PRINTABLE or not modifiers & Qt.KeyboardModifier.ShiftModifier):
        return {"action": "press", "key": name}
    if len(text) == 1 and text.isprintable() and text != " ":
        return {"action": "type", "text": text}
    return {"action": "press", "key": name} if name is not None else None


def _key_name(qt_key: Any, text: str, modifiers: Qt.KeyboardModifier) -> str | None:
    """The engine's name of the key itself: a named key, a keypad key, a letter, a digit or unshifted
    punctuation; None for a character typed with Shift (``*``) or a key the engine has no name for."""
    name = SPECIAL_KEYS.get(qt_key)
    if name is not None:
        return name
    if modifiers & Qt.KeyboardModifier.KeypadModifier and text in KEYPAD_NAMES:
        return KEYPAD_NAMES[text]
    if Key.Key_A <= qt_key <= Key.Key_Z:
        return chr(ord("a") + int(qt_key) - int(Key.Key_A))
    if Key.Key_0 <= qt_key <= Key.Key_9 and (len(text) != 1 or text.isdigit() or not text.isprintable()):
        return chr(ord("0") + int(qt_key) - int(Key.Key_0))
    if len(text) == 1 and text in _PRINTABLE:
        return text
    if not text and 0x20 < int(qt_key) < 0x7F and chr(int(qt_key)).lower() in _PRINTABLE:
        return chr(int(qt_key)).lower()  # Ctrl held: Qt gives no text, the key code is the character
    return None
