"""Install the web corpus from the npm registry into a cache folder outside the repository.

    python -m benchmark.web_corpus.install [--cache DIR] [--programs a,b] [--list]

For every package of ``benchmark/web_corpus/manifest.toml``: ``npm pack NAME@VERSION`` (through npm's own
cache, so a second install reads no network), the tarball's sha512 checked against the manifest's
``integrity``, and the tarball unpacked (no package scripts run: nothing is executed at install).  For
every program: its ``root`` folder copied to ``CACHE/programs/NAME`` with a ``playcoder.toml`` written
beside its entry page, so ``playcoder test CACHE/programs/NAME`` plays it.

The cache is ``$PLAYCODER_WEB_CORPUS`` when set, else ``web-corpus`` in the user cache folder.  Nothing
is written into the repository.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

import platformdirs

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "manifest.toml"
CACHE_ENV = "PLAYCODER_WEB_CORPUS"
NPM_TIMEOUT_S = 600
INSTALLED_MARK = ".playcoder-integrity"


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    integrity: str
    license: str

    @property
    def folder_name(self) -> str:
        return f"{self.name.replace('/', '+').lstrip('@')}-{self.version}"


@dataclass(frozen=True)
class Program:
    name: str
    package: str
    root: str
    entry: str
    kind: str
    size: tuple[int, int]
    keys: tuple[str, ...]
    goal: str
    mutate: tuple[str, ...]
    ignore: tuple[tuple[int, int, int, int], ...] = ()
    startup_timeout: int = 0


def load_manifest(path: Path = MANIFEST) -> tuple[dict[str, Package], list[Program]]:
    """The packages by name and the programs, in manifest order."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    packages = {p["name"]: Package(p["name"], p["version"], p["integrity"], p.get("license", ""))
                for p in data["package"]}
    programs = []
    for p in data["program"]:
        if p["package"] not in packages:
            raise SystemExit(f"{path}: program {p['name']} names package {p['package']}, which has no [[package]]")
        programs.append(Program(p["name"], p["package"], p.get("root", "."), p.get("entry", "index.html"),
                                p.get("kind", "app"), (int(p["size"][0]), int(p["size"][1])), tuple(p.get("keys", [])),
                                p.get("goal", ""), tuple(p.get("mutate", [])),
                                tuple((int(b[0]), int(b[1]), int(b[2]), int(b[3])) for b in p.get("ignore", [])),
                                int(p.get("startup_timeout", 0))))
    return packages, programs


def cache_dir(given: Path | None = None) -> Path:
    if given is not None:
        return given.expanduser().resolve()
    env = os.environ.get(CACHE_ENV)
    return Path(env).expanduser().resolve() if env else Path(platformdirs.user_cache_dir("playcoder")) / "web-corpus"


def program_folder(name: str, cache: Path | None = None) -> Path:
    """Where an installed program's wrapper folder is (it may not be installed yet)."""
    return cache_dir(cache) / "programs" / name


def _sri(path: Path) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode("ascii")


def fetch_package(pkg: Package, cache: Path) -> Path:
    """The unpacked package folder, packed and checked the first time."""
    dest = cache / "packages" / pkg.folder_name
    mark = dest / INSTALLED_MARK
    if mark.is_file() and mark.read_text(encoding="utf-8").strip() == pkg.integrity:
        return dest
    if shutil.which("npm") is None:
        raise SystemExit("npm is not installed; install Node.js and npm (installer/setup.sh does) and run this again")
    with tempfile.TemporaryDirectory(prefix="playcoder-npm-pack-") as tmp:
        proc = subprocess.run(["npm", "pack", f"{pkg.name}@{pkg.version}", "--pack-destination", tmp, "--silent"],
                              capture_output=True, text=True, timeout=NPM_TIMEOUT_S)
        tarballs = list(Path(tmp).glob("*.tgz"))
        if proc.returncode != 0 or len(tarballs) != 1:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            raise SystemExit(f"npm pack {pkg.name}@{pkg.version} failed ({tail}); check the network and npm's "
                             "registry setting, then run this again")
        got = _sri(tarballs[0])
        if got != pkg.integrity:
            raise SystemExit(f"{pkg.name}@{pkg.version} from the registry is not the tarball the manifest pins "
                             f"({got[:24]}... != {pkg.integrity[:24]}...); do not play it")
        if dest.exists():
            shutil.rmtree(dest)
        unpack = Path(tmp) / "unpacked"
        with tarfile.open(tarballs[0]) as tar:
            tar.extractall(unpack, filter="data")
        top = [p for p in unpack.iterdir() if p.is_dir()]
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(top[0] if len(top) == 1 else unpack), dest)
    mark.write_text(pkg.integrity + "\n", encoding="utf-8")
    return dest


def wrapper_toml(prog: Program, pkg: Package) -> str:
    """The playcoder.toml that plays the program as it is."""
    def q(s: str) -> str:
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    lines = [f"# Written by benchmark/web_corpus/install.py: {pkg.name}@{pkg.version} ({pkg.license or 'see package'}),",
             f"# folder {prog.root!r} of the package.",
             f"name = {q(prog.name)}", f"kind = {q(prog.kind)}", f"web = {q(prog.entry)}",
             f"size = [{prog.size[0]}, {prog.size[1]}]", f"goal = {q(prog.goal)}",
             "keys = [" + ", ".join(q(k) for k in prog.keys) + "]"]
    if prog.startup_timeout:
        lines.append(f"startup_timeout = {prog.startup_timeout}")
    if prog.ignore:
        lines += ["", "[differential]", "ignore = [" + ", ".join(f"[{a}, {b}, {c}, {d}]" for a, b, c, d in prog.ignore)
                  + "]"]
    return "\n".join(lines) + "\n"


def install_program(prog: Program, pkg: Package, cache: Path) -> Path:
    """A fresh wrapper folder for the program: its root copied, its playcoder.toml written."""
    source = (fetch_package(pkg, cache) / prog.root).resolve()
    if not (source / prog.entry).is_file():
        raise SystemExit(f"{pkg.name}@{pkg.version} has no {prog.root}/{prog.entry}; fix the manifest entry of "
                         f"{prog.name}")
    dest = program_folder(prog.name, cache)
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest, symlinks=False)
    (dest / "playcoder.toml").write_text(wrapper_toml(prog, pkg), encoding="utf-8")
    return dest


def install(names: list[str] | None = None, cache: Path | None = None) -> list[Path]:
    """Install the named programs (default: all); the wrapper folders, in manifest order."""
    packages, programs = load_manifest()
    if names:
        unknown = sorted(set(names) - {p.name for p in programs})
        if unknown:
            raise SystemExit(f"not in the web corpus: {', '.join(unknown)}; run with --list to see its programs")
        programs = [p for p in programs if p.name in names]
    root = cache_dir(cache)
    return [install_program(p, packages[p.package], root) for p in programs]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmark.web_corpus.install", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=None, help=f"cache folder (default: ${CACHE_ENV} or the user cache)")
    ap.add_argument("--programs", default="", help="comma-separated program names (default: all)")
    ap.add_argument("--list", action="store_true", help="list the corpus and exit")
    args = ap.parse_args(argv)
    packages, programs = load_manifest()
    if args.list:
        for p in programs:
            pkg = packages[p.package]
            print(f"{p.name}: {pkg.name}@{pkg.version} {p.root}/{p.entry} ({p.kind})")
        return 0
    for folder in install([n for n in args.programs.split(",") if n] or None, args.cache):
        print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
