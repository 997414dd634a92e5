"""The JavaScript mutation operators (benchmark/js_mutants.py), one small snippet per operator."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("tree_sitter_javascript")
pytest.importorskip("tree_sitter_typescript")

from benchmark import js_mutants as jm  # noqa: E402


def mutated(snippet: str, operator: str, file: str = "a.js") -> list[str]:
    """Every text the operator makes of the snippet, in source order."""
    source = snippet.encode()
    return [jm.apply(source, m).decode() for m in jm.mutants_in(source, file) if m.operator == operator]


def test_arithmetic_swaps_operators_but_not_string_joins() -> None:
    assert mutated("x = a + b * c % d;", "ArithmeticOperator") == [
        "x = a - b * c % d;", "x = a + b / c % d;", "x = a + b * c * d;"]
    assert mutated('s = "n=" + n;', "ArithmeticOperator") == []


def test_equality_moves_boundaries_and_negates() -> None:
    assert mutated("if (a < b) f();", "EqualityOperator") == ["if (a <= b) f();", "if (a >= b) f();"]
    assert mutated("ok = a === b;", "EqualityOperator") == ["ok = a !== b;"]


def test_conditional_makes_branches_always_and_never_taken() -> None:
    assert mutated("if (ready) go();", "ConditionalExpression") == ["if (true) go();", "if (false) go();"]
    assert mutated("y = c ? 1 : 2;", "ConditionalExpression") == ["y = true ? 1 : 2;", "y = false ? 1 : 2;"]
    assert mutated("while (n > 0) n--;", "ConditionalExpression") == ["while (false) n--;"], \
        "a loop is never made endless"
    assert mutated("for (;;) {}", "ConditionalExpression") == []


def test_boolean_literals_and_negation() -> None:
    assert mutated("a = true; b = !c;", "BooleanLiteral") == ["a = false; b = !c;", "a = true; b = c;"]


def test_logical_operators() -> None:
    assert mutated("x = a && b || c;", "LogicalOperator") == ["x = a || b || c;", "x = a && b && c;"]
    assert sorted(mutated("x = a && b;", "LogicalOperator")) == ["x = a || b;"]
    assert mutated("x = a ?? b;", "LogicalOperator") == ["x = a && b;"]


def test_unary_and_update_and_assignment() -> None:
    assert mutated("x = -y;", "UnaryOperator") == ["x = +y;"]
    assert mutated("x = ~y;", "UnaryOperator") == ["x = y;"]
    assert mutated("i++; --j;", "UpdateOperator") == ["i--; --j;", "i++; ++j;"]
    assert mutated("s += 2;", "AssignmentOperator") == ["s -= 2;"]


def test_string_literals_skip_directives_keys_and_module_names() -> None:
    assert mutated('"use strict";\nlet a = "hi", b = "";', "StringLiteral") == [
        '"use strict";\nlet a = "", b = "";', '"use strict";\nlet a = "hi", b = "Stryker was here!";']
    assert mutated('o = {"k": 1}; const m = require("fs");', "StringLiteral") == []
    assert mutated('import x from "y";', "StringLiteral", "a.mjs") == []
    assert mutated("t = `a${b}`;", "StringLiteral") == ["t = ``;"]


def test_array_object_and_block() -> None:
    assert mutated("a = [1, 2]; b = [];", "ArrayDeclaration") == [
        "a = []; b = [];", 'a = [1, 2]; b = ["Stryker was here"];']
    assert mutated("o = {a: 1}; p = {};", "ObjectLiteral") == ["o = {}; p = {};"]
    assert mutated("function f() { g(); }\nfunction h() {}", "BlockStatement") == [
        "function f() {}\nfunction h() {}"]


def test_optional_chaining() -> None:
    assert mutated("a?.b; c?.(); d?.[0];", "OptionalChaining") == ["a.b; c?.(); d?.[0];", "a?.b; c(); d?.[0];",
                                                                    "a?.b; c?.(); d[0];"]


def test_method_expression_swaps_and_drops() -> None:
    assert mutated("s.startsWith(p);", "MethodExpression") == ["s.endsWith(p);"]
    assert mutated("xs.filter(f).length;", "MethodExpression") == ["xs.length;"]
    assert mutated("Math.max(a, b);", "MethodExpression") == ["Math.min(a, b);"]


def test_console_calls_and_typescript_types_are_left_alone() -> None:
    assert mutated('console.log("x" + (a < b));', "EqualityOperator") == []
    assert mutated('type Op = "+" | "-";\nlet o: Op = "+";', "StringLiteral", "a.ts") == [
        'type Op = "+" | "-";\nlet o: Op = "";']


def test_multi_line_replacements_keep_every_line_number() -> None:
    source = b"function f() {\n  a();\n  b();\n}\nconst t = `x\ny`;\nlast();\n"
    for m in jm.mutants_in(source, "a.js"):
        out = jm.apply(source, m)
        assert out.count(b"\n") == source.count(b"\n"), m.id
        assert out.splitlines()[-1] == b"last();", m.id


def test_ids_are_stable_and_name_the_place() -> None:
    source = b"if (a < b) { f(); }\n"
    first = [m.id for m in jm.mutants_in(source, "x.js", "prog")]
    assert first == [m.id for m in jm.mutants_in(source, "x.js", "prog")]
    assert "prog~x.js~EqualityOperator@1:6~1" in first and "prog~x.js~EqualityOperator@1:6~2" in first
    assert len(set(first)) == len(first)


def test_every_mutant_parses_and_unparsable_ones_are_dropped() -> None:
    source = b"let x = a < b ? [1] : {k: 'v'};\n"
    for m in jm.mutants_in(source, "a.js"):
        assert jm.parses(jm.apply(source, m), "javascript")
    assert not jm.parses(b"let = ;", "javascript")


def test_draw_is_seeded_and_operators_take_turns(tmp_path: Path) -> None:
    (tmp_path / "g.js").write_text("function f(a, b) {\n  if (a < b) { return a + b; }\n  return [a, 'b'];\n}\n")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "lib.js").write_text("x = 1 + 2;")
    one = jm.mutants_of(tmp_path, ["**/*.js"], "p", per_program=5, seed=0)
    assert [m.id for m in one] == [m.id for m in jm.mutants_of(tmp_path, ["**/*.js"], "p", per_program=5, seed=0)]
    assert len({m.operator for m in one}) == 5, "the first draws are of different operators"
    assert all(m.file == "g.js" for m in jm.mutants_of(tmp_path, ["**/*.js"], "p", per_program=0))


def test_write_copy_patches_a_copy_only(tmp_path: Path) -> None:
    folder = tmp_path / "prog"
    folder.mkdir()
    (folder / "g.js").write_text("x = a - b;\n")
    m = next(m for m in jm.mutants_in(b"x = a - b;\n", "g.js", "prog") if m.operator == "ArithmeticOperator")
    out = jm.write_copy(m, folder, tmp_path / "copy")
    assert (out / "g.js").read_text() == "x = a + b;\n"
    assert (folder / "g.js").read_text() == "x = a - b;\n"
    (folder / "g.js").write_text("x = a * b;\n")
    with pytest.raises(SystemExit, match="not the version"):
        jm.write_copy(m, folder, tmp_path / "copy2")
