"""Test target: a Tk menubar (drawn in one window) over an editor, written the ordinary way.

Logs ``menu <item>`` for every menu command chosen.
"""
import tkinter as tk

root = tk.Tk()
root.title("Menus")
root.geometry("320x220")
bar = tk.Menu(root)
for title, items in (("File", ("New", "Open")), ("Edit", ("Undo",))):
    menu = tk.Menu(bar, tearoff=0)
    for item in items:
        menu.add_command(label=item, command=lambda item=item: print(f"menu {item.lower()}", flush=True))
    bar.add_cascade(label=title, menu=menu)
root.config(menu=bar)
tk.Text(root).pack(fill="both", expand=True)
print("menus started", flush=True)
root.mainloop()
