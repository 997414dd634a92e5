"""A bar that space grows, a count label, an empty entry and a dot that moves by itself: enough to write a
rubric with every trap `playcoder rubric check` must flag (tests/test_rubric_check.py)."""
import tkinter as tk

root = tk.Tk()
root.title("Rubric")
root.geometry("240x120+0+0")
root.configure(bg="#ffffff")
bar = tk.Canvas(root, width=240, height=40, bg="#ffffff", highlightthickness=0)
bar.place(x=0, y=0)
label = tk.Label(root, text="count 0", bg="#ffffff", fg="#000000", font=("TkDefaultFont", 12))
label.place(x=8, y=50)
entry = tk.Entry(root, width=10, relief="flat", bg="#ffffff", highlightthickness=0)
entry.place(x=120, y=52, width=110, height=24)
dot = tk.Canvas(root, width=10, height=10, bg="#000000", highlightthickness=0)
dot.place(x=10, y=95)
count = [0]
ticks = [0]


def more(_event: object) -> None:
    count[0] += 1
    bar.create_rectangle(0, 0, 20 * count[0], 40, fill="#ff0000", outline="")
    label.configure(text=f"count {count[0]}")


def tick() -> None:
    """A clock that runs by itself: the dot moves one pixel a tick."""
    ticks[0] += 1
    dot.place(x=10 + ticks[0] % 200, y=95)
    root.after(100, tick)


root.bind("<space>", more)
root.after(100, tick)
root.focus_force()
root.mainloop()
