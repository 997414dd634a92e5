"""A Tk app whose button builds the next scene slowly (~120 ms), as real programs loading a level do."""
import time
import tkinter as tk

root = tk.Tk()
root.title("Slow")
root.geometry("300x200+0+0")
state = {"n": 0}
label = tk.Label(root, text="scene 0", font=("DejaVu Sans", 18))
label.pack(pady=20)


def next_scene(event=None):
    def build():
        time.sleep(0.12)  # load the next level
        state["n"] += 1
        label.config(text=f"scene {state['n']}")
    root.after(40, build)


tk.Button(root, text="Next", command=next_scene).pack()
root.bind("<space>", next_scene)
root.mainloop()
