"""Behaviour-preserving refactorings of the corpus programs: differential play must pass every one.

Generated as the mutants are (:mod:`benchmark.mutants`): from the installed
module's source, every place where a refactoring applies is listed, a
generator seeded with ``(seed, program)`` draws some (kinds taking turns),
and a manifest (``benchmark/corpus/refactorings.json``) records each as text
edits of that source (line, column, end, new text).  At play time the edits
are applied to a scratch **copy** of the module
(:func:`benchmark.mutants.build_copy`, the mutants' launcher); the reference
is the unmodified program.  The kinds:

- ``RenameLocal``: a local variable of a function renamed everywhere in that
  function (not a parameter; not in a function with nested scopes, ``global``,
  ``nonlocal``, ``del``, an ``except ... as`` of that name or ``locals()``).
- ``ExtractFunction``: an expression (an operation or a call, no lambda,
  comprehension, ``yield``, ``await``, ``:=`` or ``super``) moved into a new
  module-level function whose parameters are the names it reads; the call
  replaces the expression.
- ``ReorderStatements``: two adjacent one-line assignments to plain names,
  with no call in either value, neither reading nor writing what the other
  writes, swapped.
- ``EquivalentArithmetic``: ``n * 2`` and ``2 * n`` -> ``n + n`` (``n`` a
  plain name), ``e - C`` -> ``e + (-C)`` (``C`` a number); both are exact in
  IEEE arithmetic.
- ``ContainerType``: a list display that is only read (iterated by ``for``
  or a comprehension, or the right side of ``in``) made a tuple, and a tuple
  there made a list.

Each refactoring is kept only if the new text compiles and differs from the
old.  Nothing here was chosen by looking at how differential play judges it.

    python -m benchmark.refactorings [--programs a,b] [--per-program K] [--seed S] [--out FILE]
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from app import pysyntax
from benchmark.mutants import (CORPUS, SEED, build_copy, corpus_programs, module_file, program_module,
                               take_turns, write_manifest)

MANIFEST = CORPUS / "refactorings.json"
PER_PROGRAM = 5
KINDS = ("RenameLocal", "ExtractFunction", "ReorderStatements", "EquivalentArithmetic", "ContainerType")
NEW_NAME = "refactored_{}"
HELPER = "_refactored_{}"
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
DYNAMIC = {"locals", "vars", "eval", "exec", "globals", "super"}


@dataclass(frozen=True)
class Edit:
    line: int
    col: int
    end_line: int
    end_col: int
    text: str


@dataclass(frozen=True)
class Refactoring:
    id: str
    program: str
    module: str
    file: str
    file_sha256: str
    kind: str
    line: int
    col: int
    before: str
    after: str
    edits: list[Edit] = field(default_factory=list)


def apply_edits(source: str, edits: list[Edit]) -> str:
    """``source`` with every edit made (positions are ast's: 1-based lines, UTF-8 byte columns)."""
    lines = source.encode("utf-8").split(b"\n")
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)
    data = source.encode("utf-8")
    spans = sorted(((starts[e.line - 1] + e.col, starts[e.end_line - 1] + e.end_col, e.text) for e in edits),
                   reverse=True)
    for i in range(1, len(spans)):
        if spans[i][1] > spans[i - 1][0]:
            raise ValueError("overlapping edits")
    for start, end, text in spans:
        data = data[:start] + text.encode("utf-8") + data[end:]
    return data.decode("utf-8")


def _segment(source_lines: list[bytes], node: ast.AST) -> str:
    line, col = node.lineno, node.col_offset  # type: ignore[attr-defined]
    end_line, end_col = node.end_lineno, node.end_col_offset  # type: ignore[attr-defined]
    if line == end_line:
        return source_lines[line - 1][col:end_col].decode("utf-8")
    parts = [source_lines[line - 1][col:], *source_lines[line:end_line - 1], source_lines[end_line - 1][:end_col]]
    return b"\n".join(parts).decode("utf-8")


def _edit(node: ast.AST, text: str) -> Edit:
    return Edit(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, text)  # type: ignore[attr-defined]


def _reads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _writes(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}


def _renames(tree: ast.Module, used: set[str]) -> Iterator[tuple[ast.AST, str, str, list[Edit]]]:
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        inner = [n for stmt in fn.body for n in ast.walk(stmt)]
        if any(isinstance(n, (*SCOPES, ast.Global, ast.Nonlocal, ast.Delete, ast.Import, ast.ImportFrom,
                              ast.JoinedStr, ast.MatchAs, ast.MatchStar, ast.MatchMapping)) for n in inner):
            continue
        if any(isinstance(n, ast.Name) and n.id in DYNAMIC for n in inner):
            continue
        params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs,
                                  *([fn.args.vararg] if fn.args.vararg else []),
                                  *([fn.args.kwarg] if fn.args.kwarg else [])]}
        caught = {n.name for n in inner if isinstance(n, ast.ExceptHandler) and n.name}
        stored = sorted({n.id for n in inner if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                        - params - caught)
        for name in stored:
            new = NEW_NAME.format(name)
            if new in used:
                continue
            edits = [_edit(n, new) for n in inner if isinstance(n, ast.Name) and n.id == name]
            yield fn, name, new, edits


def _extractable(node: ast.AST) -> bool:
    if not isinstance(node, (ast.BinOp, ast.Call)):
        return False
    for n in ast.walk(node):
        if isinstance(n, (ast.Lambda, *COMPREHENSIONS, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await,
                          ast.Starred, ast.JoinedStr)):
            return False
        if isinstance(n, ast.Name) and (n.id in DYNAMIC or n.id.startswith("__")):
            return False
        if isinstance(n, ast.keyword) and n.arg is None:
            return False
    return True


def _insert_at(tree: ast.Module) -> int:
    """The line before which a new module-level function goes: after the docstring and ``__future__``."""
    line = 1
    for i, stmt in enumerate(tree.body):
        docstring = i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
        if docstring or (isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"):
            line = stmt.end_lineno + 1  # type: ignore[operator]
        else:
            break
    return line


def _pure(node: ast.AST) -> bool:
    return all(isinstance(n, (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Tuple, ast.List,
                              ast.Load, ast.Store, ast.operator, ast.unaryop)) for n in ast.walk(node))


def _blocks(tree: ast.Module) -> Iterator[list[ast.stmt]]:
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def _whole_line(lines: list[bytes], stmt: ast.stmt) -> bool:
    if stmt.lineno != stmt.end_lineno:
        return False
    text = lines[stmt.lineno - 1]
    return text[:stmt.col_offset].strip() == b"" and text[stmt.end_col_offset:].strip() == b""  # type: ignore[index]


def _places(tree: ast.Module, source: str) -> Iterator[tuple[str, ast.AST, str, str, list[Edit]]]:
    """(kind, where, before, after, edits) for every place a refactoring applies."""
    lines = source.encode("utf-8").split(b"\n")
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    for fn, name, new, edits in _renames(tree, used):
        yield "RenameLocal", fn, f"{name} in {fn.name}()", f"{new} in {fn.name}()", edits  # type: ignore[attr-defined]
    top = _insert_at(tree)
    for n, node in enumerate(x for x in ast.walk(tree) if _extractable(x)):
        if node.lineno < top:  # type: ignore[attr-defined]
            continue
        params = sorted(_reads(node))
        helper = HELPER.format(n)
        if helper in used:
            continue
        text = _segment(lines, node)
        body = f"def {helper}({', '.join(params)}):\n    return ({text})\n\n\n"
        yield ("ExtractFunction", node, text, f"{helper}({', '.join(params)})",
               [_edit(node, f"{helper}({', '.join(params)})"), Edit(top, 0, top, 0, body)])
    for block in _blocks(tree):
        for a, b in zip(block, block[1:]):
            if not all(isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                       and _pure(s.value) and _whole_line(lines, s) and s.col_offset == block[0].col_offset
                       for s in (a, b)):
                continue
            if _writes(a) & (_reads(b) | _writes(b)) or _writes(b) & _reads(a):
                continue
            ta, tb = _segment(lines, a), _segment(lines, b)
            yield "ReorderStatements", a, f"{ta}; {tb}", f"{tb}; {ta}", [_edit(a, tb), _edit(b, ta)]
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            for operand, two in ((node.left, node.right), (node.right, node.left)):
                if isinstance(operand, ast.Name) and isinstance(two, ast.Constant) and type(two.value) is int \
                        and two.value == 2:
                    yield ("EquivalentArithmetic", node, _segment(lines, node), f"({operand.id} + {operand.id})",
                           [_edit(node, f"({operand.id} + {operand.id})")])
                    break
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and isinstance(node.right, ast.Constant) \
                and type(node.right.value) in (int, float):
            left = _segment(lines, node.left)
            after = f"({left} + (-{_segment(lines, node.right)}))"
            yield "EquivalentArithmetic", node, _segment(lines, node), after, [_edit(node, after)]
    read_only: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            read_only.append(node.iter)
        if isinstance(node, ast.Compare):
            read_only.extend(c for op, c in zip(node.ops, node.comparators) if isinstance(op, (ast.In, ast.NotIn)))
    for node in read_only:
        if isinstance(node, ast.List) and not any(isinstance(e, ast.Starred) for e in node.elts):
            inside = ", ".join(_segment(lines, e) for e in node.elts)
            after = f"({inside},)" if len(node.elts) == 1 else f"({inside})"
            yield "ContainerType", node, _segment(lines, node), after, [_edit(node, after)]
        elif isinstance(node, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in node.elts):
            after = "[" + ", ".join(_segment(lines, e) for e in node.elts) + "]"
            yield "ContainerType", node, _segment(lines, node), after, [_edit(node, after)]


def refactorings_of(folder: Path, per_program: int, seed: int) -> list[Refactoring]:
    """``per_program`` refactorings of the program, drawn with a generator seeded by (seed, program); each
    compiles and changes the text."""
    from benchmark.mutants import _shown

    module = program_module(folder)
    path, _ = module_file(module)
    source = path.read_text(encoding="utf-8")
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()
    tree = pysyntax.parse(source)
    found: list[Refactoring] = []
    for kind, node, before, after, edits in _places(tree, source):
        line, col = node.lineno, node.col_offset  # type: ignore[attr-defined]
        found.append(Refactoring(f"{folder.name}~{kind}@{line}:{col}", folder.name, module, _shown(path), digest,
                                 kind, line, col, before, after, edits))
    found.sort(key=lambda r: (r.line, r.col, r.kind, r.after))
    rng = random.Random(f"refactor:{seed}:{folder.name}")
    order = take_turns(found, KINDS, lambda r: r.kind, rng)
    chosen: list[Refactoring] = []
    seen: set[str] = set()
    for r in order:
        if len(chosen) >= per_program:
            break
        if r.id in seen:
            continue
        try:
            text = apply_edits(source, r.edits)
            pysyntax.compile_tree(pysyntax.parse(text, str(path)), str(path))
        except (SyntaxError, ValueError):
            continue
        if text == source:
            continue
        seen.add(r.id)
        chosen.append(r)
    return chosen


def build_target(r: Refactoring, corpus_folder: Path, out: Path) -> Path:
    """A scratch target folder playing the refactored copy (the mutants' launcher and checks)."""
    return build_copy(r.module, r.file_sha256, lambda source: apply_edits(source, r.edits), corpus_folder, out)


def load_manifest(path: Path = MANIFEST) -> list[Refactoring]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Refactoring(**{**r, "edits": [Edit(**e) for e in r["edits"]]}) for r in data["refactorings"]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmark.refactorings", description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", default="", help="comma-separated corpus programs (default: all)")
    ap.add_argument("--per-program", type=int, default=PER_PROGRAM)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", type=Path, default=MANIFEST)
    args = ap.parse_args(argv)
    folders = corpus_programs([n for n in args.programs.split(",") if n] or None)
    found: list[Refactoring] = []
    for folder in folders:
        found.extend(refactorings_of(folder, args.per_program, args.seed))
    print(write_manifest(args.out, {"seed": args.seed, "per_program": args.per_program, "kinds": list(KINDS)},
                         "refactorings", found, [r.kind for r in found], len(folders)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
