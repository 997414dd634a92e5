"""Test target: a button opens a modal Toplevel (grab_set) that neither Escape nor its buttons close.

Only a window manager's close (WM_DELETE_WINDOW) gets rid of it.  DIALOG_AT="+X+Y" places the
dialog (default: over the main window's top-left corner, where Tk puts it without a window manager).
"""
import os
import tkinter as tk

root = tk.Tk()
root.title("Game")
root.geometry("320x240")
count = tk.IntVar(value=0)
tk.Label(root, textvariable=count, font=("DejaVu Sans", 28)).pack(pady=10)
tk.Button(root, text="Score +1", command=lambda: count.set(count.get() + 1)).pack()
tk.Button(root, text="Score -1", command=lambda: count.set(count.get() - 1)).pack()


def leaderboard():
    top = tk.Toplevel(root)
    top.title("Leaderboard")
    if os.environ.get("DIALOG_AT"):
        top.geometry(os.environ["DIALOG_AT"])
    tk.Label(top, text="High scores", font=("DejaVu Sans", 14)).pack(padx=20, pady=6)
    board = tk.Listbox(top, height=4)
    for line in ("ann 12", "bob 9", "cyd 3"):
        board.insert("end", line)
    board.pack(padx=10)
    tk.Button(top, text="Refresh", command=lambda: print("refresh", flush=True)).pack(pady=6)
    top.bind("<Destroy>", lambda e: print("dialog closed", flush=True) if e.widget is top else None)
    top.grab_set()
    print("dialog open", flush=True)


tk.Button(root, text="Leaderboard", command=leaderboard).pack()
print("game started", flush=True)
root.mainloop()
