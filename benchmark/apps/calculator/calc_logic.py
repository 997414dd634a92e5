# SPDX-License-Identifier: GPL-3.0-or-later
"""Pocket-calculator logic for the Calculator sample target (no GUI code).

Immediate execution like a desk calculator: ``12 + 3 * 2 =`` gives 30.
Numbers are decimal.Decimal, so 0.1 + 0.2 shows 0.3.
"""

from decimal import Decimal, DivisionByZero, InvalidOperation, localcontext

OPERATORS = "+-*/"
MAX_DIGITS = 15
ERROR = "Error"

# Tk keysym (or typed character) -> calculator key
KEYSYMS = {
    "plus": "+", "KP_Add": "+", "minus": "-", "KP_Subtract": "-",
    "asterisk": "*", "KP_Multiply": "*", "slash": "/", "KP_Divide": "/",
    "period": ".", "KP_Decimal": ".", "comma": ".",
    "equal": "=", "Return": "=", "KP_Enter": "=",
    "Escape": "C", "Delete": "C", "c": "C", "C": "C",
    "BackSpace": "DEL",
}
for _d in "0123456789":
    KEYSYMS[_d] = _d
    KEYSYMS["KP_" + _d] = _d


def key_for_event(keysym, char=""):
    """Map a keyboard event to a calculator key, or None if it is not one."""
    if keysym in KEYSYMS:
        return KEYSYMS[keysym]
    if char and char in KEYSYMS:
        return KEYSYMS[char]
    if char and (char in OPERATORS or char in ".="):
        return char
    return None


def apply(op, a, b):
    """Apply a binary operator to two Decimals (raises ZeroDivisionError)."""
    with localcontext() as ctx:
        ctx.prec = MAX_DIGITS
        ctx.traps[DivisionByZero] = True
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            if b == 0:
                raise ZeroDivisionError("division by zero")
            return a / b
    raise ValueError("unknown operator %r" % (op,))


def format_number(value):
    """Render a Decimal the way a calculator display shows it."""
    if value == 0:
        return "0"
    value = value.normalize()
    if abs(value) >= Decimal(10) ** MAX_DIGITS or abs(value) < Decimal("1e-9"):
        return "{:.8e}".format(value)
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


class Calculator:
    def __init__(self):
        self.clear()

    def clear(self):
        self.entry = "0"          # what the big display shows
        self.acc = None           # left operand
        self.pending_op = None    # operator waiting for its right operand
        self.fresh = True         # next digit starts a new number
        self.error = False

    @property
    def display(self):
        return self.entry

    def expression(self):
        """The pending part, e.g. '12 +', shown above the display."""
        if self.pending_op is None or self.acc is None:
            return ""
        return "%s %s" % (format_number(self.acc), self.pending_op)

    def _value(self):
        try:
            return Decimal(self.entry)
        except InvalidOperation:
            return Decimal(0)

    def digit(self, d):
        if self.error:
            self.clear()
        if self.fresh:
            self.entry = d
            self.fresh = False
        elif len(self.entry.replace("-", "").replace(".", "")) < MAX_DIGITS:
            self.entry = d if self.entry == "0" else self.entry + d

    def dot(self):
        if self.error:
            self.clear()
        if self.fresh:
            self.entry = "0."
            self.fresh = False
        elif "." not in self.entry:
            self.entry += "."

    def backspace(self):
        if self.error or self.fresh:
            return
        self.entry = self.entry[:-1]
        if self.entry in ("", "-"):
            self.entry = "0"

    def _compute(self):
        try:
            result = apply(self.pending_op, self.acc, self._value())
        except (ZeroDivisionError, InvalidOperation):
            self.entry = ERROR
            self.error = True
            self.acc = None
            self.pending_op = None
            return None
        self.entry = format_number(result)
        return result

    def operator(self, op):
        if op not in OPERATORS:
            raise ValueError("unknown operator %r" % (op,))
        if self.error:
            return
        if self.pending_op is not None and not self.fresh:
            result = self._compute()
            if result is None:
                return
            self.acc = result
        elif self.pending_op is None:
            self.acc = self._value()
        self.pending_op = op
        self.fresh = True

    def equals(self):
        if self.error or self.pending_op is None:
            self.fresh = True
            return
        self._compute()
        self.acc = None
        self.pending_op = None
        self.fresh = True

    def press(self, key):
        """Dispatch a key label: digit, '.', operator, '=', 'C' or 'DEL'."""
        if key in "0123456789" and len(key) == 1:
            self.digit(key)
        elif key == ".":
            self.dot()
        elif key in OPERATORS and len(key) == 1:
            self.operator(key)
        elif key == "=":
            self.equals()
        elif key == "C":
            self.clear()
        elif key == "DEL":
            self.backspace()
        else:
            raise ValueError("unknown key %r" % (key,))
        return self.display
