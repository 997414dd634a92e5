"""Key tables in a program's code: the keys a program binds or tests through a literal table.

``KEYS = {"Left": left, "Right": right}`` then ``for key, fn in KEYS.items():
root.bind(f"<{key}>", fn)``, or ``if event.keysym in KEYS`` in a ``<Key>``
handler: the table's strings are the keys.  Only literal dicts, lists, tuples
and sets of strings bound to a name (or an attribute) count; a table built at
run time is not known without running the program."""

from __future__ import annotations

import ast

KEY_ATTRS = frozenset({"keysym", "char", "unicode", "text"})
"""The attributes of a key event that hold the key (Tk, pygame, Qt)."""


def table_strings(node: ast.expr) -> list[str]:
    """The string keys of a literal dict, the string items of a literal list, tuple or set."""
    if isinstance(node, ast.Dict):
        elts: list[ast.expr] = [k for k in node.keys if k is not None]
    elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        elts = list(node.elts)
    else:
        return []
    return [e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def table_name(node: ast.expr) -> str | None:
    """``KEYS``, ``self.KEYS``, ``KEYS.items()``, ``KEYS.keys()``: the table's name."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("items", "keys"):
        return table_name(node.func.value)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def string_tables(tree: ast.AST) -> dict[str, list[str]]:
    """Every name (or attribute) the code binds to a literal table of strings, with those strings."""
    tables: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        strings = table_strings(value)
        for target in targets if strings else []:
            name = table_name(target) if isinstance(target, (ast.Name, ast.Attribute)) else None
            if name:
                tables.setdefault(name, []).extend(strings)
    return tables


def loop_variable(node: ast.For) -> str | None:
    """``for key in …`` / ``for key, fn in ….items()``: the name that holds the table's key."""
    target = node.target
    if isinstance(target, ast.Tuple) and target.elts:
        target = target.elts[0]
    return target.id if isinstance(target, ast.Name) else None


def sequences(arg: ast.expr, bound: dict[str, list[str]]) -> list[str]:
    """The Tk sequences a ``bind`` argument can be: a constant, or an f-string or name over a loop's table."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return [arg.value]
    if isinstance(arg, ast.Name) and arg.id in bound:
        return [v if v.startswith("<") or len(v) == 1 else f"<{v}>" for v in bound[arg.id]]
    if isinstance(arg, ast.JoinedStr):
        holes = [v for v in arg.values if isinstance(v, ast.FormattedValue)]
        if len(holes) == 1 and isinstance(holes[0].value, ast.Name) and holes[0].value.id in bound:
            out = []
            for value in bound[holes[0].value.id]:
                out.append("".join(value if isinstance(v, ast.FormattedValue) else str(getattr(v, "value", ""))
                                   for v in arg.values))
            return out
    return []
