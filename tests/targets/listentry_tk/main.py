"""Test target: a window dominated by a white Listbox and a white Entry, written the ordinary way.

Nothing has the keyboard focus at start: keys reach the Entry only after a click into it.
Return adds the Entry's text to the list.  Every change of the Entry is logged as ``entry <text>``.
With ``--dead-enter`` Return is never bound (everything else works): one dead key.
"""
import sys
import tkinter as tk

root = tk.Tk()
root.title("Items")
root.geometry("360x300")
items = tk.Listbox(root, bg="white", bd=0, highlightthickness=0)
for name in ("apples", "bread", "coffee"):
    items.insert("end", name)
items.pack(fill="both", expand=True)
text = tk.StringVar()
text.trace_add("write", lambda *_: print(f"entry {text.get()}", flush=True))
entry = tk.Entry(root, textvariable=text, bg="white", bd=0, highlightthickness=0)
entry.pack(fill="x")


def add(event=None):
    if text.get():
        items.insert("end", text.get())
        print(f"added {text.get()}", flush=True)
        text.set("")


if "--dead-enter" not in sys.argv:
    entry.bind("<Return>", add)
print("items started", flush=True)
root.mainloop()
