"""Where a key matters: the states a tester puts a program in before it calls one of its keys dead.

A person does not call Return dead in a to-do list before typing a task, nor Delete before picking a
row: some keys answer only in some states (text in a focused entry, a selected row).  The inputs of the
run say which of these states the program was last put in, and a declared key of such a kind is judged
``no-response`` only once it was pressed in one of them at least once.
"""

from __future__ import annotations

import re

NEEDS: dict[str, str] = {
    "enter": "text", "return": "text", "kp_enter": "text", "backspace": "text",
    "delete": "pick", "del": "pick",
}
"""Key name -> the state where it matters: ``text`` (typed into a field since the last submit) or ``pick``
(a row or an item picked with a click, or text to delete)."""
_PRESS = re.compile(r'^press\("([^"]+)"\)$')


class KeyStates:
    """The states the tester's inputs put the program in, and the keys pressed where they matter."""

    def __init__(self) -> None:
        self.text = False
        self.pick = False
        self.met: set[str] = set()
        """Inputs (call form) pressed at least once in a state where their kind matters."""

    def restart(self) -> None:
        """A new episode: the program starts again with nothing typed or picked (what was met stays met)."""
        self.text = self.pick = False

    def note(self, call: str) -> None:
        """One input of the tester, in call form (``press("enter")``, ``type("milk")``, ``click(10, 20)``)."""
        key = _key(call)
        need = NEEDS.get(key or "")
        if need is not None and (self.text or (need == "pick" and self.pick)):
            self.met.add(call)
        if call.startswith("type(") or (key is not None and len(key) == 1 and key.isprintable()):
            self.text = True
        elif call.startswith(("click(", "double_click(")):
            self.pick = True
        elif key in ("enter", "return", "kp_enter"):
            self.text = False

    def tried_where_it_matters(self, call: str) -> bool:
        """False for a key of a kind in :data:`NEEDS` never pressed in its state; True for any other input."""
        key = _key(call)
        return key not in NEEDS or call in self.met


def _key(call: str) -> str | None:
    m = _PRESS.match(call)
    return m.group(1).lower() if m else None
