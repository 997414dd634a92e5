# SPDX-License-Identifier: GPL-3.0-or-later
"""A Tk animation on ``after`` (as turtle games on ``ontimer`` are): a block moves every TICK_MS and a label
counts the ticks, and the tick calls ``update()`` before it schedules the next one (as freegames do).  Space
turns the block round.  Tests change STEP_PX in a copy (a motion bug)."""

import tkinter as tk

TICK_MS = 40
STEP_PX = 4

root = tk.Tk()
root.title("Ticker")
root.geometry("300x200+0+0")
label = tk.Label(root, text="ticks 0")
label.pack()
canvas = tk.Canvas(root, width=300, height=160, bg="white", highlightthickness=0)
canvas.pack()
block = canvas.create_rectangle(10, 70, 30, 90, fill="navy", outline="")
state = {"ticks": 0, "dx": STEP_PX}


def turn(event=None):
    state["dx"] = -state["dx"]


def tick():
    state["ticks"] += 1
    x0, _, x1, _ = canvas.coords(block)
    if x1 + state["dx"] > 300 or x0 + state["dx"] < 0:
        turn()
    canvas.move(block, state["dx"], 0)
    label.config(text="ticks %d" % state["ticks"])
    root.update()  # as turtle's update() does: Tk's idle callbacks run here, within the tick
    root.after(TICK_MS, tick)


root.bind("<space>", turn)
root.after(TICK_MS, tick)
root.mainloop()
