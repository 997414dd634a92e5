"""Results describe a commit: every file under benchmark/results names the commit it was measured on and says
its tree was clean, or is listed as stale with why (benchmark/regenerate.py's STALE).  A file that does not say
its tree state is not clean."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from app.engine.bench.provenance import describe_commit, measured_on
from benchmark import regenerate

RESULTS = regenerate.RESULTS
COMMIT = re.compile(r"\bcommit ([0-9a-f]{12,40})\b")


DIRTY_WORDS = ("uncommitted changes", "tree DIRTY", "tree unknown", "tree state unknown")


def _md_provenance(path: Path) -> tuple[str | None, bool]:
    """(commit, dirty) from a Markdown result's first lines; a file that says no tree state takes its JSON
    twin's (the same command wrote both), and is dirty without one."""
    head = "\n".join(path.read_text(encoding="utf-8").splitlines()[:12])
    m = COMMIT.search(head)
    if any(word in head for word in DIRTY_WORDS):
        dirty = True
    elif "tree clean" in head or "clean worktree" in head:
        dirty = False
    else:
        twin = path.with_suffix(".json")
        dirty = _json_provenance(twin)[1] if twin.is_file() else True
    return (m.group(1) if m else None), dirty


def _json_provenance(path: Path) -> tuple[str | None, bool]:
    data = json.loads(path.read_text(encoding="utf-8"))
    for info in (data.get("regenerated_on"), data.get("measured_on"), (data.get("summary") or {}).get("measured_on")):
        if isinstance(info, dict) and re.fullmatch(r"[0-9a-f]{12,40}", str(info.get("commit", ""))):
            return str(info["commit"]), info.get("dirty") is not False
    return None, True


def _provenance(path: Path) -> tuple[str | None, bool]:
    return _json_provenance(path) if path.suffix == ".json" else _md_provenance(path)


FILES = sorted(p for p in RESULTS.iterdir() if p.suffix in (".md", ".json"))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_a_results_file_names_its_commit_and_a_clean_tree(path):
    if path.stem in regenerate.STALE:
        assert regenerate.STALE[path.stem].strip(), f"{path.name} is marked stale without a reason"
        return
    commit, dirty = _provenance(path)
    assert commit, f"{path.name} names no commit: regenerate it (python -m benchmark.regenerate --only ...)"
    assert not dirty, (f"{path.name} was measured on a tree with uncommitted changes: regenerate it from a clean "
                       f"commit, or list it in benchmark/regenerate.py's STALE with why")


def test_every_results_file_has_a_command_and_every_stale_mark_a_file():
    written = {out for e in regenerate.ENTRIES for out in e.outputs}
    orphans = sorted(p.name for p in FILES if p.name not in written and p.name not in regenerate.NOT_REGENERATED)
    assert not orphans, f"no benchmark.regenerate entry writes {orphans}"
    stems = {p.stem for p in FILES}
    assert not sorted(set(regenerate.STALE) - stems), "STALE names results that do not exist"
    fresh = sorted(s for s in regenerate.STALE if s in stems
                   and all(not _provenance(p)[1] and _provenance(p)[0] for p in FILES if p.stem == s))
    assert not fresh, f"these results now name a clean commit: drop them from STALE: {fresh}"


def test_regenerate_refuses_a_dirty_tree_in_one_sentence(monkeypatch, capsys):
    monkeypatch.setattr(regenerate, "measured_on", lambda root=None: {"commit": "a" * 40, "dirty": True})
    assert regenerate.main(["--only", "split"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "uncommitted changes" in err and "--worktree" in err


def test_regenerate_names_unknown_entries(capsys):
    assert regenerate.main(["--only", "nope", "--list"]) == 2
    assert "no such entry: nope" in capsys.readouterr().err


def test_stamp_names_the_commit_once(tmp_path):
    md, js = tmp_path / "r.md", tmp_path / "r.json"
    md.write_text("table\n")
    js.write_text('{"runs": []}\n')
    info = {"commit": "b" * 40, "dirty": False, "date": "2026-11-27"}
    for _ in range(2):
        regenerate.stamp(md, info)
        regenerate.stamp(js, info)
    assert md.read_text().count(regenerate.STAMP) == 1 and _md_provenance(md) == ("b" * 12, False)
    assert _json_provenance(js) == ("b" * 40, False)


def test_a_results_file_that_does_not_say_its_tree_state_is_not_clean(tmp_path):
    md = tmp_path / "r.md"
    md.write_text("Measured on commit " + "c" * 12 + ", 2026-11-27.\n", encoding="utf-8")
    assert _md_provenance(md) == ("c" * 12, True)
    (tmp_path / "r.json").write_text(json.dumps({"measured_on": {"commit": "c" * 40, "date": "2026-11-27"}}))
    assert _md_provenance(md)[1] and _json_provenance(tmp_path / "r.json")[1]
    (tmp_path / "r.json").write_text(json.dumps({"measured_on": {"commit": "c" * 40, "dirty": False}}))
    assert _md_provenance(md) == ("c" * 12, False)


def test_untracked_files_make_a_tree_dirty(tmp_path):
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "a.py").write_text("x = 1\n")
    subprocess.run([*git, "add", "a.py"], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "a"], cwd=tmp_path, check=True)
    assert measured_on(tmp_path)["dirty"] is False
    assert "(tree clean)" in describe_commit(measured_on(tmp_path))
    (tmp_path / "new_module.py").write_text("y = 2\n")
    assert measured_on(tmp_path)["dirty"] is True
    assert "(with uncommitted changes)" in describe_commit(measured_on(tmp_path))
