"""Repair templates over Python's ast: small, source-preserving edits at one line.

Each template looks at the nodes that start on a given line and proposes
replacements of their *source segment* (so the diff touches only what
changed and keeps comments and formatting).  The templates are the classic
mutation operators run in reverse, plus a few guards and fix patterns:

compare-flip, boolop-flip, bool-const, off-by-one (integer constants and
range bounds), negate (add or remove ``not``), swap-operands (``-``, ``/``,
``//``, ``%``), arith-flip (``+``/``-``, ``*``/``/``), assign-aug (``=`` vs
``+=``), while-to-if, insert-break, index-modulo and index-clamp (for an
IndexError), zero-guard (for a ZeroDivisionError), guard-none, try-except,
delete (a statement becomes ``pass``), similar-name (a name or module
attribute replaced by a near-identical one that exists), and two
program-level patterns: dead-method (call a method that nothing calls) and
missing-present (a pygame loop that never presents its frame).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable, Iterator

from app import pysyntax

COMPARE_FLIPS: dict[type, tuple[type, ...]] = {
    ast.Lt: (ast.LtE, ast.Gt, ast.GtE), ast.LtE: (ast.Lt, ast.GtE, ast.Gt), ast.Gt: (ast.GtE, ast.Lt, ast.LtE),
    ast.GtE: (ast.Gt, ast.LtE, ast.Lt), ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,), ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,), ast.In: (ast.NotIn,), ast.NotIn: (ast.In,),
}
ARITH_FLIPS: dict[type, tuple[type, ...]] = {
    ast.Add: (ast.Sub,), ast.Sub: (ast.Add,), ast.Mult: (ast.Div, ast.FloorDiv), ast.Div: (ast.Mult, ast.FloorDiv),
    ast.FloorDiv: (ast.Div, ast.Mult),
}
SWAPPABLE = (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
MAX_NAME_DISTANCE = 2
MAX_NAME_NEIGHBOURS = 3
"""A name with more near-identical neighbours than this (K_r: K_a … K_z) is too ambiguous to guess."""


@dataclass(frozen=True)
class Mutation:
    path: str
    line: int
    template: str
    description: str
    new_source: str


class SourceEditor:
    """One file's text with helpers to replace a node's segment or insert lines."""

    def __init__(self, path: str, source: str) -> None:
        self.path = path
        self.source = source
        self.lines = source.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, lineno: int, col: int) -> int:
        line = self.lines[lineno - 1]
        return self.starts[lineno - 1] + len(line.encode("utf-8")[:col].decode("utf-8", errors="ignore"))

    def segment(self, node: ast.AST) -> str:
        return self.source[self._span(node)[0]:self._span(node)[1]]

    def _span(self, node: ast.AST) -> tuple[int, int]:
        return (self.offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
                self.offset(node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]

    def replace(self, node: ast.AST, text: str) -> str:
        a, b = self._span(node)
        return self.source[:a] + text + self.source[b:]

    def indent_of(self, lineno: int) -> str:
        line = self.lines[lineno - 1]
        return line[:len(line) - len(line.lstrip())]

    def insert_before(self, lineno: int, text_lines: list[str]) -> str:
        ind = self.indent_of(lineno)
        block = "".join(ind + t + "\n" for t in text_lines)
        return self.source[:self.starts[lineno - 1]] + block + self.source[self.starts[lineno - 1]:]

    def insert_after(self, stmt: ast.stmt, text_lines: list[str], indent: str | None = None) -> str:
        ind = self.indent_of(stmt.lineno) if indent is None else indent
        end = stmt.end_lineno or stmt.lineno
        block = "".join(ind + t + "\n" for t in text_lines)
        at = self.starts[end]
        prefix = self.source[:at] if self.source[:at].endswith("\n") else self.source[:at] + "\n"
        return prefix + block + self.source[at:]

    def wrap_try(self, stmt: ast.stmt) -> str:
        ind = self.indent_of(stmt.lineno)
        body = "".join("    " + ln if ln.strip() else ln for ln in self.lines[stmt.lineno - 1:stmt.end_lineno])
        block = f"{ind}try:\n{body}{ind}except Exception:\n{ind}    pass\n"
        return self.source[:self.starts[stmt.lineno - 1]] + block + self.source[self.starts[stmt.end_lineno or stmt.lineno]:]


def distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def referenced_names(tree: ast.AST, source: str) -> set[str]:
    """Every attribute and name a file reads, plus identifiers in its strings (getattr, bindings by name)."""
    used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    used |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return used | set(re.findall(r"[\"'](\w+)[\"']", source))


def _short(text: str, limit: int = 72) -> str:
    first = text.strip().splitlines()[0] if text.strip() else text
    more = first != text.strip()
    return (first[:limit] + "…") if len(first) > limit or more else first


def _same_style(a: str, b: str) -> bool:
    return a.isupper() == b.isupper() and a[:1].isupper() == b[:1].isupper()


class Mutator:
    """Proposes :class:`Mutation` s for one file; ``module_names`` looks up a module's attributes."""

    def __init__(self, path: str, source: str, module_names: Callable[[str], list[str]] | None = None) -> None:
        self.ed = SourceEditor(path, source)
        self.tree = pysyntax.parse(source)
        self.path = path
        self.module_names = module_names or (lambda name: [])
        self.parents: dict[ast.AST, ast.AST] = {}
        for parent in ast.walk(self.tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[child] = parent
        self.imported_modules = {a.asname or a.name: a.name for n in ast.walk(self.tree) if isinstance(n, ast.Import)
                                 for a in n.names}
        self.top_names = sorted(self._top_level_names())

    def _top_level_names(self) -> set[str]:
        names: set[str] = set()
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.ImportFrom):
                names |= {a.asname or a.name for a in node.names}
        return names

    def _mut(self, line: int, template: str, what: str, new_source: str) -> Mutation:
        return Mutation(self.path, line, template, f"{self.path}:{line} {template}: {what}", new_source)

    def _swap_text(self, node: ast.AST, new: ast.AST, line: int, template: str) -> Mutation:
        old_text, new_text = self.ed.segment(node), ast.unparse(new)
        return self._mut(line, template, f"{_short(old_text)} -> {_short(new_text)}", self.ed.replace(node, new_text))

    def at_line(self, line: int, templates: tuple[str, ...]) -> Iterator[Mutation]:
        """Mutations of the statement at ``line``: its own expressions, continuation lines included.

        A line inside a statement (a traceback may point at a continuation
        line) selects that statement's expressions on that line only.
        """
        stmts = [n for n in ast.walk(self.tree) if isinstance(n, ast.stmt) and n.lineno == line]
        exprs = [n for n in ast.walk(self.tree) if isinstance(n, ast.expr) and
                 (n.lineno == line or self._owner(n) in stmts)]
        for template in templates:
            gen = getattr(self, "_t_" + template.replace("-", "_"), None)
            if gen is not None:
                yield from gen(line, stmts, exprs)

    def _owner(self, node: ast.AST) -> ast.AST | None:
        """The innermost statement holding ``node``."""
        p = self.parents.get(node)
        while p is not None and not isinstance(p, ast.stmt):
            p = self.parents.get(p)
        return p

    # -- expression templates -----------------------------------------------------
    def _t_compare_flip(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        for n in exprs:
            if isinstance(n, ast.Compare) and len(n.ops) == 1:
                for op in COMPARE_FLIPS.get(type(n.ops[0]), ()):
                    yield self._swap_text(n, ast.Compare(n.left, [op()], n.comparators), line, "compare-flip")

    def _t_boolop_flip(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        for n in exprs:
            if isinstance(n, ast.BoolOp):
                op = ast.Or() if isinstance(n.op, ast.And) else ast.And()
                yield self._swap_text(n, ast.BoolOp(op, n.values), line, "boolop-flip")

    def _t_bool_const(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        for n in exprs:
            if isinstance(n, ast.Constant) and isinstance(n.value, bool):
                yield self._swap_text(n, ast.Constant(not n.value), line, "bool-const")

    def _t_off_by_one(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        for n in exprs:
            if isinstance(n, ast.Constant) and type(n.value) is int:
                for v in (n.value + 1, n.value - 1):
                    yield self._swap_text(n, ast.Constant(v), line, "off-by-one")
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "range" and n.args:
                bound = n.args[-1]
                if not isinstance(bound, ast.Constant):
                    for op in (ast.Add(), ast.Sub()):
                        yield self._swap_text(bound, ast.BinOp(bound, op, ast.Constant(1)), line, "off-by-one")

    def _t_negate(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        for s in stmts:
            if isinstance(s, (ast.If, ast.While)):
                t = s.test
                new = t.operand if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not) else ast.UnaryOp(ast.Not(), t)
                yield self._swap_text(t, new, line, "negate")
        for n in exprs:
            if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not) and not isinstance(self.parents.get(n), (ast.If, ast.While)):
                yield self._swap_text(n, n.operand, line, "negate")

    def _t_swap_operands(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        for n in exprs:
            if isinstance(n, ast.BinOp) and isinstance(n.op, SWAPPABLE):
                yield self._swap_text(n, ast.BinOp(n.right, n.op, n.left), line, "swap-operands")

    def _t_arith_flip(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        for n in exprs:
            if isinstance(n, ast.BinOp):
                for op in ARITH_FLIPS.get(type(n.op), ()):
                    yield self._swap_text(n, ast.BinOp(n.left, op(), n.right), line, "arith-flip")

    def _t_assign_aug(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        for s in stmts:
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], (ast.Name, ast.Attribute)):
                for op in (ast.Add(), ast.Sub()):
                    yield self._swap_text(s, ast.AugAssign(s.targets[0], op, s.value), line, "assign-aug")
            elif isinstance(s, ast.AugAssign):
                yield self._swap_text(s, ast.Assign([s.target], s.value, lineno=0), line, "assign-aug")
                if isinstance(s.op, (ast.Add, ast.Sub)):
                    flipped = ast.Sub() if isinstance(s.op, ast.Add) else ast.Add()
                    yield self._swap_text(s, ast.AugAssign(s.target, flipped, s.value), line, "assign-aug")

    def _t_index_modulo(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        for n in exprs:
            if isinstance(n, ast.Subscript) and not isinstance(n.slice, (ast.Slice, ast.Tuple, ast.Constant)):
                length = ast.Call(ast.Name("len"), [n.value], [])
                mod = ast.Subscript(n.value, ast.BinOp(n.slice, ast.Mod(), length))
                yield self._swap_text(n, mod, line, "index-modulo")

    def _t_index_clamp(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        for n in exprs:
            if isinstance(n, ast.Subscript) and not isinstance(n.slice, (ast.Slice, ast.Tuple, ast.Constant)):
                last = ast.BinOp(ast.Call(ast.Name("len"), [n.value], []), ast.Sub(), ast.Constant(1))
                clamp = ast.Call(ast.Name("max"), [ast.Constant(0), ast.Call(ast.Name("min"), [n.slice, last], [])], [])
                yield self._swap_text(n, ast.Subscript(n.value, clamp), line, "index-clamp")

    def _t_zero_guard(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        for n in exprs:
            if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.FloorDiv, ast.Mod)):
                guarded = ast.IfExp(n.right, n, ast.Constant(0))
                text = f"({ast.unparse(guarded)})"
                yield self._mut(line, "zero-guard", f"{self.ed.segment(n)} -> {text}", self.ed.replace(n, text))

    def _t_similar_name(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        for n in exprs:
            pool: list[str] = []
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                old, pool = n.id, self.top_names
            elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in self.imported_modules:
                old, pool = n.attr, self.module_names(self.imported_modules[n.value.id])
            else:
                continue
            close = sorted((d, c) for d, c in ((distance(old, c), c) for c in pool
                           if c != old and _same_style(old, c) and abs(len(c) - len(old)) <= MAX_NAME_DISTANCE)
                           if d <= MAX_NAME_DISTANCE)
            if len(close) > MAX_NAME_NEIGHBOURS:
                continue
            for _, name in close:
                new = ast.Name(name) if isinstance(n, ast.Name) else ast.Attribute(n.value, name)  # type: ignore[attr-defined]
                yield self._swap_text(n, new, line, "similar-name")

    # -- statement templates --------------------------------------------------------
    def _t_while_to_if(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        for s in stmts:
            if isinstance(s, ast.While) and not s.orelse:
                at = self.ed.offset(s.lineno, s.col_offset)
                if self.ed.source.startswith("while", at):
                    new = self.ed.source[:at] + "if" + self.ed.source[at + len("while"):]
                    yield self._mut(line, "while-to-if", "the loop runs its body at most once", new)

    def _t_insert_break(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        for s in stmts:
            if isinstance(s, ast.While):
                last = s.body[-1]
                yield self._mut(line, "insert-break", "leave the loop after one pass",
                                self.ed.insert_after(last, ["break"], self.ed.indent_of(s.body[0].lineno)))

    def _t_guard_none(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        names = sorted({n.value.id for n in exprs if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                        and n.value.id not in self.imported_modules and n.value.id != "self"})
        for s in stmts[:1]:
            if self._in_function(s):
                for name in names:
                    yield self._mut(line, "guard-none", f"return early when {name} is None",
                                    self.ed.insert_before(s.lineno, [f"if {name} is None:", "    return"]))

    def _t_try_except(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        for s in stmts[:1]:
            if isinstance(s, (ast.Expr, ast.Assign, ast.AugAssign)):
                yield self._mut(line, "try-except", "ignore an exception raised by this statement", self.ed.wrap_try(s))

    def _t_delete(self, line: int, stmts: list[ast.stmt], exprs: list[ast.expr]) -> Iterator[Mutation]:
        for s in stmts[:1]:
            docstring = isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
            if not docstring and not isinstance(s, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef, ast.Import,
                                                    ast.ImportFrom)):
                yield self._swap_text(s, ast.Pass(), line, "delete")

    def _in_function(self, node: ast.AST) -> bool:
        p = self.parents.get(node)
        while p is not None:
            if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return True
            p = self.parents.get(p)
        return False

    # -- program-level patterns -----------------------------------------------------
    def dead_method_calls(self, used_elsewhere: set[str] = frozenset()) -> Iterator[Mutation]:  # type: ignore[assignment]
        """Call each argument-less, value-less method nothing refers to, at the end of its class's ``__init__``.

        A method that only does something (returns nothing) and that no file
        of the program calls or names is most often a call that got lost.
        """
        used = set(used_elsewhere) | referenced_names(self.tree, self.ed.source)
        for cls in [n for n in ast.walk(self.tree) if isinstance(n, ast.ClassDef)]:
            init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
            if init is None:
                continue
            for f in cls.body:
                returns_value = any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(f))
                if isinstance(f, ast.FunctionDef) and not f.name.startswith("__") and f.name not in used \
                        and len(f.args.args) == 1 and not f.decorator_list and not returns_value:
                    last = init.body[-1]
                    yield self._mut(last.lineno, "dead-method", f"call self.{f.name}(), which nothing calls",
                                    self.ed.insert_after(last, [f"self.{f.name}()"]))

    def missing_present(self) -> Iterator[Mutation]:
        """A pygame main loop that draws but never calls display.flip()/update(): present after drawing."""
        if "pygame" not in self.imported_modules or re.search(r"display\.(flip|update)\s*\(", self.ed.source):
            return
        for loop in [n for n in ast.walk(self.tree) if isinstance(n, ast.While)]:
            for s in loop.body:
                if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and \
                        re.match(r"(draw|render|paint|redraw)", ast.unparse(s.value.func).split(".")[-1]):
                    yield self._mut(s.lineno, "missing-present", "present the drawn frame with pygame.display.flip()",
                                    self.ed.insert_after(s, ["pygame.display.flip()"]))
