# SPDX-License-Identifier: GPL-3.0-or-later
# Jotter - a tiny to-do list with tkinter.
#
# Type a task and press Enter (or Add). Double-click a task to tick it off,
# select one and press Delete to remove it. Ctrl+S saves to todo.txt next to
# this file, Ctrl+N starts a new list, F1 shows the About box.

import os
import random
import tkinter as tk
from tkinter import messagebox

from todo import dump, parse, summary, tidy

HERE = os.path.dirname(os.path.abspath(__file__))
SAVE_FILE = os.path.join(HERE, "todo.txt")
STARTER_TASKS = [["Buy milk", False], ["Call the bike shop", False], ["Water the plants", True]]
TIPS = [
    "Tip: double-click a task to tick it off",
    "Tip: Ctrl+S saves your list",
    "Tip: select a task and press Delete",
    "Tip: F1 shows the About box",
]

if os.environ.get("PLAYCODER_SEED"):
    random.seed(int(os.environ["PLAYCODER_SEED"]))


class Jotter:
    def __init__(self, root):
        self.root = root
        root.title("Jotter")
        root.geometry("480x400")

        menubar = tk.Menu(root)
        file_menu = tk.Menu(menubar, tearoff=0)
        file_menu.add_command(label="New list", accelerator="Ctrl+N", command=self.new_list)
        file_menu.add_command(label="Save", accelerator="Ctrl+S", command=self.save)
        file_menu.add_separator()
        file_menu.add_command(label="Quit", accelerator="Ctrl+Q", command=self.quit)
        menubar.add_cascade(label="File", menu=file_menu)
        edit_menu = tk.Menu(menubar, tearoff=0)
        edit_menu.add_command(label="Tick off", accelerator="Ctrl+D", command=self.toggle_done)
        edit_menu.add_command(label="Delete", accelerator="Del", command=self.delete_task)
        menubar.add_cascade(label="Edit", menu=edit_menu)
        help_menu = tk.Menu(menubar, tearoff=0)
        help_menu.add_command(label="About", accelerator="F1", command=self.about)
        menubar.add_cascade(label="Help", menu=help_menu)
        root.config(menu=menubar)

        top = tk.Frame(root)
        top.pack(fill="x", padx=8, pady=8)
        self.entry = tk.Entry(top, font=("Helvetica", 14))
        self.entry.pack(side="left", fill="x", expand=True)
        tk.Button(top, text="Add", command=self.add_task).pack(side="right", padx=(6, 0))

        middle = tk.Frame(root)
        middle.pack(fill="both", expand=True, padx=8)
        scrollbar = tk.Scrollbar(middle)
        scrollbar.pack(side="right", fill="y")
        self.listbox = tk.Listbox(middle, font=("Helvetica", 14), yscrollcommand=scrollbar.set)
        self.listbox.pack(side="left", fill="both", expand=True)
        scrollbar.config(command=self.listbox.yview)

        self.status = tk.Label(root, anchor="w", relief="sunken", bd=1)
        self.status.pack(fill="x", side="bottom", padx=8, pady=8)

        self.entry.bind("<Return>", self.add_task)
        self.listbox.bind("<Double-Button-1>", self.toggle_done)
        root.bind("<Control-n>", self.new_list)
        root.bind("<Control-s>", self.save)
        root.bind("<Control-q>", self.quit)
        root.bind("<Control-d>", self.toggle_done)
        root.bind("<Delete>", self.delete_task)
        root.bind("<F1>", self.about)
        root.protocol("WM_DELETE_WINDOW", self.quit)

        self.tip = random.choice(TIPS)
        self.tasks = self.load()
        self.saved = True
        self.refresh()
        self.entry.focus_set()

    # --- file -------------------------------------------------------------
    def load(self):
        if os.path.exists(SAVE_FILE):
            with open(SAVE_FILE) as f:
                return parse(f.read())
        return [list(t) for t in STARTER_TASKS]

    def save(self, event=None):
        with open(SAVE_FILE, "w") as f:
            f.write(dump(self.tasks))
        self.saved = True
        self.refresh()

    def new_list(self, event=None):
        if not self.saved:
            if not messagebox.askyesno("New list", "Throw away the changes you have not saved?"):
                return
        self.tasks = []
        self.saved = False
        self.refresh()

    def quit(self, event=None):
        if not self.saved:
            answer = messagebox.askyesnocancel("Quit", "Save your list before quitting?")
            if answer is None:
                return
            if answer:
                self.save()
        self.root.destroy()

    # --- tasks ------------------------------------------------------------
    def add_task(self, event=None):
        text = tidy(self.entry.get())
        if not text:
            return
        self.tasks.append([text, False])
        self.entry.delete(0, tk.END)
        self.saved = False
        self.refresh()
        self.listbox.see(tk.END)

    def selected(self):
        selection = self.listbox.curselection()
        if not selection:
            return None
        return selection[0]

    def toggle_done(self, event=None):
        index = self.selected()
        if index is None:
            return
        self.tasks[index][1] = not self.tasks[index][1]
        self.saved = False
        self.refresh()
        self.listbox.selection_set(index)

    def delete_task(self, event=None):
        index = self.selected()
        if index is None:
            return
        text = self.tasks[index][0]
        if messagebox.askyesno("Delete task", "Delete '%s'?" % text):
            del self.tasks[index]
            self.saved = False
            self.refresh()

    # --- screen -----------------------------------------------------------
    def refresh(self):
        self.listbox.delete(0, tk.END)
        for text, done in self.tasks:
            if done:
                self.listbox.insert(tk.END, "[x] " + text)
            else:
                self.listbox.insert(tk.END, "[ ] " + text)
        for i, (text, done) in enumerate(self.tasks):
            if done:
                self.listbox.itemconfig(i, fg="grey")
        state = "saved" if self.saved else "not saved"
        self.status.config(text="%s (%s)    %s" % (summary(self.tasks), state, self.tip))

    def about(self, event=None):
        win = tk.Toplevel(self.root)
        win.title("About Jotter")
        win.transient(self.root)
        tk.Label(win, text="Jotter 1.0\nA tiny to-do list", font=("Helvetica", 14), padx=30, pady=15).pack()
        tk.Button(win, text="OK", width=10, command=win.destroy).pack(pady=(0, 12))
        win.bind("<Return>", lambda e: win.destroy())
        win.bind("<Escape>", lambda e: win.destroy())
        win.geometry("+%d+%d" % (self.root.winfo_rootx() + 130, self.root.winfo_rooty() + 110))
        win.wait_visibility()
        win.grab_set()
        win.focus_set()


root = tk.Tk()
Jotter(root)
root.mainloop()
