"""Test target: logs every input event it receives, one line each, on stdout."""
import tkinter as tk

root = tk.Tk()
root.title("Probe")
root.geometry("400x300+0+0")
canvas = tk.Canvas(root, width=400, height=300, bg="#203040", highlightthickness=0)
canvas.pack(fill="both", expand=True)
label = canvas.create_text(200, 150, text="ready", fill="white", font=("DejaVu Sans", 16))


def log(text):
    print(text, flush=True)
    canvas.itemconfigure(label, text=text)


canvas.bind("<Button-1>", lambda e: log(f"click 1 {e.x} {e.y}"))
canvas.bind("<Double-Button-1>", lambda e: log(f"double 1 {e.x} {e.y}"))
canvas.bind("<Button-3>", lambda e: log(f"click 3 {e.x} {e.y}"))
canvas.bind("<Button-4>", lambda e: log("scroll up"))
canvas.bind("<Button-5>", lambda e: log("scroll down"))
canvas.bind("<B1-Motion>", lambda e: print(f"drag {e.x} {e.y}", flush=True))
canvas.bind("<ButtonRelease-1>", lambda e: log(f"release 1 {e.x} {e.y}"))
root.bind("<KeyPress>", lambda e: log(f"key {e.keysym} {e.state & 0x4 and 'ctrl' or ''} {e.char!r}"))
canvas.focus_set()
print("probe started", flush=True)
root.mainloop()
