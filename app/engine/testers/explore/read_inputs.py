"""What a program's code reads from the keyboard and the mouse, as the explorer keeps it.

Filled by :mod:`.keys_from_code` (Python sources) and :mod:`.keys_from_js` (a web page's scripts).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ReadInputs:
    """What a program's code reads from the keyboard and the mouse."""

    keys: list[str] = field(default_factory=list)
    """Engine key names and combos (``"ctrl+s"``), in the order first seen in the code."""
    buttons: set[str] = field(default_factory=set)
    """Mouse buttons read: left, middle, right, wheel; ``double`` for a double-click binding, ``drag`` for motion."""
    text: bool = False
    """The program reads typed text (``event.unicode`` without a constant, a Tk/Qt entry): words matter."""
    held: set[str] = field(default_factory=set)
    """Keys read while held down (``pygame.key.get_pressed()[K_LEFT]``): a paddle or a ship moves a little each
    frame the key is down, so a key pressed once barely moves it."""
    restarts: set[str] = field(default_factory=set)
    """Keys whose handler starts the game over (``game.reset()``, ``restart()``, ``new_game()``): a look-ahead
    that presses one loses what was reached, and its plans all meet the start again."""
    quits: set[str] = field(default_factory=set)
    """Keys whose handler ends the program (``sys.exit()``, ``root.destroy``, ``running = False``):
    pressed only where the program declares that ending is fine (``exit_ok``)."""

    def add_key(self, name: str | None) -> None:
        if name and name not in self.keys:
            self.keys.append(name)

    def merge(self, other: ReadInputs) -> None:
        for k in other.keys:
            self.add_key(k)
        self.buttons |= other.buttons
        self.held |= other.held
        self.restarts |= other.restarts
        self.text = self.text or other.text
        self.quits |= other.quits
