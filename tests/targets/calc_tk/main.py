"""Test target: a calculator written the ordinary way (flat Tk buttons, grey on the grey window).

Every button press is logged as ``pressed <label>``; the display is a plain Entry.
"""
import tkinter as tk

root = tk.Tk()
root.title("Calc")
display = tk.Entry(root, justify="right", font=("DejaVu Sans", 20))
display.grid(row=0, column=0, columnspan=4, sticky="nsew", padx=4, pady=4)
state = {"acc": None, "op": None, "fresh": True}


def show(text):
    display.delete(0, "end")
    display.insert(0, text)


def press(label):
    print(f"pressed {label}", flush=True)
    text = display.get()
    if label.isdigit() or label == ".":
        show(label if state["fresh"] else text + label)
        state["fresh"] = False
    elif label == "C":
        show("")
        state.update(acc=None, op=None, fresh=True)
    else:
        try:
            value = float(text or 0)
        except ValueError:  # "1.2.3" or "Error"
            show("Error")
            state.update(acc=None, op=None, fresh=True)
            return
        if state["op"] is not None and state["acc"] is not None:
            a, op = state["acc"], state["op"]
            value = {"+": a + value, "-": a - value, "*": a * value, "/": a / value if value else 0.0}[op]
            show(f"{value:g}")
        state.update(acc=value, op=None if label == "=" else label, fresh=True)


for r, row in enumerate(("789/", "456*", "123-", "0.=+"), start=1):
    for c, label in enumerate(row):
        tk.Button(root, text=label, width=4, height=2, relief="flat",
                  command=lambda l=label: press(l)).grid(row=r, column=c, padx=2, pady=2)
tk.Button(root, text="C", relief="flat", command=lambda: press("C")).grid(row=5, column=0, columnspan=4, sticky="ew")
print("calc started", flush=True)
root.mainloop()
