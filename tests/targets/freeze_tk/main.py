"""Test target: a Tk app whose button hangs its event loop (a handler that never returns)."""
import time
import tkinter as tk

root = tk.Tk()
root.title("Hang")
root.geometry("300x200+0+0")
label = tk.Label(root, text="ready", font=("DejaVu Sans", 18))
label.pack(pady=20)


def hang() -> None:
    label.configure(text="working")
    while True:
        time.sleep(0.05)


tk.Button(root, text="Go", command=hang).pack()
root.mainloop()
