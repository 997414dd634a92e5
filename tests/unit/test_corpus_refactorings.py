"""Behaviour-preserving refactorings of the corpus: each kind keeps what a program does, the
manifest is what the generator draws, and every refactoring compiles and changes the text."""

from __future__ import annotations

import ast
import contextlib
import io

import pytest

from app import pysyntax
from benchmark.mutants import CORPUS, module_file
from benchmark.refactorings import KINDS, _places, apply_edits, load_manifest, refactorings_of

TOY = '''"""A toy of the tests' own."""
LIMIT = 7


def total(values):
    acc = 0
    step = 2
    for v in [1, 2, 3]:
        acc = acc + v * 2 - 1
    if step - 1 in (1, 5):
        acc += len(values)
    return acc


print(total([4, 5]), total(()))
'''


def run(source: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(pysyntax.compile_tree(pysyntax.parse(source), "<toy>"), {"__name__": "__main__"})
    return out.getvalue()


def test_every_kind_applies_to_a_toy_and_none_changes_what_it_prints() -> None:
    tree = pysyntax.parse(TOY)
    places = list(_places(tree, TOY))
    assert {p[0] for p in places} == set(KINDS)
    expected = run(TOY)
    for kind, _, before, after, edits in places:
        text = apply_edits(TOY, edits)
        assert text != TOY, (kind, before)
        assert run(text) == expected, (kind, before, after)


def test_the_manifest_is_what_the_generator_draws_and_each_compiles_and_differs() -> None:
    pytest.importorskip("freegames")
    listed = [r for r in load_manifest() if r.program == "freegames-pacman"]
    drawn = refactorings_of(CORPUS / "freegames-pacman", 5, 0)
    assert [r.id for r in drawn] == [r.id for r in listed] and len(drawn) == 5
    assert len({r.kind for r in drawn}) >= 4, "kinds take turns"
    path, _ = module_file("freegames.pacman")
    source = path.read_text()
    for r in drawn:
        text = apply_edits(source, r.edits)
        assert text != source
        ast.parse(text)
