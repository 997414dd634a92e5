# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit converter sample target for PlayCoder Workbench (Tk).

F1/F2/F3 (or the buttons at the top) choose length, temperature or weight.
Type a number and press Return (or click Convert).  S (or the arrow button)
swaps the direction, Escape clears the input.
"""

import os
import sys
import tkinter as tk

from converter_logic import (LABELS, ORDER, allowed_input, category_for_key, parse_number,
                             result_lines, units)

WIDTH, HEIGHT = 360, 300
WINDOW_BG = "#f4f2ed"
TEXT_FG = "#1f2d3a"
MUTED_FG = "#5d6a77"
ACCENT = "#2f6aa8"
TAB_BG, TAB_FG = "#dbe2ea", "#2b3a4a"
RESULT_BG = "#ffffff"
ERROR_FG = "#b3362d"
PLACEHOLDER = "Press Return to convert"


def flat_button(parent, text, bg, fg, command, font=("DejaVu Sans", 12, "bold")):
    """A button without hover or focus highlight: pointing at it changes nothing."""
    return tk.Button(parent, text=text, bg=bg, fg=fg, activebackground=bg, activeforeground=fg,
                     relief="flat", bd=0, highlightthickness=0, takefocus=0, font=font,
                     command=command)


class ConverterWindow:
    def __init__(self, root):
        self.root = root
        self.category = "length"
        self.reverse = False
        root.title("Unit Converter")
        root.geometry("%dx%d" % (WIDTH, HEIGHT))
        root.resizable(False, False)
        root.configure(bg=WINDOW_BG)

        tabs = tk.Frame(root, bg=WINDOW_BG)
        tabs.pack(fill="x", padx=12, pady=(12, 6))
        self.tabs = {}
        for col, name in enumerate(ORDER):
            tabs.columnconfigure(col, weight=1, uniform="tab")
            button = flat_button(tabs, LABELS[name], TAB_BG, TAB_FG, None)
            button.grid(row=0, column=col, sticky="nsew", padx=3, ipady=6)
            self.tabs[name] = button

        row = tk.Frame(root, bg=WINDOW_BG)
        row.pack(fill="x", padx=15, pady=4)
        self.from_label = tk.Label(row, text="", bg=WINDOW_BG, fg=TEXT_FG, width=6,
                                   font=("DejaVu Sans", 14, "bold"))
        self.from_label.pack(side="left")
        self.swap_button = flat_button(row, "\u21c4 swap", TAB_BG, TAB_FG, None,
                                       font=("DejaVu Sans", 11, "bold"))
        self.swap_button.pack(side="left", expand=True, ipadx=8, ipady=2)
        self.to_label = tk.Label(row, text="", bg=WINDOW_BG, fg=TEXT_FG, width=6,
                                 font=("DejaVu Sans", 14, "bold"))
        self.to_label.pack(side="right")

        entry_row = tk.Frame(root, bg=WINDOW_BG)
        entry_row.pack(fill="x", padx=15, pady=6)
        check = (root.register(allowed_input), "%P")
        self.entry = tk.Entry(entry_row, font=("DejaVu Sans", 18), width=10, relief="solid", bd=1,
                              bg="#ffffff", fg=TEXT_FG, insertofftime=0, highlightthickness=0,
                              validate="key", validatecommand=check)
        self.entry.pack(side="left", fill="x", expand=True, ipady=3)
        self.convert_button = flat_button(entry_row, "Convert", ACCENT, "#ffffff", None)
        self.convert_button.pack(side="left", padx=(8, 0), ipadx=10, ipady=6)

        result = tk.Frame(root, bg=RESULT_BG, height=92, highlightthickness=1,
                          highlightbackground="#c9d1da")
        result.pack(fill="x", padx=15, pady=6)
        result.pack_propagate(False)
        self.question = tk.Label(result, text="", anchor="w", bg=RESULT_BG, fg=MUTED_FG,
                                 font=("DejaVu Sans", 12))
        self.question.pack(fill="x", padx=10, pady=(8, 0))
        self.answer = tk.Label(result, text="", anchor="w", bg=RESULT_BG, fg=TEXT_FG,
                               font=("DejaVu Sans", 24, "bold"))
        self.answer.pack(fill="x", padx=10)

        hint = tk.Label(root, text="F1-F3 category   S swap   Return convert   Esc clear",
                        bg=WINDOW_BG, fg=MUTED_FG, font=("DejaVu Sans", 9))
        hint.pack(side="bottom", pady=(0, 8))
        self._connect()
        self.show_category()

    def _connect(self):
        for name, button in self.tabs.items():
            button.configure(command=lambda name=name: self.select(name))
        self.swap_button.configure(command=self.swap)
        self.convert_button.configure(command=self.convert)
        for key in ("<Return>", "<KP_Enter>"):
            self.root.bind(key, lambda event: self.convert())
        self.root.bind("<Escape>", lambda event: self.clear())
        self.root.bind("<Key-s>", lambda event: self.swap())
        self.root.bind("<Key-S>", lambda event: self.swap())
        self.root.bind("<Key>", self.on_key, add="+")

    def on_key(self, event):
        category = category_for_key(event.keysym)
        if category is not None:
            self.select(category)

    # -- actions -----------------------------------------------------------
    def select(self, category):
        """A new category starts with the first direction and an empty input."""
        self.category = category
        self.reverse = False
        self.entry.delete(0, "end")
        self.show_category()

    def swap(self):
        self.reverse = not self.reverse
        self.show_category()

    def clear(self):
        self.entry.delete(0, "end")
        self.show_result("", PLACEHOLDER)

    def convert(self):
        try:
            value = parse_number(self.entry.get())
        except ValueError:
            self.show_result("", "Enter a number")
            return
        self.show_result(*result_lines(self.category, value, self.reverse))

    # -- drawing -------------------------------------------------------------
    def show_category(self):
        for name, button in self.tabs.items():
            bg, fg = (ACCENT, "#ffffff") if name == self.category else (TAB_BG, TAB_FG)
            button.configure(bg=bg, fg=fg, activebackground=bg, activeforeground=fg)
        src, dst = units(self.category, self.reverse)
        self.from_label.configure(text=src)
        self.to_label.configure(text=dst)
        self.show_result("", PLACEHOLDER)

    def show_result(self, question, answer):
        """Show a result ('100 °C =' / '212 °F'), the placeholder or an error message."""
        self.question.configure(text=question)
        if answer == PLACEHOLDER:
            fg, font = MUTED_FG, ("DejaVu Sans", 13)
        elif not question.endswith("="):
            fg, font = ERROR_FG, ("DejaVu Sans", 16, "bold")
        else:
            fg, font = TEXT_FG, ("DejaVu Sans", 24, "bold")
        self.answer.configure(text=answer, fg=fg, font=font)


def main():
    seed = int(os.environ.get("PLAYCODER_SEED", "0"))
    print("converter started seed=%d" % seed, flush=True)
    root = tk.Tk()
    window = ConverterWindow(root)
    root.protocol("WM_DELETE_WINDOW", root.destroy)
    root.after(100, root.focus_force)
    root.after(150, window.entry.focus_set)
    root.mainloop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
