"""Starting a web page: the system's Chromium in one app-mode window, inside the program's sandbox.

The sandbox starts ``play/seeding/_playcoder_web.py`` (the standard library only), which serves the program
folder on the sandbox's own loopback (or starts the program's own server and waits for its URL) and starts
the browser as its child: one window with no tabs and no address bar at the target's ``size``, a fresh
profile in the sandbox's private ``/tmp``, the DevTools protocol on a pipe (no port).  Once its window is up,
:meth:`~app.engine.play.web_inside.WebInside.open_page` adds the engine's probe and loads the page again, so
the probe is in place before the page's first script of the load that is played.

Chromium's own sandbox cannot start inside bubblewrap (it needs namespaces and setuid helpers the jail takes
away), so it runs with ``--no-sandbox``: what contains it is the jail (docs/architecture.md, *Web pages*).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from app.engine.errors import TargetError
from app.engine.play.node_env import node_modules
from app.engine.play.targetspec import TargetSpec
from app.engine.play.web_inside import LogSink, WebInside

LAUNCHER = Path(__file__).resolve().parent / "seeding" / "_playcoder_web.py"
BROWSERS = ("/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser")
"""Where Debian's chromium package puts the browser (the first is the binary its wrapper script runs)."""
BROWSER_START_S = 2.0
"""Of ``startup_timeout``, what the browser keeps for itself after the program's own server answers: a server
that never answers is told apart from a browser that shows no window."""
PROFILE = "/tmp/playcoder-browser"
"""The browser's profile: in the sandbox's private /tmp, so every start has a fresh one."""
BROWSER_FLAGS = (
    "--no-sandbox", "--test-type", "--disable-gpu", "--disable-quic", "--no-first-run", "--no-default-browser-check",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
    "--disable-extensions", "--disable-breakpad", "--no-pings", "--password-store=basic", "--disable-dev-shm-usage",
    "--mute-audio", "--autoplay-policy=no-user-gesture-required", "--deny-permission-prompts", "--disable-renderer-backgrounding",
    "--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows", "--hide-crash-restore-bubble",
    "--block-new-web-contents", "--noerrdialogs",
    "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication",
    "--force-device-scale-factor=1", "--remote-debugging-pipe", "--window-position=0,0", "--log-level=3",
)
"""``--no-sandbox``: see the module docstring; ``--test-type`` keeps the bar warning about it away;
``--block-new-web-contents`` makes ``window.open`` and pop-ups fail (one window is played); sound plays muted
and needs no gesture first (a page whose music starts with it is no crash); the rest keep a
closed machine's browser from reaching out, prompting, or slowing a window it thinks hidden."""


@dataclass
class WebLaunch:
    """What starting one web page needs: the sandbox's command, the page's URL and the inside channel."""

    command: list[str]
    url: str
    inside: WebInside
    read_only: tuple[Path, ...] = ()
    """What the sandbox shows the program besides its folder: its Node packages."""


def browser_path() -> str:
    """The system's Chromium; TargetError saying how to install it when there is none."""
    found = next((path for path in BROWSERS if os.access(path, os.X_OK)), None) or shutil.which("chromium")
    if found is None:
        raise TargetError("playing a web page needs Chromium; install it with `apt-get install chromium` "
                          "(installer/setup.sh does).")
    return found


def web_launch(spec: TargetSpec, seed: int, log: LogSink) -> WebLaunch:
    """How to start ``spec``'s page: ``python -I -S`` runs the launcher with its configuration."""
    web = spec.web
    assert web is not None
    path = browser_path()
    packages = node_modules(spec.folder, spec.source) if web.serves_itself else None
    inside = WebInside(spec.folder, log, seed)
    width, height = spec.size
    browser = [path, *BROWSER_FLAGS, f"--window-size={width},{height}", f"--user-data-dir={PROFILE}",
               f"--js-flags=--random-seed={seed or 1}"]
    read_fd, write_fd = inside.child_fds()
    config: dict[str, object] = {"fds": [read_fd, write_fd]}
    if web.serves_itself:
        url = web.url
        server = [sys.executable if part in ("python", "python3") else part for part in web.command]
        config.update(server=server, url=url, wait_s=max(1.0, spec.startup_timeout - BROWSER_START_S))
        if packages is not None:
            config["node_modules"] = str(packages)  # `python`: the engine's, as for command
    else:
        port = _free_port()
        url = f"http://127.0.0.1:{port}/{quote(web.page)}"
        config["port"] = port
    config["browser"] = [*browser, f"--app={url}"]  # only a page's URL makes an app window (not about:blank)
    return WebLaunch([sys.executable, "-I", "-S", str(LAUNCHER), json.dumps(config)], url, inside,
                     (packages,) if packages is not None else ())


def _free_port() -> int:
    """A port free here: inside the sandbox's own network namespace any port is, and without bubblewrap this
    one is not taken by another run."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
