"""A Tk form with an Entry (blinking caret, focused) whose keys do nothing visible: a dead program."""
import sys
import tkinter as tk

root = tk.Tk()
root.title("Caret")
root.geometry("320x200+0+0")
entry = tk.Entry(root, font=("DejaVu Sans", 14))
entry.pack(padx=20, pady=30, fill="x")
entry.focus_set()
label = tk.Label(root, text="Type your name")
label.pack()
if "--dead" in sys.argv:
    entry.bind("<Key>", lambda e: "break")  # swallows every key: typing shows nothing
root.mainloop()
