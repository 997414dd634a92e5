"""A Tk window for the inside channel's tests: a menu, a button, an entry, and two timers."""

import tkinter as tk

root = tk.Tk()
root.title("Inside")
root.geometry("300x220+0+0")
clicks = [0]


def on_new():
    label.config(text="new")


def on_click():
    clicks[0] += 1
    label.config(text=f"clicked {clicks[0]}")


def blink():
    label.config(fg="black" if label.cget("fg") == "grey" else "grey")
    root.after(500, blink)


def later():
    label.config(text="later")


def on_later():
    root.after(150, later)


menubar = tk.Menu(root)
file_menu = tk.Menu(menubar, tearoff=0)
file_menu.add_command(label="New", accelerator="Ctrl+N", command=on_new)
file_menu.add_separator()
file_menu.add_command(label="Quit", command=root.destroy, state="disabled")
menubar.add_cascade(label="File", menu=file_menu)
root.config(menu=menubar)
button = tk.Button(root, text="Press", command=on_click)
button.place(x=20, y=30, width=100, height=40)
entry = tk.Entry(root)
entry.insert(0, "hello")
entry.place(x=20, y=90, width=150, height=30)
later_button = tk.Button(root, text="Later", command=on_later)
later_button.place(x=150, y=30, width=100, height=40)
label = tk.Label(root, text="ready")
label.place(x=20, y=140)
board = tk.Canvas(root, width=60, height=40, highlightthickness=0)
board.place(x=220, y=130)
board.tag_bind(board.create_rectangle(5, 5, 55, 35, fill="red"), "<Button-1>", lambda event: on_new())
root.after(500, blink)
root.mainloop()
