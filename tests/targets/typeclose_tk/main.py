"""Test target: an Entry with the focus; F1 opens a small modal dialog (transient, grab, focus) that a space
closes, as a focused OK button does.  Return prints what the Entry holds."""
import tkinter as tk

root = tk.Tk()
root.title("Type close")
root.geometry("300x120+0+0")
entry = tk.Entry(root)
entry.pack(fill="x", padx=6, pady=6)
entry.focus_set()


def about(event=None):
    win = tk.Toplevel(root)
    win.title("About")
    win.transient(root)
    tk.Label(win, text="About this").pack(padx=20, pady=10)
    win.bind("<space>", lambda e: win.destroy())
    win.geometry("+60+40")
    win.wait_visibility()
    win.grab_set()
    win.focus_set()
    print("dialog open", flush=True)


root.bind("<F1>", about)
entry.bind("<Return>", lambda e: print("entry holds", repr(entry.get()), flush=True))
print("ready", flush=True)
root.mainloop()
