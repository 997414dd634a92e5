"""A counter that saves its state next to itself, as small programs do."""
import json
import pathlib
import tkinter as tk

SAVE = pathlib.Path(__file__).with_name("save.json")
count = json.loads(SAVE.read_text())["count"] if SAVE.exists() else 0
root = tk.Tk()
root.title("Saver")
root.geometry("240x140+0+0")
label = tk.Label(root, text=f"count {count}", font=("DejaVu Sans", 16))
label.pack(pady=10)


def bump(event=None):
    global count
    count += 1
    label.config(text=f"count {count}")
    SAVE.write_text(json.dumps({"count": count}))


tk.Button(root, text="+1", command=bump).pack()
root.bind("<space>", bump)
root.mainloop()
