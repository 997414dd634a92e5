"""Test target: a Tk window that fills its 320×240 screen, then grows a little 1 s later (as a label widened
by a long sum grows a calculator): the engine grows the private screen to follow it."""
import tkinter as tk

root = tk.Tk()
root.title("Outgrow")
root.geometry("320x240+0+0")
tk.Label(root, text="grown", font=("DejaVu Sans", 18)).pack(expand=True)
root.after(1000, lambda: root.geometry("352x260+0+0"))
root.mainloop()
