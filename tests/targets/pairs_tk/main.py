"""Test target: a 2x3 memory game in Tk.  Click a card to turn it; two turned cards that match stay up.

Its bug variants (bugs/) are the tests' own: the benchmark's bugs are never pinned in CI.
"""
import tkinter as tk

FACES = ["A", "B", "C", "A", "C", "B"]
root = tk.Tk()
root.title("Pairs")
status = tk.StringVar(value="pairs found: 0")
buttons = []
state = {"first": None, "found": set(), "pairs": 0}


def show(i, up):
    buttons[i].config(text=FACES[i] if up else "?", bg="#ffe08a" if up else "#5577aa")


def hide(a, b):
    show(a, False)
    show(b, False)


def turn(i):
    print(f"turned {i}", flush=True)
    first = state["first"]
    if i in state["found"] or i == first:
        return
    show(i, True)
    if first is None:
        state["first"] = i
        return
    state["first"] = None
    if FACES[first] == FACES[i]:
        state["found"] |= {first, i}
        state["pairs"] += 1
        status.set(f"pairs found: {state['pairs']}")
    else:
        root.after(400, hide, first, i)


for i in range(len(FACES)):
    b = tk.Button(root, text="?", width=6, height=3, bg="#5577aa", font=("DejaVu Sans", 16),
                  command=lambda i=i: turn(i))
    b.grid(row=i // 3, column=i % 3, padx=4, pady=4)
    buttons.append(b)
tk.Label(root, textvariable=status, font=("DejaVu Sans", 14)).grid(row=2, column=0, columnspan=3, pady=6)
print("pairs started", flush=True)
root.mainloop()
