"""Benchmark target: three buttons whose reactions come at once, 150 ms later and 400 ms later.

Each press paints a new count into the button's own label: now (``Now``), or from a
one-shot ``after`` timer (``Later 150``, ``Later 400``).  An entry with a blinking
caret (Tk's own timer) sits below, and a dot blinks by a Python ``after`` that
schedules itself again (a repeating timer): neither may hold a step.
"""
import tkinter as tk

DELAYS_MS = (0, 150, 400)
BLINK_MS = 500

root = tk.Tk()
root.title("Delays")
root.geometry("480x240+0+0")
root.configure(bg="#eef1f5")
counts = [0, 0, 0]
labels: list[tk.Label] = []


def react(i: int) -> None:
    counts[i] += 1
    labels[i].configure(text=f"{counts[i]}", bg=("#cde", "#dec", "#edc")[counts[i] % 3])


def pressed(i: int) -> None:
    if DELAYS_MS[i]:
        root.after(DELAYS_MS[i], react, i)
    else:
        react(i)


for i, delay in enumerate(DELAYS_MS):
    column = tk.Frame(root, bg="#eef1f5")
    column.pack(side="left", padx=16, pady=16, anchor="n")
    tk.Button(column, text="Now" if not delay else f"Later {delay}", width=9, font=("DejaVu Sans", 12),
              command=lambda i=i: pressed(i)).pack()
    label = tk.Label(column, text="0", width=6, font=("DejaVu Sans", 20), bg="#dde3ea")
    label.pack(pady=12)
    labels.append(label)
entry = tk.Entry(root, font=("DejaVu Sans", 12), width=30)
entry.place(x=16, y=190)
entry.focus_set()
dot = tk.Label(root, text="\u25cf", font=("DejaVu Sans", 12), fg="#468", bg="#eef1f5")
dot.place(x=440, y=190)


def blink() -> None:
    dot.configure(fg="#468" if dot.cget("fg") != "#468" else "#eef1f5")
    root.after(BLINK_MS, blink)


root.after(BLINK_MS, blink)
root.mainloop()
