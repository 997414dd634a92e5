"""Test target: a Tk window that opens small and takes its full size 1.5 s later (as turtle windows may)."""
import tkinter as tk

root = tk.Tk()
root.title("Grow")
root.geometry("120x90+0+0")
tk.Label(root, text="grown", font=("DejaVu Sans", 18)).pack(expand=True)
root.after(1500, lambda: root.geometry("300x200+0+0"))
root.mainloop()
