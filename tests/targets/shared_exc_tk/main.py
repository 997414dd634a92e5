import tkinter as tk

root = tk.Tk()
root.title("Shared")
root.geometry("300x200")
items = []
label = tk.Label(root, text="0 items", font=("DejaVu Sans", 16))
label.pack(pady=40)


def add(_event=None):
    items.append(len(items))
    label.config(text=f"{len(items)} items")


def remove_first(_event=None):
    items.pop(0)  # IndexError on an empty list: Tk prints the traceback and goes on
    label.config(text=f"{len(items)} items")


root.bind("<a>", add)
root.bind("<d>", remove_first)
root.mainloop()
