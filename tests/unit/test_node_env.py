"""A web program's Node packages: none without a package.json, the folder's own node_modules as they are,
and a package.json without a lockfile refused with what to do."""

from __future__ import annotations

import pytest

from app.engine.errors import TargetError
from app.engine.play.node_env import node_modules


def test_no_package_json_needs_no_packages(tmp_path):
    assert node_modules(tmp_path, tmp_path) is None


def test_a_folders_own_node_modules_are_used_as_they_are(tmp_path):
    source, copy = tmp_path / "src", tmp_path / "copy"
    for folder in (source, copy):
        folder.mkdir()
        (folder / "package.json").write_text('{"name": "x"}')
    (source / "node_modules" / "typescript").mkdir(parents=True)
    assert node_modules(copy, source) == (source / "node_modules").resolve()


def test_a_package_json_without_a_lockfile_is_one_sentence(tmp_path):
    (tmp_path / "package.json").write_text('{"name": "x", "devDependencies": {"typescript": "5.9.3"}}')
    with pytest.raises(TargetError, match="no package-lock.json; run `npm install` there once"):
        node_modules(tmp_path, tmp_path)
