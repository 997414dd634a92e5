"""Default Tk buttons (they light up under the pointer) whose commands were never connected."""
import tkinter as tk

root = tk.Tk()
root.title("Hover")
root.geometry("300x220+0+0")
tk.Label(root, text="Total: 0", font=("DejaVu Sans", 16)).pack(pady=10)
row = tk.Frame(root)
row.pack()
for name in ("Add", "Remove", "Reset"):
    tk.Button(row, text=name, width=7, activebackground="#ffe080").pack(side="left", padx=4, pady=20)
tk.Button(root, text="Quit", width=7, activebackground="#ffe080").pack()
root.mainloop()
