"""Mutants of web programs: mutation operators applied to the JavaScript (or TypeScript) syntax tree.

The operators follow Stryker's mutator set (its names are kept, so results read beside Stryker's):

- ``ArithmeticOperator``: ``+`` <-> ``-``, ``*`` <-> ``/``, ``%`` -> ``*`` (not where an operand is a
  string or template literal: that ``+`` joins text);
- ``EqualityOperator``: ``<`` -> ``<=`` / ``>=``, ``<=`` -> ``<`` / ``>``, ``>`` -> ``>=`` / ``<=``,
  ``>=`` -> ``>`` / ``<``, ``==`` <-> ``!=``, ``===`` <-> ``!==``;
- ``ConditionalExpression``: the condition of ``if``, ``while``, ``do``, ``for`` and ``?:`` becomes
  ``true`` and ``false`` (a loop's condition only ``false``: ``true`` would only make it endless);
- ``BooleanLiteral``: ``true`` <-> ``false``, ``!x`` -> ``x``;
- ``LogicalOperator``: ``&&`` <-> ``||``, ``??`` -> ``&&``;
- ``UnaryOperator``: ``-x`` <-> ``+x``, ``~x`` -> ``x``;
- ``UpdateOperator``: ``++`` <-> ``--`` (prefix and postfix);
- ``AssignmentOperator``: ``+=`` <-> ``-=``, ``*=`` <-> ``/=``, ``&&=`` <-> ``||=``;
- ``StringLiteral``: ``"text"`` -> ``""``, ``""`` -> ``"Stryker was here!"`` (not directives such as
  ``"use strict"``, object keys, module names in ``import``/``export``/``require``);
- ``ArrayDeclaration``: ``[a, b]`` -> ``[]``, ``[]`` -> ``["Stryker was here"]``;
- ``ObjectLiteral``: ``{a: 1}`` -> ``{}``;
- ``BlockStatement``: a non-empty block (a function's body, a branch) -> ``{}``;
- ``OptionalChaining``: ``a?.b`` -> ``a.b``, ``a?.()`` -> ``a()``, ``a?.[i]`` -> ``a[i]``;
- ``MethodExpression``: ``startsWith`` <-> ``endsWith``, ``toUpperCase`` <-> ``toLowerCase``,
  ``some`` <-> ``every``, ``trimStart`` <-> ``trimEnd``, ``min`` <-> ``max``, and ``a.filter(f)``,
  ``a.slice(...)``, ``a.sort(...)``, ``a.reverse()``, ``a.trim()``, ``a.substring(...)``,
  ``a.charAt(i)`` -> ``a``.

Nothing inside a ``console.*(...)`` call is mutated (what a page logs is no behaviour a player can
see), as Stryker users configure with an ignorer.

The parser is tree-sitter's JavaScript and TypeScript grammars (the PyPI wheels ``tree-sitter``,
``tree-sitter-javascript`` and ``tree-sitter-typescript``): nothing is run to parse.  A mutant is a
byte range of one file and its replacement; the patched copy keeps every line number (a replacement
with fewer lines is padded with the missing line breaks, inside the braces of a block or a comment
after an expression), so a coverage line of the mutant's run names the same source line.  A mutant
whose patched file no longer parses is dropped.

A mutant's id is stable: ``PROGRAM~FILE~OPERATOR@LINE:COL~N`` where N tells the replacements of one
place apart (in the operator's listed order).

    python -m benchmark.js_mutants FOLDER [--files 'js/*.js'] [--program NAME] [--per-program K] [--seed S]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator

import tree_sitter
import tree_sitter_javascript
import tree_sitter_typescript

from benchmark.mutants import take_turns

OPERATORS = ("ArithmeticOperator", "EqualityOperator", "ConditionalExpression", "BooleanLiteral",
             "LogicalOperator", "UnaryOperator", "UpdateOperator", "AssignmentOperator", "StringLiteral",
             "ArrayDeclaration", "ObjectLiteral", "BlockStatement", "OptionalChaining", "MethodExpression")
ARITHMETIC = {"+": ["-"], "-": ["+"], "*": ["/"], "/": ["*"], "%": ["*"]}
EQUALITY = {"<": ["<=", ">="], "<=": ["<", ">"], ">": [">=", "<="], ">=": [">", "<"], "==": ["!="],
            "!=": ["=="], "===": ["!=="], "!==": ["==="]}
LOGICAL = {"&&": ["||"], "||": ["&&"], "??": ["&&"]}
ASSIGNMENT = {"+=": ["-="], "-=": ["+="], "*=": ["/="], "/=": ["*="], "&&=": ["||="], "||=": ["&&="]}
METHOD_SWAPS = {"startsWith": "endsWith", "endsWith": "startsWith", "toUpperCase": "toLowerCase",
                "toLowerCase": "toUpperCase", "toLocaleUpperCase": "toLocaleLowerCase",
                "toLocaleLowerCase": "toLocaleUpperCase", "some": "every", "every": "some",
                "trimStart": "trimEnd", "trimEnd": "trimStart", "min": "max", "max": "min"}
METHOD_DROPS = frozenset({"filter", "slice", "sort", "reverse", "trim", "substring", "substr", "charAt"})
LOOPS = frozenset({"while_statement", "do_statement", "for_statement"})
SCRIPT_SUFFIXES = {".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
                   ".ts": "typescript", ".mts": "typescript", ".tsx": "tsx"}
FILLER_STRING = '"Stryker was here!"'
PER_PROGRAM = 20
SEED = 0


@dataclass(frozen=True)
class JsMutant:
    """One mutant: bytes ``start:end`` of ``file`` (relative to the program folder) become ``after``."""

    id: str
    program: str
    file: str
    file_sha256: str
    operator: str
    line: int
    """1-based line of the first changed byte (the same in the patched copy)."""
    col: int
    """0-based byte column of the first changed byte."""
    end_line: int
    end_col: int
    start: int
    end: int
    before: str
    after: str


def language_of(path: str | Path) -> str:
    """``javascript``, ``typescript`` or ``tsx`` by the file's suffix; ValueError for anything else."""
    suffix = Path(path).suffix.lower()
    if suffix not in SCRIPT_SUFFIXES:
        raise ValueError(f"{path} is not a JavaScript or TypeScript file ({', '.join(SCRIPT_SUFFIXES)})")
    return SCRIPT_SUFFIXES[suffix]


def parser_for(language: str) -> tree_sitter.Parser:
    grammar = {"javascript": tree_sitter_javascript.language, "typescript": tree_sitter_typescript.language_typescript,
               "tsx": tree_sitter_typescript.language_tsx}[language]
    return tree_sitter.Parser(tree_sitter.Language(grammar()))


def parses(source: bytes, language: str) -> bool:
    """Does the text parse without a syntax error?"""
    return not parser_for(language).parse(source).root_node.has_error


def _text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _operator(node: tree_sitter.Node) -> tree_sitter.Node | None:
    return node.child_by_field_name("operator")


def _is_text(node: tree_sitter.Node | None) -> bool:
    return node is not None and node.type in ("string", "template_string")


TYPE_NODES = frozenset({"type_annotation", "literal_type", "type_alias_declaration", "interface_declaration",
                        "type_arguments", "type_parameters", "enum_declaration", "ambient_declaration"})
"""TypeScript's types: a mutant there changes no behaviour (or does not compile)."""


def _ignored(node: tree_sitter.Node) -> bool:
    """Inside a ``console.*(...)`` call (logging is not behaviour) or a TypeScript type."""
    parent = node.parent
    while parent is not None:
        if parent.type in TYPE_NODES:
            return True
        if parent.type == "call_expression":
            callee = parent.child_by_field_name("function")
            if callee is not None and callee.type == "member_expression":
                obj = callee.child_by_field_name("object")
                if obj is not None and _text(obj) == "console":
                    return True
        parent = parent.parent
    return False


Point = tuple[str, tree_sitter.Node, str]
"""(operator, the node whose bytes are replaced, the replacement text)."""


def _binary(node: tree_sitter.Node) -> Iterator[Point]:
    op = _operator(node)
    if op is None:
        return
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if op.type in ARITHMETIC and not (op.type == "+" and (_is_text(left) or _is_text(right))):
        yield from (("ArithmeticOperator", op, new) for new in ARITHMETIC[op.type])
    yield from (("EqualityOperator", op, new) for new in EQUALITY.get(op.type, []))
    yield from (("LogicalOperator", op, new) for new in LOGICAL.get(op.type, []))


def _condition(node: tree_sitter.Node) -> Iterator[Point]:
    cond = next((c for i, c in enumerate(node.children)
                 if node.field_name_for_child(i) == "condition" and c.type != ";"), None)
    if cond is None:
        return
    if cond.type == "parenthesized_expression" and cond.named_child_count == 1:
        cond = cond.named_children[0]
    if node.type not in LOOPS:
        yield "ConditionalExpression", cond, "true"
    yield "ConditionalExpression", cond, "false"


def _unary(node: tree_sitter.Node) -> Iterator[Point]:
    op, arg = _operator(node), node.child_by_field_name("argument")
    if op is None or arg is None:
        return
    if op.type == "!":
        yield "BooleanLiteral", node, _text(arg)
    elif op.type in ("-", "+"):
        yield "UnaryOperator", op, "+" if op.type == "-" else "-"
    elif op.type == "~":
        yield "UnaryOperator", node, _text(arg)


def _string(node: tree_sitter.Node) -> Iterator[Point]:
    parent = node.parent
    if parent is None:
        return
    if parent.type in ("import_statement", "export_statement", "import_require_clause"):
        return
    if parent.type == "pair" and parent.child_by_field_name("key") == node:
        return
    if parent.type == "expression_statement" and parent.parent is not None and parent.parent.type in (
            "program", "statement_block") and _text(node)[1:-1] in ("use strict", "use client"):
        return
    if parent.type == "arguments" and parent.parent is not None:
        callee = parent.parent.child_by_field_name("function")
        if callee is not None and _text(callee) in ("require", "import"):
            return
    if node.type == "template_string" and any(c.type == "template_substitution" for c in node.children):
        yield "StringLiteral", node, "``"
    elif len(_text(node)) > 2:
        yield "StringLiteral", node, '""' if node.type == "string" else "``"
    else:
        yield "StringLiteral", node, FILLER_STRING


def _method(node: tree_sitter.Node) -> Iterator[Point]:
    callee = node.child_by_field_name("function")
    if callee is None or callee.type != "member_expression":
        return
    prop, obj = callee.child_by_field_name("property"), callee.child_by_field_name("object")
    if prop is None or obj is None:
        return
    name = _text(prop)
    if name in METHOD_SWAPS:
        yield "MethodExpression", prop, METHOD_SWAPS[name]
    elif name in METHOD_DROPS:
        yield "MethodExpression", node, _text(obj)


def points(root: tree_sitter.Node) -> Iterator[Point]:
    """Every place an operator applies, in tree order."""
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.children))
        if node.is_error or node.is_missing or _ignored(node):
            continue
        kind = node.type
        if kind == "binary_expression":
            yield from _binary(node)
        elif kind in ("if_statement", "while_statement", "do_statement", "for_statement", "ternary_expression"):
            yield from _condition(node)
        elif kind in ("true", "false"):
            yield "BooleanLiteral", node, "false" if kind == "true" else "true"
        elif kind == "unary_expression":
            yield from _unary(node)
        elif kind == "update_expression" and _operator(node) is not None:
            op = _operator(node)
            assert op is not None
            yield "UpdateOperator", op, "--" if op.type == "++" else "++"
        elif kind == "augmented_assignment_expression" and _operator(node) is not None:
            op = _operator(node)
            assert op is not None
            yield from (("AssignmentOperator", op, new) for new in ASSIGNMENT.get(op.type, []))
        elif kind in ("string", "template_string"):
            yield from _string(node)
        elif kind == "array":
            yield "ArrayDeclaration", node, "[]" if node.named_child_count else '["Stryker was here"]'
        elif kind == "object" and node.named_child_count:
            yield "ObjectLiteral", node, "{}"
        elif kind == "statement_block" and node.named_child_count:
            yield "BlockStatement", node, "{}"
        elif kind in ("member_expression", "call_expression", "subscript_expression"):
            chain = next((c for c in node.children if c.type == "optional_chain"), None)
            if chain is not None:
                yield "OptionalChaining", chain, "" if kind == "call_expression" or kind == "subscript_expression" else "."
            if kind == "call_expression":
                yield from _method(node)


def padded(before: str, after: str, operator: str) -> str:
    """``after`` with the line breaks ``before`` had, so that every later line keeps its number."""
    missing = before.count("\n") - after.count("\n")
    if missing <= 0:
        return after
    if operator == "BlockStatement" or (operator == "ObjectLiteral" and after == "{}"):
        return "{" + "\n" * missing + "}"
    return after + "/*" + "\n" * missing + "*/"


def mutants_in(source: bytes, file: str, program: str = "") -> list[JsMutant]:
    """Every mutant of one file's text that still parses, in source order; ids are stable."""
    language = language_of(file)
    tree = parser_for(language).parse(source)
    digest = hashlib.sha256(source).hexdigest()
    seen: dict[tuple[str, int, int], int] = {}
    found: list[JsMutant] = []
    for operator, node, after in points(tree.root_node):
        before = source[node.start_byte:node.end_byte].decode("utf-8", "replace")
        after = padded(before, after, operator)
        if after == before:
            continue
        (line, col), (end_line, end_col) = node.start_point, node.end_point
        key = (operator, line, col)
        seen[key] = seen.get(key, 0) + 1
        ident = f"{program}~{file}~{operator}@{line + 1}:{col}~{seen[key]}"
        m = JsMutant(ident, program, file, digest, operator, line + 1, col, end_line + 1, end_col,
                     node.start_byte, node.end_byte, before, after)
        if parses(apply(source, m), language):
            found.append(m)
    found.sort(key=lambda m: (m.start, m.operator, m.id))
    return found


def apply(source: bytes, m: JsMutant) -> bytes:
    """The file's text with the mutant in place."""
    return source[:m.start] + m.after.encode("utf-8") + source[m.end:]


def program_files(folder: Path, patterns: list[str]) -> list[str]:
    """The program's own scripts matched by ``patterns`` (globs relative to the folder), sorted, without
    anything under node_modules, bower_components or a bundled library folder the pattern did not name."""
    files: set[str] = set()
    for pattern in patterns:
        for path in folder.glob(pattern):
            rel = path.relative_to(folder).as_posix()
            if path.is_file() and "node_modules/" not in rel and path.suffix.lower() in SCRIPT_SUFFIXES:
                files.add(rel)
    return sorted(files)


def mutants_of(folder: Path, patterns: list[str], program: str, per_program: int = PER_PROGRAM,
               seed: int = SEED) -> list[JsMutant]:
    """``per_program`` mutants of the program's scripts, drawn with a generator seeded by (seed, program);
    operators take turns in a seeded order, so the rare ones are not drowned by string literals."""
    found: list[JsMutant] = []
    for rel in program_files(folder, patterns):
        found.extend(mutants_in((folder / rel).read_bytes(), rel, program))
    rng = random.Random(f"{seed}:{program}")
    order = take_turns(found, OPERATORS, lambda m: m.operator, rng)
    return order[:per_program] if per_program else order


def write_copy(m: JsMutant, folder: Path, out: Path) -> Path:
    """A copy of the program folder at ``out`` with the mutant applied; refuses a file the mutant was
    not drawn from (another version of the program)."""
    source = (folder / m.file).read_bytes()
    if hashlib.sha256(source).hexdigest() != m.file_sha256:
        raise SystemExit(f"{folder / m.file} is not the version mutant {m.id} was drawn from; "
                         "install the pinned version or draw the mutants again")
    if out.exists():
        shutil.rmtree(out)
    # Installed packages and a build are left behind: the program installs (npm ci) and builds its own.
    shutil.copytree(folder, out, symlinks=True, ignore=shutil.ignore_patterns("node_modules", "dist"))
    (out / m.file).write_bytes(apply(source, m))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmark.js_mutants", description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--files", action="append", default=None, help="glob of the scripts to mutate (default: **/*.js)")
    ap.add_argument("--program", default=None, help="the program's name in the ids (default: the folder's name)")
    ap.add_argument("--per-program", type=int, default=0, help="draw this many (default: list them all)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--json", action="store_true", help="one JSON object per mutant")
    args = ap.parse_args(argv)
    program = args.program or args.folder.name
    chosen = mutants_of(args.folder, args.files or ["**/*.js"], program, args.per_program, args.seed)
    for m in chosen:
        print(json.dumps(asdict(m)) if args.json else f"{m.id}: {m.before[:40]!r} -> {m.after[:40]!r}")
    counts: dict[str, int] = {}
    for m in chosen:
        counts[m.operator] = counts.get(m.operator, 0) + 1
    print(f"{len(chosen)} mutants: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
