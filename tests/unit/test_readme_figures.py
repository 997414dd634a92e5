"""Every figure in README.md and benchmark/README.md comes from a results file (benchmark/figures.py)."""

from __future__ import annotations

from pathlib import Path

from benchmark import figures, regenerate


def test_the_committed_readmes_hold_only_figures_rendered_from_results(capsys):
    assert regenerate.main(["--check"]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    for block in ("headline", "benchmarks"):
        for key in figures.BLOCKS[block]:
            assert figures.FIGURES[key].results in out, key
    assert " at " in out and "0 problems" in out


def _readme(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "README.md"
    path.write_text(body, encoding="utf-8")
    return path


def test_a_hand_edited_figure_or_one_in_prose_fails_the_check(tmp_path):
    rendered = figures.render_text("# R\n\n<!-- figures: headline -->\n<!-- end figures -->\n")
    assert "| figure | value | results file | commit |" in rendered
    listing, problems = figures.check((_readme(tmp_path, rendered),))
    assert len(listing) == len(figures.BLOCKS["headline"]) and problems == []
    edited = rendered.replace("% (", "% (1", 1)
    _, problems = figures.check((_readme(tmp_path, edited),))
    assert any("differs from its results files" in p for p in problems)
    _, problems = figures.check((_readme(tmp_path, rendered + "\nThe tester catches 94% of the bugs.\n"),))
    assert any("a figure in no results file" in p and "94%" in p for p in problems)
    _, problems = figures.check((_readme(tmp_path, "Recall 30/40 here.\n\n    python x --k 1/3\n"),))
    assert [p for p in problems if "30/40" in p] and not [p for p in problems if "1/3" in p]


def test_a_figure_whose_results_file_lacks_it_is_named(tmp_path, monkeypatch):
    monkeypatch.setitem(figures.FIGURES, "repair-rate",
                        figures.Figure("repair-rate", "a figure", "no-such-results.json", lambda d: "1"))
    _, problems = figures.check((_readme(tmp_path, "<!-- figures: headline -->\n<!-- end figures -->\n"),))
    assert any("no-such-results.json does not hold it" in p for p in problems)


def test_every_published_figure_has_a_regenerate_entry_that_writes_its_results_file():
    written = {out for entry in regenerate.ENTRIES for out in entry.outputs}
    missing = sorted({f.results for f in figures.FIGURES.values()} - written)
    assert not missing, f"python -m benchmark.regenerate --all would not regenerate {missing}"
    assert regenerate.main([]) == 2, "with nothing asked, the command says what it can do"
