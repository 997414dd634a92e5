"""The corpus test half stays sealed: every commit that named a test-half program is in benchmark/split.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark import split_check
from benchmark.mutants import TEST, TUNE, corpus_programs, drawn_split, program_split


def test_every_commit_since_the_split_that_named_a_test_half_program_is_recorded():
    why = split_check.history_missing()
    if why:
        pytest.skip(f"the git history this check reads is missing: {why}")
    split = split_check.read_split()
    missing = split_check.unrecorded(split, split_check.commits_since(split.date))
    assert not missing, (f"commits named test-half programs and benchmark/split.md does not record them: {missing}; "
                         "list each there and move its program to the tune half")


def test_split_md_agrees_with_the_split_the_benchmarks_use():
    split = split_check.read_split()
    programs = {f.name for f in corpus_programs()}
    assert set(split.moved) <= programs and set(split.test) <= programs
    for name in split.moved:
        assert drawn_split(name) == TEST and program_split(name) == TUNE, name
    assert {p for p in programs if program_split(p) == TEST} == set(split.test)


def _split_md(tmp_path: Path, test: str, moved: str, recorded: str) -> Path:
    path = tmp_path / "split.md"
    path.write_text(f"# s\n\n- Split date: 2026-01-01\n\n## Test half\n\n| program | drawn on |\n| --- | --- |\n{test}"
                    f"\n## Moved to the tune half\n\n| program | moved at | commits |\n| --- | --- | --- |\n{moved}"
                    f"\n## Commits that looked at test-half programs\n\n| commit | what |\n| --- | --- |\n{recorded}",
                    encoding="utf-8")
    return path


def test_a_commit_naming_a_sealed_program_fails_the_check_until_recorded(tmp_path):
    commits = [split_check.Commit("aaaaaaa", "2026-01-02T10:00:00+00:00", "tune the explorer on prog-a's runs", ()),
               split_check.Commit("bbbbbbb", "2026-01-03T10:00:00+00:00", "a fix",
                                  ("benchmark/corpus/prog-b/playcoder.toml",)),
               split_check.Commit("ccccccc", "2026-01-05T10:00:00+00:00", "after the move: prog-b", ())]
    open_md = _split_md(tmp_path, "| prog-a | 2026-01-01 |\n",
                        "| prog-b | 2026-01-04T00:00:00Z | |\n", "")
    missing = split_check.unrecorded(split_check.read_split(open_md), commits)
    # the message names prog-a; bbbbbbb edits prog-b's folder before it moved; ccccccc came after the move
    assert missing == [("aaaaaaa", "prog-a"), ("bbbbbbb", "prog-b")]
    sealed_md = _split_md(tmp_path, "", "| prog-a | 2026-01-04T00:00:00Z | aaaaaaa |\n"
                                        "| prog-b | 2026-01-04T00:00:00Z | bbbbbbb |\n", "")
    assert split_check.unrecorded(split_check.read_split(sealed_md), commits) == []


def test_split_md_without_a_date_ends_in_one_sentence(tmp_path):
    path = tmp_path / "split.md"
    path.write_text("# no date\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="names no 'Split date"):
        split_check.read_split(path)


def test_a_clone_without_the_history_is_said_to_be_uncheckable(tmp_path):
    assert "not a git checkout" in split_check.history_missing(tmp_path)
