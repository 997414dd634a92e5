"""The ``web`` key of playcoder.toml: a page of the folder or a server of the program's own, checked when read."""

from __future__ import annotations

import pytest

from app.engine.errors import TargetError
from app.engine.play.targetspec import parse_spec


def spec(tmp_path, **data):
    (tmp_path / "index.html").write_text("<p>hi</p>")
    return parse_spec({"name": "page", **data}, folder=tmp_path, source=tmp_path, bug=None, where="playcoder.toml")


def test_a_page_of_the_folder_needs_no_command(tmp_path):
    web = spec(tmp_path, web="./index.html").web
    assert web is not None and web.page == "index.html" and not web.serves_itself


def test_a_server_of_the_programs_own_is_its_command(tmp_path):
    parsed = spec(tmp_path, web={"command": ["npm", "run", "dev"], "url": "http://127.0.0.1:5173/"})
    assert parsed.web is not None and parsed.web.serves_itself and parsed.command == ("npm", "run", "dev")


@pytest.mark.parametrize("web, words", [
    ("missing.html", "not a file"),
    ("../index.html", "inside the folder"),
    ({"command": ["npm", "start"], "url": "http://example.com/"}, "loopback"),
    ({"command": [], "url": "http://127.0.0.1:3000/"}, "web.command"),
    ({"url": "http://127.0.0.1:3000/", "port": 3}, "must be a page"),
])
def test_a_wrong_web_value_is_one_sentence(tmp_path, web, words):
    with pytest.raises(TargetError, match=words):
        spec(tmp_path, web=web)


def test_a_web_page_with_a_command_too_is_refused(tmp_path):
    with pytest.raises(TargetError, match="needs no"):
        spec(tmp_path, web="index.html", command=["python", "x.py"])
