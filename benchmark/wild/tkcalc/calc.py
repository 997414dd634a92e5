# SPDX-License-Identifier: GPL-3.0-or-later
# The maths behind the calculator: evaluate what was typed and format the answer.

ALLOWED = set("0123456789+-*/.() ")


def evaluate(expression):
    """Work out an expression like '12+3*4'. Raises ValueError if it makes no sense."""
    expression = expression.replace("x", "*").replace("÷", "/")
    if not expression.strip() or not set(expression) <= ALLOWED:
        raise ValueError("bad expression")
    try:
        result = eval(expression, {"__builtins__": {}}, {})
    except (SyntaxError, ZeroDivisionError, TypeError):
        raise ValueError("bad expression")
    return result


def format_number(value):
    """12.0 -> '12', 0.1+0.2 -> '0.3', 2/3 -> '0.6666666667'"""
    value = round(float(value), 10)
    if value == int(value):
        return str(int(value))
    return str(value)
