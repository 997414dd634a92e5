# SPDX-License-Identifier: GPL-3.0-or-later
"""Calculator sample target for PlayCoder Workbench (Tk).

Click the buttons or type: digits, + - * / . ; Return or = evaluates,
Escape clears, BackSpace deletes the last digit.
"""

import os
import sys
import tkinter as tk

from calc_logic import Calculator, key_for_event

WIDTH, HEIGHT = 320, 420
WINDOW_BG = "#2b2b2b"
DISPLAY_BG = "#12263a"
DISPLAY_FG = "#f4f7fb"
EXPRESSION_FG = "#8fb3d9"
STYLES = {                      # (background, foreground)
    "digit": ("#e6e6e6", "#202020"),
    "op": ("#f59e2b", "#ffffff"),
    "equals": ("#3fa34d", "#ffffff"),
    "clear": ("#d9443b", "#ffffff"),
    "edit": ("#9a9a9a", "#ffffff"),
}
# (label, row, column, columnspan, style); rows start below the display
LAYOUT = [
    ("C", 0, 0, 2, "clear"), ("DEL", 0, 2, 1, "edit"), ("/", 0, 3, 1, "op"),
    ("7", 1, 0, 1, "digit"), ("8", 1, 1, 1, "digit"), ("9", 1, 2, 1, "digit"), ("*", 1, 3, 1, "op"),
    ("4", 2, 0, 1, "digit"), ("5", 2, 1, 1, "digit"), ("6", 2, 2, 1, "digit"), ("-", 2, 3, 1, "op"),
    ("1", 3, 0, 1, "digit"), ("2", 3, 1, 1, "digit"), ("3", 3, 2, 1, "digit"), ("+", 3, 3, 1, "op"),
    ("0", 4, 0, 2, "digit"), (".", 4, 2, 1, "digit"), ("=", 4, 3, 1, "equals"),
]


class CalculatorWindow:
    def __init__(self, root):
        self.root = root
        self.calc = Calculator()
        self.expr_text = ""
        root.title("Calculator")
        root.geometry("%dx%d" % (WIDTH, HEIGHT))
        root.resizable(False, False)
        root.configure(bg=WINDOW_BG)

        display = tk.Frame(root, bg=DISPLAY_BG, height=110)
        display.pack(fill="x", padx=8, pady=(8, 4))
        display.pack_propagate(False)
        self.expr_label = tk.Label(display, text="", anchor="e", bg=DISPLAY_BG,
                                   fg=EXPRESSION_FG, font=("DejaVu Sans", 14))
        self.expr_label.pack(fill="x", padx=10, pady=(10, 0))
        self.display_label = tk.Label(display, text="0", anchor="e", bg=DISPLAY_BG,
                                      fg=DISPLAY_FG, font=("DejaVu Sans", 34, "bold"))
        self.display_label.pack(fill="both", expand=True, padx=10)

        pad = tk.Frame(root, bg=WINDOW_BG)
        pad.pack(fill="both", expand=True, padx=8, pady=(4, 8))
        for col in range(4):
            pad.columnconfigure(col, weight=1, uniform="col")
        for row in range(5):
            pad.rowconfigure(row, weight=1, uniform="row")
        self.buttons = {}
        for label, row, col, span, style in LAYOUT:
            bg, fg = STYLES[style]
            button = tk.Button(pad, text=label, bg=bg, fg=fg, activebackground=bg,
                               activeforeground=fg, relief="flat", bd=0,
                               highlightthickness=0, font=("DejaVu Sans", 18, "bold"))
            button.grid(row=row, column=col, columnspan=span, sticky="nsew", padx=3, pady=3)
            self.buttons[label] = button
        self._connect()
        self.refresh()

    def _connect(self):
        """Wire the buttons and the keyboard to the calculator."""
        for label, button in self.buttons.items():
            button.configure(command=lambda key=label: self.press(key))
        self.root.bind("<Key>", self.on_key)

    def on_key(self, event):
        key = key_for_event(event.keysym, event.char)
        if key is not None:
            self.press(key)

    def press(self, key):
        if key == "=":
            self.on_equals()
            return
        self.expr_text = ""
        self.calc.press(key)
        self.refresh()

    def on_equals(self):
        # keep "12 + 3 =" visible above the result
        if self.calc.pending_op is not None:
            self.expr_text = "%s %s =" % (self.calc.expression(), self.calc.display)
        self.calc.equals()
        self.refresh()

    def refresh(self):
        self.display_label.configure(text=self.calc.display)
        self.expr_label.configure(text=self.calc.expression() or self.expr_text)


def main():
    seed = int(os.environ.get("PLAYCODER_SEED", "0"))
    print("calculator started seed=%d" % seed, flush=True)
    root = tk.Tk()
    CalculatorWindow(root)
    root.protocol("WM_DELETE_WINDOW", root.destroy)
    root.after(100, root.focus_force)
    root.mainloop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
