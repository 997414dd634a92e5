# SPDX-License-Identifier: GPL-3.0-or-later
# A simple calculator with tkinter.
#
# Click the buttons or just type into the box: digits and + - * / . ( )
# Enter or = works out the answer, Escape clears, the arrow button deletes
# the last character.

import os
import random
import tkinter as tk

from calc import evaluate, format_number

if os.environ.get("PLAYCODER_SEED"):
    random.seed(int(os.environ["PLAYCODER_SEED"]))

root = tk.Tk()
root.title("Calculator")

last = tk.Label(root, text="", font=("Helvetica", 12), anchor="e", fg="grey")
last.grid(row=0, column=0, columnspan=4, sticky="ew", padx=6)

entry = tk.Entry(root, font=("Helvetica", 24), justify="right", width=14)
entry.grid(row=1, column=0, columnspan=4, sticky="nsew", padx=6, pady=(0, 6))


def press(key):
    entry.insert(tk.END, key)


def clear(event=None):
    entry.delete(0, tk.END)
    last.config(text="")


def backspace(event=None):
    text = entry.get()
    entry.delete(0, tk.END)
    entry.insert(0, text[:-1])


def calculate(event=None):
    expression = entry.get()
    # "12+" is just 12
    expression = expression.rstrip("+-*/")
    try:
        answer = format_number(evaluate(expression))
    except ValueError:
        answer = "Error"
    last.config(text=expression + " =")
    entry.delete(0, tk.END)
    entry.insert(0, answer)
    return "break"


buttons = [
    "7", "8", "9", "/",
    "4", "5", "6", "*",
    "1", "2", "3", "-",
    "0", ".", "=", "+",
]

row = 2
col = 0
for b in buttons:
    if b == "=":
        button = tk.Button(root, text=b, font=("Helvetica", 14), width=4, height=2, command=calculate)
    else:
        button = tk.Button(root, text=b, font=("Helvetica", 14), width=4, height=2, command=lambda b=b: press(b))
    button.grid(row=row, column=col, sticky="nsew", padx=2, pady=2)
    col += 1
    if col == 4:
        col = 0
        row += 1

tk.Button(root, text="C", font=("Helvetica", 14), height=2, command=clear).grid(
    row=row, column=0, columnspan=2, sticky="nsew", padx=2, pady=2)
tk.Button(root, text="<-", font=("Helvetica", 14), height=2, command=backspace).grid(
    row=row, column=2, columnspan=2, sticky="nsew", padx=2, pady=2)

root.bind("<Return>", calculate)
root.bind("<KP_Enter>", calculate)
root.bind("<Escape>", clear)
entry.bind("=", calculate)

entry.focus_set()
root.mainloop()
