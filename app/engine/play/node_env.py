"""A web program's Node packages: ``npm ci`` from its lockfile, once, into a cached folder.

A program whose own server needs packages (``npm start`` running ``tsc``, a dev server) has a
``package.json`` and a ``package-lock.json``.  The packages are installed on the host with
``npm ci --ignore-scripts`` (exactly the locked versions; no install script of any package runs, so no
code of theirs runs outside the sandbox), into the user cache folder named by a hash of the two files, and
shown to the program read-only: the launcher links ``node_modules`` in its folder copy to them.  A folder
that already holds a ``node_modules`` (installed by hand) uses it as it is.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from app.engine.errors import TargetError
from app.engine.play.program_env import cache_root

LOCKFILES = ("package-lock.json", "npm-shrinkwrap.json")
INSTALL_TIMEOUT_S = 900
DONE = ".playcoder-done"
"""Written last in a cache entry: one without it is an install that did not finish."""


def node_modules(folder: Path, source: Path) -> Path | None:
    """The packages for the program in ``folder`` (a copy of ``source``), installed now unless cached; None
    when it declares none.  TargetError with what to do when they cannot be installed."""
    if not (folder / "package.json").is_file():
        return None
    if (source / "node_modules").is_dir():
        return (source / "node_modules").resolve()
    lock = next((folder / name for name in LOCKFILES if (folder / name).is_file()), None)
    if lock is None:
        raise TargetError(f"{source} has a package.json but no package-lock.json; run `npm install` there once "
                          "to lock its packages, then play it again.")
    key = hashlib.sha256((folder / "package.json").read_bytes() + b"\0" + lock.read_bytes()).hexdigest()[:16]
    entry = cache_root() / "node" / key
    if (entry / DONE).is_file():
        return entry / "node_modules"
    npm = shutil.which("npm")
    if npm is None:
        raise TargetError("this web program needs its Node packages, and npm is not installed; install it "
                          "(apt-get install npm) and play it again.")
    entry.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"{key}-", dir=entry.parent) as tmp:
        work = Path(tmp)
        shutil.copy2(folder / "package.json", work / "package.json")
        shutil.copy2(lock, work / lock.name)
        env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(work), "npm_config_cache": str(
            cache_root() / "node" / "npm-cache"), "npm_config_update_notifier": "false", "LANG": "C.UTF-8"}
        try:
            proc = subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"],
                                  cwd=work, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise TargetError(f"npm ci for {source.name} took over {INSTALL_TIMEOUT_S} s; check the network to the "
                              "npm registry and play it again.") from None
        if proc.returncode != 0:
            last = " | ".join((proc.stderr.strip() or proc.stdout.strip()).splitlines()[-3:])
            raise TargetError(f"npm ci for {source.name} failed ({last}); fix its package.json or lockfile, or "
                              "install its packages by hand (npm ci) in its folder.")
        (work / DONE).write_text(key)
        try:
            os.rename(work, entry)
        except OSError:  # another run installed the same packages meanwhile
            if not (entry / DONE).is_file():
                raise
        os.makedirs(work, exist_ok=True)  # the temporary folder's cleanup expects it
    return entry / "node_modules"
