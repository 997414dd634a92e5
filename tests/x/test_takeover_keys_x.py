"""Take-over sends what was typed: every printable ASCII character and the keypad keys reach a real Tk entry.

Each key press is described as Qt gives it to the live view (key code, text, modifiers, as on a US keyboard:
``*`` is Shift+8, ``!`` Shift+1), turned into an engine action by the take-over's key mapping and played by
the engine's executor into a Tk entry on a private Xvfb; the entry must then hold exactly the characters typed.
"""

from __future__ import annotations

import os
import string
import subprocess
import sys
import time
from pathlib import Path

from suite import needs_xvfb

from PySide6.QtCore import Qt

from app.engine.play.actions import action_from_dict
from app.engine.play.display import start_xvfb
from app.engine.play.executor import ActionExecutor, XTestBackend
from app.views.live.key_names import key_action

ENTRY = r'''
import sys, tkinter as tk
root = tk.Tk()
seen = tk.StringVar()
entry = tk.Entry(root, textvariable=seen, width=60)
entry.pack(padx=10, pady=10)
entry.focus_set()
def save(*_):
    with open(sys.argv[1] + ".tmp", "w") as fh:
        fh.write(seen.get())
    __import__("os").replace(sys.argv[1] + ".tmp", sys.argv[1])
seen.trace_add("write", save)
root.update()
print(int(root.wm_frame(), 16), flush=True)
root.mainloop()
'''
SHIFTED = '~!@#$%^&*()_+{}|:"<>?' + string.ascii_uppercase
UNSHIFTED_OF = dict(zip('~!@#$%^&*()_+{}|:"<>?', "`1234567890-=[]\\;',./"))
KEYPAD = {"0": Qt.Key.Key_0, "5": Qt.Key.Key_5, "9": Qt.Key.Key_9, "+": Qt.Key.Key_Plus, "-": Qt.Key.Key_Minus,
          "*": Qt.Key.Key_Asterisk, "/": Qt.Key.Key_Slash, ".": Qt.Key.Key_Period}


def _qt_press(ch: str) -> tuple[int, str, Qt.KeyboardModifier]:
    """The key event Qt delivers for ``ch`` typed on a US keyboard."""
    shift = Qt.KeyboardModifier.ShiftModifier if ch in SHIFTED else Qt.KeyboardModifier.NoModifier
    key = Qt.Key.Key_Space if ch == " " else ord(ch.upper()) if ch.isalpha() else ord(ch)
    return int(key), ch, shift


def _cases() -> list[tuple[str, tuple[int, str, Qt.KeyboardModifier]]]:
    cases = [(ch, _qt_press(ch)) for ch in string.printable if ch.isprintable()]
    cases += [(ch, (int(key), ch, Qt.KeyboardModifier.KeypadModifier)) for ch, key in KEYPAD.items()]
    return cases


@needs_xvfb
def test_every_printable_character_and_the_keypad_reach_a_tk_entry(tmp_path: Path):
    out = tmp_path / "entry.txt"
    script = tmp_path / "entry.py"
    script.write_text(ENTRY)
    with start_xvfb((640, 200)) as display:
        proc = subprocess.Popen([sys.executable, str(script), str(out)], stdout=subprocess.PIPE, text=True,
                                env={**os.environ, "DISPLAY": display.name})
        try:
            window = int(proc.stdout.readline())
            executor = ActionExecutor(XTestBackend(display.name, window), lambda: (0, 0, 640, 200), hold_s=0.02)
            missing = []
            for ch, (key, text, modifiers) in _cases():
                before = out.read_text() if out.exists() else ""
                action = key_action(key, text, modifiers)
                assert action is not None, f"take-over sends nothing for {ch!r}"
                executor.execute(action_from_dict(action))
                deadline = time.monotonic() + 3
                while time.monotonic() < deadline and (out.read_text() if out.exists() else "") == before:
                    time.sleep(0.02)
                now = out.read_text() if out.exists() else ""
                if now != before + ch:
                    missing.append((ch, action, now[len(before):]))
            executor.close()
        finally:
            proc.kill()
            proc.wait()
    assert missing == []
