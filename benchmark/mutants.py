"""Bugs nobody here chose: seeded mutants of the corpus programs' installed source.

A corpus program (``benchmark/corpus/NAME``) runs an installed module
(``python -m MODULE``).  This script finds that module's file, lists every
place where a mutation operator applies, draws some of them with a seeded
generator (nobody picks them) and writes a **manifest** of ``(program,
module, file hash, line, column, operator, before, after)``.  The operators
are the classic ones of mutation-testing tools (the names follow cosmic-ray's
and mutmut's): a comparison's boundary moved (``<`` -> ``<=``, ``==`` ->
``!=``), an integer constant off by one, ``+`` and ``-`` swapped, a condition
negated, a simple statement deleted, the first two arguments of a call
swapped.

A mutant is applied at play time (:func:`build_target`) to a **copy** of the
module's file in a scratch target folder, never to site-packages and never to
the corpus folder: a small launcher there runs the mutated copy as
``__main__`` with the original module's ``__file__`` and package, so it
shadows the installed module exactly as ``python -m MODULE`` would have run
it (its data files are found where they are).  The reference is the
unmodified corpus folder.  A probe runs just before the mutated expression
(``(probe(ID), (mutated))[1]``; a deleted statement becomes ``probe(ID,
None)``) and prints one line on stdout the first time it runs
(``[playcoder-mutant] ID ran``), so a run tells whether the mutated place was
reached; the probe keeps the line numbers (multi-line nodes are padded inside
its brackets).

Mutants that do not compile are dropped when the manifest is written.  A
mutant whose line never ran in a run is *not reached* in that run: it cannot
have been seen, and ``corpus_bench`` reports recall over reached mutants
apart from recall over all.

The split by program (:func:`program_split`) is fixed before anything is
measured: a program is in the **tune** half when the SHA-256 of the UTF-8
text ``"corpus:NAME"``, read as a big-endian integer, is even, else in the
**test** half.  Only tune programs may be looked at while tuning a tester; a
test-half program any commit looked at moves to the tune half, recorded in
``benchmark/split.md`` (which :func:`program_split` reads).

    python -m benchmark.mutants [--programs a,b] [--per-program K] [--seed S] [--out FILE] [--split]
"""

from __future__ import annotations

import argparse
import ast
import functools
import hashlib
import importlib.util
import json
import random
import shutil
import sys
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, TypeVar

from app import pysyntax
from benchmark.split_check import read_split

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "benchmark" / "corpus"
MANIFEST = CORPUS / "mutants.json"
PER_PROGRAM = 10
SEED = 0
PROBE = "__playcoder_hit__"
MARK = "[playcoder-mutant]"
TUNE, TEST = "tune", "test"
LAUNCHER = "_playcoder_mutant.py"
MUTATED_DIR = "mutant"

COMPARISON = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
              ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
OPERATORS = ("ReplaceComparisonOperator", "NumberReplacer", "ReplaceBinaryOperator_Add_Sub", "AddNot",
             "RemoveStatement", "SwapArguments")
SIMPLE_STATEMENTS = (ast.Expr, ast.Assign, ast.AugAssign, ast.Return)


@dataclass(frozen=True)
class Mutant:
    id: str
    program: str
    module: str
    file: str
    file_sha256: str
    operator: str
    line: int
    col: int
    end_line: int
    end_col: int
    before: str
    after: str
    statement: bool


def drawn_split(name: str) -> str:
    """The half the hash drew for a corpus program before anything was measured (see the module docstring)."""
    return TUNE if int(hashlib.sha256(f"corpus:{name}".encode("utf-8")).hexdigest(), 16) % 2 == 0 else TEST


def program_split(name: str) -> str:
    """``tune`` or ``test`` for a corpus program now: the draw, except programs benchmark/split.md moved to tune
    because a commit looked at their runs."""
    return TUNE if name in _moved_to_tune() else drawn_split(name)


@functools.lru_cache(maxsize=1)
def _moved_to_tune() -> frozenset[str]:
    return frozenset(read_split().moved)


def corpus_programs(names: list[str] | None = None) -> list[Path]:
    folders = sorted(p.parent for p in CORPUS.glob("*/playcoder.toml"))
    if names:
        known = {f.name: f for f in folders}
        missing = [n for n in names if n not in known]
        if missing:
            raise SystemExit(f"not in benchmark/corpus: {', '.join(missing)}; run with no --programs to list them")
        folders = [known[n] for n in names]
    return folders


def program_module(folder: Path) -> str:
    command = tomllib.loads((folder / "playcoder.toml").read_text())["command"]
    if len(command) < 3 or command[1] != "-m":
        raise SystemExit(f"{folder.name}: the command is not `python -m MODULE`; only installed modules are mutated")
    return str(command[2])


def module_file(module: str) -> tuple[Path, str]:
    """The source file ``python -m module`` runs, and the package it runs in."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise SystemExit(f"module {module} is not installed: pip install -e '.[corpus]'")
    if spec.submodule_search_locations is not None:  # a package: -m runs its __main__
        main = importlib.util.find_spec(module + ".__main__")
        assert main is not None and main.origin is not None
        return Path(main.origin), module
    return Path(spec.origin), module.rpartition(".")[0]


def _swap(node: ast.AST) -> ast.AST | None:
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in COMPARISON:
        return ast.Compare(node.left, [COMPARISON[type(node.ops[0])]()], node.comparators)
    return None


def _points(tree: ast.Module) -> Iterator[tuple[str, ast.AST, ast.AST, bool]]:
    """(operator, original node, mutated node, is a statement) for every place an operator applies."""
    in_fstring: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            in_fstring.update(id(n) for n in ast.walk(node))
    docstrings = {id(b.body[0]) for b in ast.walk(tree)
                  if isinstance(b, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and b.body
                  and isinstance(b.body[0], ast.Expr) and isinstance(b.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if id(node) in in_fstring:
            continue
        swapped = _swap(node)
        if swapped is not None:
            yield "ReplaceComparisonOperator", node, swapped, False
        if (isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool)):
            yield "NumberReplacer", node, ast.Constant(node.value + 1), False
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
            yield "ReplaceBinaryOperator_Add_Sub", node, ast.BinOp(node.left, op, node.right), False
        if isinstance(node, (ast.If, ast.While)):
            yield "AddNot", node.test, ast.UnaryOp(ast.Not(), node.test), False
        if isinstance(node, SIMPLE_STATEMENTS) and id(node) not in docstrings:
            yield "RemoveStatement", node, ast.Pass(), True
        if (isinstance(node, ast.Call) and len(node.args) >= 2
                and not any(isinstance(a, ast.Starred) for a in node.args[:2])
                and ast.dump(node.args[0]) != ast.dump(node.args[1])):
            args = [node.args[1], node.args[0], *node.args[2:]]
            yield "SwapArguments", node, ast.Call(node.func, args, node.keywords), False


def _shown(path: Path) -> str:
    """The file as the manifest names it: relative to the folder its top package is installed in."""
    for base in sorted((Path(p) for p in sys.path if p), key=lambda p: -len(str(p))):
        try:
            return str(path.relative_to(base))
        except ValueError:
            continue
    return path.name


def mutated_source(source: str, m: Mutant) -> str:
    """The module's text with the mutant applied and its probe in place; every other line is unchanged."""
    lines = source.encode("utf-8").split(b"\n")
    first, last = m.line - 1, m.end_line - 1
    head, tail = lines[first][:m.col], lines[last][m.end_col:]
    pad = b"\n" * (last - first)
    if m.statement:
        body = f"{PROBE}({m.id!r}, None".encode() + pad + b")"
    else:
        # The probe runs before the mutated expression: a mutant that raises there was still reached.
        body = f"({PROBE}({m.id!r}), ({m.after})".encode() + pad + b")[1]"
    new = head + body + tail
    return b"\n".join(lines[:first] + new.split(b"\n") + lines[last + 1:]).decode("utf-8")


T = TypeVar("T")


def take_turns(found: list[T], kinds: Sequence[str], kind_of: Callable[[T], str], rng: random.Random) -> list[T]:
    """``found`` shuffled within each kind, then the kinds take turns in a seeded order (rare kinds come early)."""
    by_kind = {k: [f for f in found if kind_of(f) == k] for k in kinds}
    for places in by_kind.values():
        rng.shuffle(places)
    order: list[T] = []
    while any(by_kind.values()):
        turn = [k for k in kinds if by_kind[k]]
        rng.shuffle(turn)
        order.extend(by_kind[k].pop() for k in turn)
    return order


def mutants_of(folder: Path, per_program: int, seed: int) -> list[Mutant]:
    """``per_program`` mutants of the program drawn with a generator seeded by (seed, program); each compiles."""
    module = program_module(folder)
    path, _ = module_file(module)
    source = path.read_text(encoding="utf-8")
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()
    tree = pysyntax.parse(source)
    found: list[Mutant] = []
    for operator, node, new, statement in _points(tree):
        ast.fix_missing_locations(new)
        line, col = getattr(node, "lineno", None), getattr(node, "col_offset", None)
        end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if line is None or col is None or end_line is None or end_col is None:
            continue
        found.append(Mutant("", folder.name, module, _shown(path), digest, operator, line, col, end_line, end_col,
                            ast.unparse(node), ast.unparse(new), statement))
    found.sort(key=lambda m: (m.line, m.col, m.operator, m.after))
    rng = random.Random(f"{seed}:{folder.name}")
    # Operators take turns (in a seeded order), so that the rare ones are not drowned by deleted statements.
    order = take_turns(found, OPERATORS, lambda m: m.operator, rng)
    chosen: list[Mutant] = []
    for m in order:
        if len(chosen) >= per_program:
            break
        m = Mutant(**{**asdict(m), "id": f"{folder.name}~{m.operator}@{m.line}:{m.col}"})
        try:
            pysyntax.compile_tree(pysyntax.parse(mutated_source(source, m), str(path)), str(path))
        except (SyntaxError, ValueError):
            continue  # does not compile: not a mutant anyone could run
        chosen.append(m)
    return chosen


LAUNCHER_TEXT = '''"""Runs the mutated copy of {module} (written by benchmark/mutants.py) as python -m would run the original."""
import sys, types
from pathlib import Path

HERE = Path(__file__).resolve().parent
_seen = False


def {probe}(ident, value=None):
    global _seen
    if not _seen:
        _seen = True
        print("{mark} " + ident + " ran", flush=True)
    return value


main = types.ModuleType("__main__")
main.__dict__.update({{"__file__": {origin!r}, "__package__": {package!r}, "__spec__": None,
                      "__builtins__": __builtins__, "{probe}": {probe}}})
sys.modules["__main__"] = main
sys.argv[0] = {origin!r}
code = compile((HERE / {copy!r}).read_text(encoding="utf-8"), str(HERE / {copy!r}), "exec")
exec(code, main.__dict__)
'''


def build_target(m: Mutant, corpus_folder: Path, out: Path) -> Path:
    """A scratch target folder that plays mutant ``m``: the program's playcoder.toml (command replaced by
    the launcher) and the mutated copy of its module.  Refuses when the installed file is not the one
    the manifest was drawn from."""
    return build_copy(m.module, m.file_sha256, lambda source: mutated_source(source, m), corpus_folder, out)


def build_copy(module: str, file_sha256: str, edit: Callable[[str], str], corpus_folder: Path, out: Path) -> Path:
    """A scratch target folder that plays ``edit(source)`` of ``module``'s file in place of the installed one
    (mutants here, behaviour-preserving refactorings in :mod:`benchmark.refactorings`)."""
    path, package = module_file(module)  # found again: site-packages is elsewhere on another machine
    source = path.read_text(encoding="utf-8")
    if hashlib.sha256(source.encode("utf-8")).hexdigest() != file_sha256:
        raise SystemExit(f"{path} is not the version the manifest was drawn from; install the corpus "
                         "extra's pinned versions or regenerate it with python -m benchmark.mutants")
    if out.exists():
        shutil.rmtree(out)
    (out / MUTATED_DIR).mkdir(parents=True)
    copy = f"{MUTATED_DIR}/{path.name}"
    (out / copy).write_text(edit(source), encoding="utf-8")
    (out / LAUNCHER).write_text(LAUNCHER_TEXT.format(module=module, probe=PROBE, mark=MARK, origin=str(path),
                                                     package=package, copy=copy), encoding="utf-8")
    spec = (corpus_folder / "playcoder.toml").read_text(encoding="utf-8")
    spec = spec.replace(f'command = ["python", "-m", "{module}"]', f'command = ["python", "{LAUNCHER}"]')
    if LAUNCHER not in spec:
        raise SystemExit(f"{corpus_folder.name}: the command line is not the one benchmark/mutants.py expects")
    (out / "playcoder.toml").write_text(spec, encoding="utf-8")
    return out


def load_manifest(path: Path = MANIFEST) -> list[Mutant]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Mutant(**m) for m in data["mutants"]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmark.mutants", description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", default="", help="comma-separated corpus programs (default: all)")
    ap.add_argument("--per-program", type=int, default=PER_PROGRAM)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", type=Path, default=MANIFEST)
    ap.add_argument("--split", action="store_true", help="print the tune/test split of the corpus and exit")
    args = ap.parse_args(argv)
    folders = corpus_programs([n for n in args.programs.split(",") if n] or None)
    if args.split:
        for half in (TUNE, TEST):
            names = [f.name for f in folders if program_split(f.name) == half]
            print(f"| {half} | {len(names)} | {', '.join(names)} |")
        return 0
    mutants: list[Mutant] = []
    for folder in folders:
        mutants.extend(mutants_of(folder, args.per_program, args.seed))
    print(write_manifest(args.out, {"seed": args.seed, "per_program": args.per_program, "operators": list(OPERATORS)},
                         "mutants", mutants, [m.operator for m in mutants], len(folders)))
    return 0


def write_manifest(out: Path, meta: dict[str, Any], key: str, items: list[Any], kinds: list[str],
                   programs: int) -> str:
    """Write a generated manifest (``meta``, the Python that made it, ``key``: the items) and say what it holds."""
    payload: dict[str, Any] = {**meta, "python": sys.version.split()[0], key: [asdict(i) for i in items]}
    out.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    by_kind: dict[str, int] = {}
    for k in kinds:
        by_kind[k] = by_kind.get(k, 0) + 1
    return (f"{len(items)} {key} of {programs} programs -> {out}: "
            + ", ".join(f"{k} {v}" for k, v in sorted(by_kind.items())))


if __name__ == "__main__":
    sys.exit(main())
