"""Benchmark target: a static 800×600 Tk form; letter keys change a label, nothing animates."""
import tkinter as tk

root = tk.Tk()
root.title("Form 800")
root.geometry("800x600+0+0")
root.configure(bg="#eef1f5")
status = tk.Label(root, text="ready", font=("DejaVu Sans", 18), bg="#dde3ea", width=40)
status.pack(pady=20)
for row in range(6):
    frame = tk.Frame(root, bg="#eef1f5")
    frame.pack(pady=4)
    for col in range(5):
        tk.Button(frame, text=f"B{row}{col}", width=8).pack(side="left", padx=4)
counter = {"n": 0}


def on_key(event):
    counter["n"] += 1
    status.configure(text=f"key {event.keysym} #{counter['n']}")


root.bind("<KeyPress>", on_key)
root.mainloop()
