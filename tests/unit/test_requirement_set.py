"""A program's requirements are read without running anything, and every path they name stays in its folder."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from app.engine.errors import TargetError
from app.engine.play import sandbox
from app.engine.play.program_env import env_key
from app.engine.play.requirement_set import Reader, logical_lines


def read(folder: Path, text: str, name: str = "requirements.txt"):
    (folder / name).write_text(text)
    return Reader(folder).read(name)


def test_includes_are_flattened_and_split_into_named_and_local(tmp_path):
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "extra.txt").write_text("six==1.16  # pinned\n-c ../cons.txt\n")
    (tmp_path / "cons.txt").write_text("six<2\n")
    pkg = tmp_path / "vendor" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "pyproject.toml").write_text('[build-system]\nrequires = ["flit_core>=3"]\n'
                                        '[project]\nname = "pkg"\ndependencies = ["attrs"]\n')
    reqs = read(tmp_path, "# a comment\n-r more/extra.txt\n./vendor/pkg\n--index-url https://pypi.org/simple\n"
                          "pygame>=2 ; python_version >= '3.8' \\\n  --hash=sha256:00\n")
    assert reqs.named == ["six==1.16", "pygame>=2 ; python_version >= '3.8' --hash=sha256:00"]
    assert reqs.constraints == ["six<2"]
    assert reqs.local == [Path(os.path.realpath(pkg))]
    assert reqs.build_needs == ["flit_core>=3", "attrs"]
    assert reqs.options == ["--index-url https://pypi.org/simple"]


@pytest.mark.parametrize("line", ["-r /etc/hostname", "--requirement=/etc/hostname", "-c/etc/hostname",
                                  "-r ../outside.txt", "/etc", "pkg @ file:///etc", "-e /usr/../etc",
                                  "--find-links /root", "file:///etc/ssl"])
def test_a_path_outside_the_folder_is_refused_naming_the_line_not_the_content(tmp_path, line):
    folder = tmp_path / "game"
    folder.mkdir()
    (tmp_path / "outside.txt").write_text("HOST-SECRET-CONTENT\n")
    with pytest.raises(TargetError) as err:
        read(folder, f"six\n{line}\n")
    said = str(err.value)
    assert said.startswith("requirements.txt line 2 names ") and "lies outside the program folder" in said
    assert "HOST-SECRET-CONTENT" not in said and said.count(".") <= 8 and "\n" not in said


def test_a_link_out_of_the_folder_is_outside_too(tmp_path):
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "inc.txt").symlink_to("/etc/hostname")
    with pytest.raises(TargetError, match="line 1 names 'inc.txt', which lies outside"):
        read(folder, "-r inc.txt\n")


def test_unknown_options_and_deep_includes_are_refused(tmp_path):
    with pytest.raises(TargetError, match=r"line 1: the option '--global-option' is not supported"):
        read(tmp_path, "--global-option=--evil\n")
    (tmp_path / "loop.txt").write_text("-r loop.txt\n")
    with pytest.raises(TargetError, match="includes nest deeper than"):
        read(tmp_path, "-r loop.txt\n")


def test_the_requirements_file_itself_must_be_inside(tmp_path):
    with pytest.raises(TargetError, match="lies outside the program folder"):
        Reader(tmp_path).read("../x.txt")


def test_the_cache_key_is_what_is_built_not_the_lines(tmp_path):
    keys = []
    for name, content in (("a", "A = 1\n"), ("b", "A = 2\n"), ("c", "A = 1\n")):
        folder = tmp_path / name
        (folder / "pkg").mkdir(parents=True)
        (folder / "pkg" / "setup.py").write_text(content)
        keys.append(env_key(read(folder, "./pkg\n"), folder))
    assert keys[0] != keys[1], "same line, different local package: different environments"
    assert keys[0] == keys[2], "same content: the same build"


def test_logical_lines_join_continuations():
    assert logical_lines("a \\\n b\n#x\n\nc # d\n") == [(1, "a b"), (5, "c")]


def test_a_venv_home_outside_the_folder_and_the_engine_is_refused_naming_the_line(tmp_path):
    secret = tmp_path / "root-config" / "secrets"
    (secret / "bin").mkdir(parents=True)
    folder = tmp_path / "game"
    (folder / ".venv" / "bin").mkdir(parents=True)
    (folder / ".venv" / "bin" / "python").symlink_to(sys.executable)
    (folder / ".venv" / "pyvenv.cfg").write_text(f"include-system-site-packages = false\nhome = {secret / 'bin'}\n")
    with pytest.raises(sandbox.SandboxError, match=r"pyvenv.cfg line 2 names home = .*outside the program folder"):
        sandbox.interpreter_paths([".venv/bin/python"], folder)
    (folder / ".venv" / "pyvenv.cfg").write_text(f"home = {os.path.dirname(os.path.realpath(sys.executable))}\n")
    shown = sandbox.interpreter_paths([".venv/bin/python"], folder)
    assert str(secret) not in " ".join(shown)


def test_an_interpreter_in_a_folder_only_named_is_not_shown(tmp_path):
    secret = tmp_path / "home-config"
    secret.mkdir()
    exe = secret / "tool"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    folder = tmp_path / "game"
    folder.mkdir()
    assert sandbox.interpreter_paths([str(exe)], folder) == []
