# SPDX-License-Identifier: GPL-3.0-or-later
"""Notes sample target for PlayCoder Workbench (Tk).

A list of notes on the left, the editor on the right.  New (Ctrl+N), Save
(Ctrl+S) and Delete (Ctrl+D) act on the current note; click a title to open
it.  Return keeps the indent and "- " bullets of the line above.  The status
bar shows the note number, its word count and whether it is saved.
"""

import os
import sys
import tkinter as tk

from notes_logic import Notebook, continuation, sample_notes

WIDTH, HEIGHT = 480, 360
BAR_BG = "#2e3a47"
BAR_FG = "#f1f4f7"
LIST_BG = "#edf0f4"
LIST_FG = "#26323e"
SELECT_BG = "#c9dcf3"
PAPER_BG = "#fffdf6"
INK_FG = "#232c35"
STATUS_BG = "#dde2e8"
STATUS_FG = "#33404d"
BUTTONS = (("New", "#3f7cc4"), ("Save", "#3a9a5b"), ("Delete", "#c2493f"))


class NotesWindow:
    def __init__(self, root, seed):
        self.root = root
        self.book = Notebook(sample_notes(seed))
        root.title("Notes")
        root.geometry("%dx%d" % (WIDTH, HEIGHT))
        root.resizable(False, False)
        root.configure(bg=BAR_BG)

        bar = tk.Frame(root, bg=BAR_BG)
        bar.pack(side="top", fill="x")
        self.buttons = {}
        for label, colour in BUTTONS:
            button = tk.Button(bar, text=label, bg=colour, fg="#ffffff", activebackground=colour,
                               activeforeground="#ffffff", relief="flat", bd=0, highlightthickness=0,
                               takefocus=0, font=("DejaVu Sans", 10, "bold"), padx=12, pady=3)
            button.pack(side="left", padx=(8, 0), pady=6)
            self.buttons[label] = button
        tk.Label(bar, text="Ctrl+N new  Ctrl+S save  Ctrl+D delete", bg=BAR_BG, fg="#aebbc8",
                 font=("DejaVu Sans", 8)).pack(side="right", padx=8)

        self.status = tk.Label(root, text="", anchor="w", bg=STATUS_BG, fg=STATUS_FG,
                               font=("DejaVu Sans", 10), padx=8, pady=3)
        self.status.pack(side="bottom", fill="x")

        body = tk.Frame(root, bg=LIST_BG)
        body.pack(side="top", fill="both", expand=True)
        self.listbox = tk.Listbox(body, width=17, bg=LIST_BG, fg=LIST_FG, bd=0, highlightthickness=0,
                                  selectbackground=SELECT_BG, selectforeground=LIST_FG,
                                  activestyle="none", exportselection=False, takefocus=0,
                                  font=("DejaVu Sans", 10))
        self.listbox.pack(side="left", fill="y", padx=(6, 0), pady=6)
        self.text = tk.Text(body, wrap="word", undo=False, bg=PAPER_BG, fg=INK_FG, bd=0,
                            highlightthickness=0, insertbackground=INK_FG, insertofftime=0,
                            font=("DejaVu Sans", 11), padx=8, pady=6)
        self.text.pack(side="left", fill="both", expand=True, padx=6, pady=6)

        self._connect()
        self.load_current()

    def _connect(self):
        self.buttons["New"].configure(command=self.new_note)
        self.buttons["Save"].configure(command=self.save_note)
        self.buttons["Delete"].configure(command=self.delete_note)
        for widget in (self.text, self.root):
            for key, action in (("n", self.new_note), ("s", self.save_note), ("d", self.delete_note)):
                for sequence in ("<Control-%s>" % key, "<Control-%s>" % key.upper()):
                    widget.bind(sequence, lambda event, action=action: (action(), "break")[1])
        self.text.bind("<Return>", self.on_return)
        self.text.bind("<<Modified>>", self.on_modified)
        self.listbox.bind("<<ListboxSelect>>", self.on_select)

    # -- actions -----------------------------------------------------------
    def new_note(self):
        self.book.new()
        self.load_current()

    def save_note(self):
        self.book.save()
        self.refresh()

    def delete_note(self):
        self.book.delete()
        self.load_current()

    def on_select(self, event):
        chosen = self.listbox.curselection()
        if chosen and chosen[0] != self.book.current:
            self.book.select(chosen[0])
            self.load_current()
        else:
            self.refresh()
        self.root.after_idle(self.text.focus_set)  # Tk focuses the listbox after this handler

    def on_return(self, event):
        line = self.text.get("insert linestart", "insert")
        self.text.insert("insert", "\n" + continuation(line))
        self.text.see("insert")
        return "break"

    def on_modified(self, event):
        if not self.text.edit_modified():
            return
        self.text.edit_modified(False)
        text = self.text.get("1.0", "end-1c")
        if text != self.book.notes[self.book.current].draft:
            self.book.edit(text)
            self.refresh()

    # -- drawing -------------------------------------------------------------
    def load_current(self):
        """Put the current note's draft into the editor."""
        self.text.delete("1.0", "end")
        self.text.insert("1.0", self.book.notes[self.book.current].draft)
        self.text.mark_set("insert", "end-1c")
        self.text.edit_modified(False)
        self.text.see("insert")
        self.refresh()

    def refresh(self):
        titles = self.book.titles()
        if self.listbox.size() != len(titles):
            self.listbox.delete(0, "end")
            self.listbox.insert("end", *titles)
        else:
            row = 0
            while row < len(titles):
                if self.listbox.get(row) != titles[row]:
                    self.listbox.delete(row)
                    self.listbox.insert(row, titles[row])
                row += 1
        self.listbox.selection_clear(0, "end")
        self.listbox.selection_set(self.book.current)
        self.listbox.see(self.book.current)
        self.status.configure(text=self.book.status())


def main():
    seed = int(os.environ.get("PLAYCODER_SEED", "0"))
    print("notes started seed=%d" % seed, flush=True)
    root = tk.Tk()
    window = NotesWindow(root, seed)
    root.protocol("WM_DELETE_WINDOW", root.destroy)
    root.after(100, root.focus_force)
    root.after(150, window.text.focus_set)
    root.mainloop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
