"""Test target for the paced check: a still label showing the time zone's offset as the program reads it."""
import time
import tkinter as tk

OFFSET = time.strftime("%H:%M", time.gmtime(0))

root = tk.Tk()
root.title("Zone")
root.geometry("240x120+0+0")
tk.Label(root, text="offset " + OFFSET, font=("DejaVu Sans", 20)).pack(expand=True)
root.mainloop()
