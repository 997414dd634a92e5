"""The corpus and its generated mutants, without playing: every spec loads, mutants compile and keep their
line numbers, and a mutant's launcher runs the mutated copy as ``python -m`` would run the original."""

from __future__ import annotations

import ast
import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine.play.targetspec import load_spec
from benchmark.mutants import (CORPUS, MARK, TEST, TUNE, Mutant, build_target, corpus_programs, load_manifest,
                               module_file, mutated_source, mutants_of, program_split, drawn_split)

MIN_PROGRAMS = 20
MIN_SOURCES = 3


def test_the_corpus_has_twenty_programs_from_three_sources_and_every_spec_loads() -> None:
    folders = corpus_programs()
    assert len(folders) >= MIN_PROGRAMS
    sources = set()
    for folder in folders:
        spec = load_spec(folder)
        assert spec.command[:2] == ("python", "-m"), folder.name
        assert spec.goal, folder.name
        sources.add(spec.command[2].split(".")[0])
        assert [p.name for p in folder.iterdir()] == ["playcoder.toml"], "no program code is kept in the corpus"
    assert len(sources) >= MIN_SOURCES, sources


def test_the_split_is_drawn_by_program_name_and_a_looked_at_program_moves_to_tune() -> None:
    # sha256("corpus:freegames-snake") is odd, sha256("corpus:freegames-tiles") even: the draw never changes.
    assert drawn_split("freegames-snake") == TEST
    assert drawn_split("freegames-tiles") == TUNE
    assert {drawn_split(f.name) for f in corpus_programs()} == {TUNE, TEST}
    # freegames-snake's runs were looked at (benchmark/split.md): it is tune now, and stays so.
    assert program_split("freegames-snake") == TUNE
    assert program_split("freegames-tiles") == TUNE


def test_the_manifest_matches_what_the_generator_draws_from_the_installed_source() -> None:
    pytest.importorskip("freegames")
    folder = CORPUS / "freegames-snake"
    drawn = mutants_of(folder, 10, 0)
    listed = [m for m in load_manifest() if m.program == "freegames-snake"]
    assert [m.id for m in drawn] == [m.id for m in listed]
    assert len({m.operator for m in drawn}) >= 5, "operators take turns"
    path, _ = module_file("freegames.snake")
    source = path.read_text()
    for m in drawn:
        text = mutated_source(source, m)
        compile(text, "snake.py", "exec")
        assert text.count("\n") == source.count("\n"), f"{m.id} moved the lines"
        assert text != source


def test_a_mutant_runs_its_mutated_copy_in_the_original_package_and_says_when_its_line_ran(tmp_path: Path) -> None:
    pkg = tmp_path / "site" / "toypkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "prog.py").write_text("import os\nlimit = 3\nif limit < 3:\n    print('small')\nelse:\n    print('big')\n"
                                 "print(os.path.basename(__file__), __package__)\n")
    corpus = tmp_path / "corpus" / "toy"
    corpus.mkdir(parents=True)
    (corpus / "playcoder.toml").write_text('name = "toy"\ncommand = ["python", "-m", "toypkg.prog"]\n')
    sys.path.insert(0, str(tmp_path / "site"))
    try:
        path, package = module_file("toypkg.prog")
        assert package == "toypkg"
        source = path.read_text()
        node = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Compare))
        m = Mutant("toy~ReplaceComparisonOperator@3:3", "toy", "toypkg.prog", "toypkg/prog.py",
                   hashlib.sha256(source.encode()).hexdigest(), "ReplaceComparisonOperator", node.lineno,
                   node.col_offset, node.end_lineno or 0, node.end_col_offset or 0, "limit < 3", "limit <= 3", False)
        target = build_target(m, corpus, tmp_path / "scratch")
    finally:
        sys.path.remove(str(tmp_path / "site"))
    assert (pkg / "prog.py").read_text() == source, "the installed module is never changed"
    assert 'command = ["python", "_playcoder_mutant.py"]' in (target / "playcoder.toml").read_text()
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path / "site")}
    out = subprocess.run([sys.executable, "_playcoder_mutant.py"], cwd=target, env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [f"{MARK} {m.id} ran", "small", "prog.py toypkg"]
