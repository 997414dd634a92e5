"""Values that matter: what a tester types and computes, taken from the program itself.

Coverage cannot tell 4 ÷ 2 from 7 ÷ 2: a program whose results are truncated, or that breaks on a
division by zero, runs the same lines for both.  So, as fuzzers learn the operands a program compares
against, the explorer reads the program's code for the constants it compares with and the formats it
parses (``int(...)``, ``float(...)``, a date), and plays:

- *calculations* on a calculator's own buttons (or the keys it reads): each operator on operands whose
  result is not an integer, and a division by zero;
- *whole forms*: every entry in sight given a plausible value (a number where the code parses one, a
  word elsewhere), then the form's submit button, so an "Add" that needs two valid fields succeeds once.

Each is a :class:`~app.engine.testers.explore.forms.Plan` the explorer counts like any other.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from app import pysyntax
from app.engine.play.actions import Action, Click, Press, Type
from app.engine.testers.explore.forms import Box, Plan, center
from app.engine.testers.explore.keys_from_code import MAX_FILE_BYTES, ReadInputs, program_files

MAX_CODE_VALUES = 4
"""Constants of the program's own kept per kind (numbers, words): the first ones its code compares with."""
MAX_WORD_LEN = 24
NUMBER = "12.5"
"""A plausible amount where the code parses a number and names none of its own."""
WORD = "milk"
"""A plausible word for a text field (a name, a category, a title)."""
DATE = "2024-01-31"
OPERANDS = ("7", "2")
"""7 op 2: a non-integer quotient (3.5), a negative difference the other way round is not needed here."""
OPERATORS = {"/": "/", "÷": "/", "*": "*", "×": "*", "-": "-", "−": "-", "+": "+", "x": "*"}
"""Operator labels and their keys, division first: the operator whose result is least often an integer."""
EQUALS = ("=", "enter", "return")
CLEARS = ("c", "ac", "ce", "clear", "cl", "clr")
"""A calculator's clear button: pressed first, so a sum starts from nothing (not from a pending operation)."""
CLEAR_KEYS = ("escape", "delete", "c")
SUBMIT_WORDS = ("add", "save", "submit", "ok", "calculate", "compute", "convert", "create", "apply", "send",
                "enter", "go", "log in", "login", "sign", "insert", "record", "book", "register", "search")
MAX_FORM_FIELDS = 6
MAX_FORM_PLANS = 5


@dataclass(frozen=True)
class CodeValues:
    """What the program's code compares with and parses."""

    numbers: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    parses: frozenset[str] = frozenset()
    """``int``, ``float``, ``date``: the formats the code turns text into."""


def values_from_folder(folder: Path) -> CodeValues:
    numbers: list[str] = []
    words: list[str] = []
    parses: set[str] = set()
    for path in program_files(folder):
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            tree = pysyntax.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (OSError, SyntaxError, ValueError, RecursionError):
            continue
        _scan(tree, numbers, words, parses)
    return CodeValues(tuple(numbers[:MAX_CODE_VALUES]), tuple(words[:MAX_CODE_VALUES]), frozenset(parses))


def _scan(tree: ast.AST, numbers: list[str], words: list[str], parses: set[str]) -> None:
    """In the order of the source: the first constants compared with are kept."""
    nodes = sorted((n for n in ast.walk(tree) if isinstance(n, (ast.Call, ast.Compare))),
                   key=lambda n: (n.lineno, n.col_offset))
    for node in nodes:
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("int", "float", "Decimal", "Fraction"):
                parses.add("int" if name == "int" else "float")
            elif name in ("strptime", "fromisoformat", "date"):
                parses.add("date")
        elif isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                for const in _constants(side):
                    _keep(const, numbers, words)


def _constants(node: ast.expr) -> list[object]:
    if isinstance(node, ast.Constant):
        return [node.value]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        return [-value] if isinstance(value, (int, float)) and not isinstance(value, bool) else []
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant)]
    return []


def _keep(value: object, numbers: list[str], words: list[str]) -> None:
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, (int, float)) and math.isfinite(value) and abs(value) < 1e9:
        text = repr(value)
        if text not in numbers:
            numbers.append(text)
    elif isinstance(value, str) and 1 < len(value) <= MAX_WORD_LEN and value.isprintable() and value not in words:
        words.append(value)


def code_entry_values(values: CodeValues) -> list[tuple[str, str]]:
    """Values for one entry that come from the code: the words and numbers it compares with, each probed once."""
    out = [(w, f"the word {w!r} the code compares with") for w in values.words]
    out += [(n, f"the number {n} the code compares with") for n in values.numbers if n not in ("0", "-1")]
    if "date" in values.parses:
        out.append((DATE, "a date in the format the code parses"))
    return out


def calculation_plans(buttons: Sequence[tuple[Box, str]], reads: ReadInputs) -> list[Plan]:
    """On a calculator: each operator between operands with a non-integer result, and a division by zero,
    on its buttons when it shows them, else on the keys its code reads."""
    by_text = {text.strip().lower(): box for box, text in buttons if text and text.strip()}
    if all(d in by_text for d in "0123456789") or all(d in by_text for d in ("7", "2", "1", "0")):
        return _button_calculations(by_text)
    keys = set(reads.keys) - reads.quits
    if {"7", "2", "1", "0"} <= keys:
        return _key_calculations(keys)
    return []


def _button_calculations(by_text: dict[str, Box]) -> list[Plan]:
    equals = next((by_text[e] for e in EQUALS if e in by_text), None)
    if equals is None:
        return []
    clear = next((by_text[c] for c in CLEARS if c in by_text), None)
    start: tuple[Action, ...] = (Click(*center(clear)),) if clear is not None else ()
    plans = []
    for label, op in OPERATORS.items():
        box = by_text.get(label)
        if box is None:
            continue
        sums = [OPERANDS] + ([("1", "0")] if op == "/" else [])
        for a, b in sums:
            clicks = start + tuple(Click(*center(by_text[ch])) for ch in a) + (Click(*center(box)),)
            clicks += tuple(Click(*center(by_text[ch])) for ch in b) + (Click(*center(equals)),)
            plans.append(Plan(f"calculate {a} {label} {b} = on the buttons", clicks))
    return plans


def _key_calculations(keys: set[str]) -> list[Plan]:
    equals = next((e for e in EQUALS if e in keys), None)
    if equals is None:
        return []
    clear = next((c for c in CLEAR_KEYS if c in keys), None)
    start: tuple[Action, ...] = (Press(clear),) if clear is not None else ()
    plans = []
    for op in dict.fromkeys(OPERATORS.values()):
        if op not in keys:
            continue
        for a, b in [OPERANDS] + ([("1", "0")] if op == "/" else []):
            presses: tuple[Action, ...] = (*start, Press(a), Press(op), Press(b), Press(equals))
            plans.append(Plan(f"calculate {a} {op} {b} {equals} on the keys", presses))
    return plans


def form_plans(entries: Sequence[Box], buttons: Sequence[tuple[Box, str]], values: CodeValues) -> list[Plan]:
    """Two or more entries in sight: fill every one, then submit (the button whose word says so, else Enter).
    First every entry a number where the code parses numbers (an amount, a quantity), then each entry in turn
    a word with the others numbers (a name or a category beside an amount), then every entry a word."""
    fields = sorted(entries, key=lambda b: (b[1], b[0]))[:MAX_FORM_FIELDS]
    if len(fields) < 2:
        return []
    submit = next((box for box, text in buttons if any(w == text.strip().lower() or text.strip().lower().startswith(w)
                                                       for w in SUBMIT_WORDS)), None)
    number = next((n for n in values.numbers if n not in ("0", "-1")), NUMBER)
    word = values.words[0] if values.words else WORD
    numeric = bool(values.parses & {"int", "float"})
    fills: list[tuple[str, ...]] = []
    if numeric:
        fills.append(tuple(number for _ in fields))
        fills += [tuple(word if i == j else number for j in range(len(fields))) for i in range(len(fields))]
    fills.append(tuple(word for _ in fields))
    plans = []
    for fill in fills[:MAX_FORM_PLANS]:
        actions: list[Action] = []
        for box, value in zip(fields, fill):
            actions += [Click(*center(box)), Type(value)]
        actions.append(Click(*center(submit)) if submit is not None else Press("enter"))
        how = "its submit button" if submit is not None else "Enter"
        plans.append(Plan(f"fill the form of {len(fields)} fields with {', '.join(fill)}, then {how}",
                          tuple(actions)))
    return plans

