"""Test target: a small Tk calculator whose display is a focused Entry (its caret blinks), and a label showing
a token drawn from os.urandom every 200 ms (not seeded: two runs never agree on it).

Keys and buttons: digits, '-', '+', '=' (or Enter), Escape clears.  Results are written into the Entry.
"""
import os
import tkinter as tk

root = tk.Tk()
root.title("Sign calc")
root.geometry("240x230+0+0")
display = tk.Entry(root, justify="right")
display.pack(fill="x", padx=6, pady=6)
display.focus_set()
clock = tk.Label(root, text="")
clock.pack()
state = {"acc": None, "op": None, "fresh": True}


def tick():
    clock.config(text=f"token {int.from_bytes(os.urandom(2), 'big'):05d}")
    root.after(200, tick)


def show(text):
    display.delete(0, "end")
    display.insert(0, text)


def press(label):
    text = display.get()
    if label.isdigit():
        show(label if state["fresh"] else text + label)
        state["fresh"] = False
    elif label == "C":
        show("")
        state.update(acc=None, op=None, fresh=True)
    else:
        value = int(text or 0)
        if state["op"] is not None and state["acc"] is not None and not state["fresh"]:
            value = state["acc"] + value if state["op"] == "+" else state["acc"] - value
            show(str(value))
        state.update(acc=value, op=None if label == "=" else label, fresh=True)


def key(event):
    names = {"minus": "-", "plus": "+", "equal": "=", "Return": "=", "KP_Enter": "=", "Escape": "C"}
    label = names.get(event.keysym, event.char)
    if label and (label.isdigit() or label in "+-=C"):
        press(label)
    return "break"  # nothing is typed into the display by hand


display.bind("<Key>", key)
root.bind("<Key>", key)
pad = tk.Frame(root)
pad.pack()
for r, row in enumerate(("123", "456", "789", "-0+")):
    for c, label in enumerate(row):
        tk.Button(pad, text=label, width=3, command=lambda l=label: press(l)).grid(row=r, column=c)
tk.Button(pad, text="=", command=lambda: press("=")).grid(row=4, column=0, columnspan=3, sticky="ew")
tick()
root.mainloop()
