"""A Tk form: an entry, Add, a list whose selected row Delete removes, Ctrl+N clears; it prints what it does."""
import tkinter as tk

root = tk.Tk()
root.title("Form")
root.geometry("300x260+0+0")
entry = tk.Entry(root, width=24)
entry.pack(pady=6)
items = tk.Listbox(root, height=6)
items.pack(fill="x", padx=8)


def add(event=None):
    text = entry.get()
    print(f"added {text!r}", flush=True)
    if text:
        items.insert("end", text)
    entry.delete(0, "end")


def delete(event=None):
    chosen = items.curselection()
    print(f"deleted {list(chosen)}", flush=True)
    for i in reversed(chosen):
        items.delete(i)


def clear(event=None):
    print("cleared", flush=True)
    items.delete(0, "end")


tk.Button(root, text="Add", command=add).pack(pady=4)
entry.bind("<Return>", add)
items.bind("<Delete>", delete)
root.bind_all("<Control-n>", clear)
for word in ("milk", "eggs", "bread"):
    items.insert("end", word)
root.mainloop()
