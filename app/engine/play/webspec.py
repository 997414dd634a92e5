"""The ``web`` key of ``playcoder.toml``: a program that is a web page (docs/targets.md, *Web pages*).

``web = "index.html"``: the engine serves the program folder over HTTP on the sandbox's own loopback and
opens that page.  ``web = {command = [...], url = "http://127.0.0.1:PORT/path"}``: the program's own server
(``npm run dev``) starts inside the sandbox and the page opens once the URL answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

LOCAL_URL = re.compile(r"^http://(127\.0\.0\.1|localhost):(\d{1,5})(/[^\s]*)?$")
"""A program's own server is reached on the sandbox's loopback only."""


@dataclass(frozen=True)
class WebSpec:
    """A web page to play: a file of the folder (``page``) or a server of the program's own."""

    page: str = ""
    """The page's path in the folder (``index.html``); '' when the program serves itself."""
    command: tuple[str, ...] = ()
    """The program's own server (``["npm", "run", "dev"]``), started in the folder inside the sandbox."""
    url: str = ""
    """Where the program's own server answers (``http://127.0.0.1:5173/``)."""

    @property
    def serves_itself(self) -> bool:
        return bool(self.command)


def parse_web(raw: Any, folder: Path, fail: Callable[[str], Exception]) -> WebSpec:
    """The ``web`` value checked; ``fail(sentence)`` makes the error to raise."""
    if isinstance(raw, str):
        page = raw.strip()
        page = page[2:] if page.startswith("./") else page
        if not page or page.startswith("/") or ".." in page.split("/") or "\\" in page:
            raise fail('"web" must name a page inside the folder, such as "index.html"')
        if not (folder / page).is_file():
            raise fail(f'"web" names {page}, which is not a file in {folder}')
        return WebSpec(page=page)
    if not isinstance(raw, dict) or set(raw) - {"command", "url"}:
        raise fail('"web" must be a page such as "index.html" or a table {command = [...], url = "http://127.0.0.1:'
                   'PORT/"}')
    command = raw.get("command")
    if isinstance(command, str):
        command = command.split()
    if not isinstance(command, list) or not command or not all(isinstance(c, str) and c for c in command):
        raise fail('"web.command" must be a non-empty list of strings, e.g. ["npm", "run", "dev"]')
    url = raw.get("url")
    match = LOCAL_URL.match(url) if isinstance(url, str) else None
    if match is None or not 1 <= int(match.group(2)) <= 65535:
        raise fail('"web.url" must be where the program\'s server answers on the loopback, such as '
                   '"http://127.0.0.1:5173/"')
    return WebSpec(command=tuple(command), url=str(url))
