# SPDX-License-Identifier: GPL-3.0-or-later
"""A handler that plays an animation itself, as turtle demos do inside a button's command: space moves a block
across in 30 frames, calling ``update()`` and sleeping between them, then says "done".  The engine's idle
question may come while the handler runs (``update()`` runs Tk's idle callbacks)."""

import time
import tkinter as tk

FRAMES = 30
FRAME_S = 0.04

root = tk.Tk()
root.title("Animate")
root.geometry("300x200+0+0")
label = tk.Label(root, text="ready")
label.pack()
canvas = tk.Canvas(root, width=300, height=160, bg="white", highlightthickness=0)
canvas.pack()
block = canvas.create_rectangle(10, 70, 30, 90, fill="navy", outline="")


def animate(event=None):
    for frame in range(FRAMES):
        canvas.move(block, 8, 0)
        label.config(text="frame %d" % frame)
        root.update()
        time.sleep(FRAME_S)
    label.config(text="done")


root.bind("<space>", animate)
root.mainloop()
