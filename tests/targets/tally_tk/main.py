"""Test target: a tally (the pending operation shown above the number) whose arithmetic lives in tally_logic.py, with its own unit tests.

Digits, '+', '-', '=', 'A' (the average of the numbers entered since the last clear) and 'C' are
buttons and keys.  Its bug variants (bugs/) are the tests' own, for the repair loop's tests: the
benchmark's bugs are never pinned in CI.
"""
import tkinter as tk

from tally_logic import average, clip, combine

root = tk.Tk()
root.title("Tally")
pending = tk.StringVar(value="")
shown = tk.StringVar(value="0")
tk.Label(root, textvariable=pending, anchor="e", font=("DejaVu Sans", 11), bg="white", fg="grey25").grid(
    row=0, column=0, columnspan=4, sticky="nsew", padx=4)
tk.Label(root, textvariable=shown, anchor="e", font=("DejaVu Sans", 22), bg="white", fg="black", width=12).grid(
    row=1, column=0, columnspan=4, sticky="nsew", padx=4, pady=(0, 4))
state = {"acc": None, "op": None, "fresh": True, "entered": []}


def press(label):
    print(f"pressed {label}", flush=True)
    if label.isdigit():
        shown.set(label if state["fresh"] or shown.get() == "0" else clip(shown.get() + label))
        state["fresh"] = False
    elif label == "C":
        shown.set("0")
        state.update(acc=None, op=None, fresh=True, entered=[])
        pending.set("")
    elif label == "A":
        shown.set(str(average(state["entered"])))
        state["fresh"] = True
    else:
        value = int(shown.get())
        if not state["fresh"]:
            state["entered"].append(value)
        line = f"{value}"
        if state["op"] is not None and state["acc"] is not None and not state["fresh"]:
            line = f"{state['acc']} {state['op']} {value}"
            value = combine(state["op"], state["acc"], value)
            shown.set(clip(str(value)))
        state.update(acc=value, op=None if label == "=" else label, fresh=True)
        pending.set(f"{line} =" if label == "=" else f"{value} {label}")


for r, row in enumerate(("789+", "456-", "123=", "0AC"), start=2):
    for c, label in enumerate(row):
        tk.Button(root, text=label, width=4, height=2, command=lambda l=label: press(l)).grid(
            row=r, column=c, padx=2, pady=2)
for key in "0123456789+-=":
    root.bind(key, lambda e, k=key: press(k))
root.bind("a", lambda e: press("A"))
root.bind("<Return>", lambda e: press("="))
root.bind("<Escape>", lambda e: press("C"))
print("tally started", flush=True)
root.mainloop()
