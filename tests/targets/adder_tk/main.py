"""Test target: a small calculator whose result is a Label (no text field, so no caret blinks on it).

Digits, '+', '-', '=' and 'C' are buttons and keys; every press is logged as ``pressed <label>``.
Its bug variants (bugs/) are the tests' own: the benchmark's bugs are never pinned in CI.
"""
import tkinter as tk

root = tk.Tk()
root.title("Adder")
shown = tk.StringVar(value="0")
tk.Label(root, textvariable=shown, anchor="e", font=("DejaVu Sans", 22), bg="white", width=12).grid(
    row=0, column=0, columnspan=4, sticky="nsew", padx=4, pady=4)
state = {"acc": None, "op": None, "fresh": True}


def apply(op, a, b):
    return a + b if op == "+" else a - b


def press(label):
    print(f"pressed {label}", flush=True)
    if label.isdigit():
        shown.set(label if state["fresh"] or shown.get() == "0" else (shown.get() + label)[:9])
        state["fresh"] = False
    elif label == "C":
        shown.set("0")
        state.update(acc=None, op=None, fresh=True)
    else:
        value = int(shown.get())
        if state["op"] is not None and state["acc"] is not None and not state["fresh"]:
            value = apply(state["op"], state["acc"], value)
            shown.set(str(value))
        state.update(acc=value, op=None if label == "=" else label, fresh=True)


for r, row in enumerate(("789+", "456-", "123=", "0C"), start=1):
    for c, label in enumerate(row):
        tk.Button(root, text=label, width=4, height=2, command=lambda l=label: press(l)).grid(
            row=r, column=c, padx=2, pady=2)
for key in "0123456789+-=":
    root.bind(key, lambda e, k=key: press(k))
root.bind("<Return>", lambda e: press("="))
root.bind("<Escape>", lambda e: press("C"))
print("adder started", flush=True)
root.mainloop()
