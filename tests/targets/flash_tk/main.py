"""Test target: a Tk app whose button plays an animation inside its handler (flash, sleep, flash the next,
redrawing between with update_idletasks(), which answers no event), longer than the target's freeze_s: busy,
not frozen."""
import time
import tkinter as tk

root = tk.Tk()
root.title("Flash")
root.geometry("300x200+0+0")
panel = tk.Frame(root, width=300, height=120, bg="dark red")
panel.pack()
COLOURS = ("red", "dark red", "blue", "dark blue", "green", "dark green", "yellow", "khaki")


def flash() -> None:
    for colour in COLOURS:  # 8 x 0.5 s: 4 s away from the loop
        panel.configure(bg=colour)
        root.update_idletasks()  # redraws, handles no event (nor the engine's question)
        time.sleep(0.5)


tk.Button(root, text="Go", command=flash).place(x=100, y=140, width=100, height=40)
root.mainloop()
