"""Test target: a one-note editor with New and Save buttons and Ctrl+N / Ctrl+S, written the ordinary way.

Logs ``new by key``, ``save by button`` and so on; typing makes every screen new.
"""
import tkinter as tk

root = tk.Tk()
root.title("Memo")
root.geometry("400x300")
bar = tk.Frame(root)
bar.pack(side="top", fill="x")
status = tk.Label(root, text="note 1", anchor="w")
status.pack(side="bottom", fill="x")
editor = tk.Text(root, wrap="word")
editor.pack(fill="both", expand=True)
notes = [1]


def new(how):
    print(f"new by {how}", flush=True)
    notes.append(len(notes) + 1)
    editor.delete("1.0", "end")
    status.config(text=f"note {notes[-1]}")


def save(how):
    print(f"save by {how}", flush=True)
    status.config(text=f"note {notes[-1]} saved ({len(editor.get('1.0', 'end-1c'))} chars)")


tk.Button(bar, text="New", command=lambda: new("button")).pack(side="left")
tk.Button(bar, text="Save", command=lambda: save("button")).pack(side="left")
root.bind_all("<Control-n>", lambda e: (new("key"), "break")[1])
root.bind_all("<Control-s>", lambda e: (save("key"), "break")[1])
print("memo started", flush=True)
root.mainloop()
