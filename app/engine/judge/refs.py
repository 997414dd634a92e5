"""Reference pictures of ``similar`` expectations: a machine-local store, the font fingerprint, resolution.

Text in a picture is drawn with whatever font the machine's fontconfig picks
for the family a program names, so a reference PNG recorded on one machine
need not match the same correct program on another.  References are
therefore recorded *on the user's machine* from the reference program
(``playcoder refs record TARGET``) into a store outside the target folder
(the target folder is never written)::

    $PLAYCODER_REFS or <user data dir>/refs/
      <name>-<where>/              the target's name; 8 hex of the reference program's folder path
        <fonts>/                   the font fingerprint of this machine for that program (12 hex)
          <revision>/              12 hex of the reference program's source files
            meta.json              what was recorded: when, from which folder, seed, the fonts
            refs/twelve.png        the pictures, at the paths the script names

A ``reference = "refs/x.png"`` resolves to (:class:`ReferenceResolver`):

1. the local picture of the *reference program*: for ``APP@BUG`` that is the
   unpatched folder, for a copy of a bundled app (a repair workspace, a
   ``bench play`` candidate, the bundled app itself) the bundled folder, each
   at its current revision; for any other target the newest local recording
   of that target (any revision: it was recorded from "the version you
   trust");
2. else the committed file in the target folder.  Committed pictures carry a
   manifest (:data:`MANIFEST`) naming the fonts they were recorded with, so a
   finding can say whether they fit this machine.

When the reference program is known and a needed picture has no local copy
while the committed one is missing or was recorded with other fonts, the
script tester records the references automatically (:meth:`ReferenceResolver.record`,
a ``playcoder refs record`` child process), and every ``similar`` note names
the picture it used (local or committed).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

import platformdirs

from app.engine.errors import TargetError
from app.engine.play.scriptspec import ScriptCase
from app.engine.play.targetspec import TargetSpec, list_apps, load_spec

STORE_ENV = "PLAYCODER_REFS"
"""Overrides where the local store lives (tests point it at a temporary folder)."""
MANIFEST = "refs/recorded-on.json"
"""Written next to committed pictures: the font fingerprint of the machine that recorded them."""
META = "meta.json"
GENERIC_PATTERNS = ("sans-serif", "sans-serif:bold", "serif", "monospace", "monospace:bold")
"""Always part of the fingerprint: toolkit defaults (Tk, Qt) and fallbacks resolve through these."""
COMMON_FAMILIES = ("Helvetica", "Arial", "Times", "Times New Roman", "Courier", "Courier New", "Verdana",
                   "Tahoma", "Segoe UI", "Sans", "Serif", "Monospace", "Sans Serif", "Ubuntu", "Cantarell")
"""Names programs use that are often *not* installed (fontconfig substitutes another font)."""
MATCH_FORMAT = ("%{file|basename}|%{family[0]}|%{style[0]}|%{fontversion}|%{antialias}|%{hinting}|"
                "%{hintstyle}|%{autohint}|%{rgba}|%{lcdfilter}")
"""What ``fc-match`` reports per pattern: the font file (not its folder: distributions place them
differently), family, style, version and the rendering settings that change pixels."""
TEXT_SUFFIXES = frozenset({".py", ".pyw", ".qss", ".css", ".tcl", ".tk", ".ui", ".qml", ".js", ".ts", ".html",
                           ".json", ".toml", ".ini", ".cfg", ".c", ".h", ".cc", ".cpp", ".hpp", ".rs", ".go",
                           ".java", ".kt", ".cs", ".lua", ".rb"})
MAX_SCANNED_BYTES = 1_000_000
SKIP_DIRS = frozenset({"bugs", "__pycache__", ".pytest_cache", "node_modules", "venv"})
"""Never part of a program's sources (dot folders such as .git and .venv are skipped too)."""
FC_TIMEOUT_S = 20.0
RECORD_TIMEOUT_S = 600.0
"""An automatic recording that takes longer is given up (the committed pictures are used)."""
LOCAL, COMMITTED, MISSING = "local", "committed", "missing"
REPO = Path(__file__).resolve().parents[3]


# -- fonts -------------------------------------------------------------------------
@dataclass(frozen=True)
class FontFingerprint:
    """How this machine resolves the font families a program uses: ``digest`` keys the store."""

    digest: str
    fonts: dict[str, str] = field(default_factory=dict, hash=False)
    """pattern -> fc-match's answer (file|family|style|version|rendering settings)."""

    def family(self, pattern: str) -> str:
        """'Noto Sans Regular' for a pattern, from the recorded answer."""
        parts = self.fonts.get(pattern, "").split("|")
        return " ".join(p for p in parts[1:3] if p) if len(parts) > 2 else self.fonts.get(pattern, "?")

    def differences(self, other: dict[str, str]) -> list[str]:
        """'sans-serif: DejaVu Sans Book there, Noto Sans Regular here' for each pattern that differs."""
        there = FontFingerprint("", dict(other))
        out = []
        for pattern in sorted(set(self.fonts) | set(other)):
            if self.fonts.get(pattern) != other.get(pattern):
                here_f = self.family(pattern) if pattern in self.fonts else "not checked"
                there_f = there.family(pattern) if pattern in other else "not checked"
                if here_f == there_f:
                    here_f += " (other version or rendering)"
                out.append(f"{pattern}: {there_f} there, {here_f} here")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"fonts": self.digest, "families": dict(sorted(self.fonts.items()))}


def fc_match(pattern: str) -> str:
    """fontconfig's choice for a pattern, as :data:`MATCH_FORMAT`; '' without fontconfig."""
    try:
        proc = subprocess.run(["fc-match", "--format", MATCH_FORMAT, pattern], capture_output=True, text=True,
                              timeout=FC_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def installed_families() -> list[str]:
    """Every family name fontconfig knows (aliases included)."""
    try:
        proc = subprocess.run(["fc-list", "--format", "%{family}\n"], capture_output=True, text=True,
                              timeout=FC_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return []
    names = {n.strip() for line in proc.stdout.splitlines() for n in line.split(",")}
    return sorted(n for n in names if n)


def families_named(folder: Path, candidates: Iterable[str] | None = None) -> list[str]:
    """The font families a program's sources name in quotes (``("DejaVu Sans", 12)``, ``SysFont("arial")``,
    ``font-family: 'DejaVu Sans Mono'``), spelled as in ``candidates`` (installed and common names)."""
    names = sorted(set(candidates if candidates is not None else [*installed_families(), *COMMON_FAMILIES]),
                   key=len, reverse=True)
    if not names:
        return []
    spelled = {n.lower(): n for n in names}
    pattern = re.compile(r"(?:[\"'{]|font-family:\s*)(" + "|".join(re.escape(n) for n in names) + r")(?=[\"'}\s,;:]|$)",
                         re.IGNORECASE | re.MULTILINE)
    found: set[str] = set()
    for path in _source_files(folder):
        if path.suffix.lower() not in TEXT_SUFFIXES or path.stat().st_size > MAX_SCANNED_BYTES \
                or path.relative_to(folder).as_posix() == MANIFEST:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found.update(spelled[m.group(1).lower()] for m in pattern.finditer(text))
    return sorted(found)


def font_fingerprint(families: Iterable[str] = ()) -> FontFingerprint:
    """The fingerprint of this machine's fonts for the generic patterns and ``families`` (regular and bold)."""
    patterns = list(GENERIC_PATTERNS)
    for fam in sorted(set(families)):
        patterns.extend((fam, f"{fam}:bold"))
    fonts = {p: fc_match(p) for p in patterns}
    if not any(fonts.values()):
        fonts = {"fontconfig": f"absent ({sys.platform})"}
    digest = hashlib.sha256(json.dumps(fonts, sort_keys=True).encode()).hexdigest()[:12]
    return FontFingerprint(digest, fonts)


def program_fingerprint(folder: Path) -> FontFingerprint:
    """The fingerprint for the families a program folder names."""
    return font_fingerprint(families_named(folder))


# -- programs ------------------------------------------------------------------------
def _source_files(folder: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            if not name.endswith(".pyc"):
                yield Path(root) / name


def reference_names(cases: Iterable[ScriptCase], seed: int | None = None) -> list[str]:
    """The pictures named by ``similar`` and ``differs`` expectations (of the cases a run with ``seed``
    plays, if given).  A ``differs`` picture is recorded by a ``similar`` of another case."""
    out: list[str] = []
    for case in cases:
        if seed is not None and not case.applies_to(seed):
            continue
        for exp in case.expect:
            if exp.kind in ("similar", "differs") and exp.params["reference"] not in out:
                out.append(str(exp.params["reference"]))
    return out


def source_revision(folder: Path, skip: Iterable[str] = ()) -> str:
    """12 hex of a program's source files, without the reference pictures and the manifest (``skip``),
    ``bugs/``, caches and dot folders: what decides how the reference program looks."""
    left_out = {*skip, MANIFEST}
    h = hashlib.sha256()
    for path in _source_files(folder):
        rel = path.relative_to(folder).as_posix()
        if rel in left_out or not path.is_file():
            continue
        h.update(rel.encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def reference_program(spec: TargetSpec) -> Path | None:
    """The known-good program whose pictures a run of ``spec`` is judged against, when one is known:
    the unpatched folder of a bug variant, or the bundled app that ``spec`` is (a copy of) — same name,
    size and [[script]].  None for any other target: only its user knows which version is good."""
    if spec.bug:
        return spec.source.resolve()
    for folder in list_apps():
        if folder.name != spec.name and folder.resolve() != spec.source.resolve():
            continue
        if folder.resolve() == spec.source.resolve():
            return folder.resolve()
        try:
            bundled = load_spec(folder)
        except TargetError:
            continue
        if bundled.name == spec.name and bundled.size == spec.size and bundled.script == spec.script:
            return folder.resolve()
    return None


def committed_manifest(folder: Path) -> dict[str, Any] | None:
    path = folder / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_manifest(folder: Path, fingerprint: FontFingerprint, names: list[str], seed: int) -> Path:
    """Say which fonts the committed pictures of ``folder`` were recorded with (benchmark/record_refs.py)."""
    path = folder / MANIFEST
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {**fingerprint.to_dict(), "pictures": sorted(names), "seed": seed,
            "note": "written by `python -m benchmark.record_refs`; the fonts the pictures were drawn with"}
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


# -- the store -------------------------------------------------------------------------
def store_root() -> Path:
    env = os.environ.get(STORE_ENV)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("playcoder", appauthor=False)) / "refs"


@dataclass(frozen=True)
class RefKey:
    """Where one recording lives: target name, reference program folder, font fingerprint, revision."""

    name: str
    program: Path
    fonts: str
    revision: str

    def owner_dir(self, root: Path) -> Path:
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", self.name).strip("._") or "target"
        where = hashlib.sha256(str(self.program.resolve()).encode()).hexdigest()[:8]
        return root / f"{safe}-{where}"

    def slot(self, root: Path) -> Path:
        return self.owner_dir(root) / self.fonts / self.revision


class RefStore:
    """The machine-local reference pictures (see the module docstring for the layout)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else store_root()

    def find(self, key: RefKey, name: str) -> Path | None:
        path = key.slot(self.root) / name
        return path if path.is_file() else None

    def newest(self, key: RefKey, name: str) -> tuple[Path, dict[str, Any]] | None:
        """The picture from the most recent recording of this program with these fonts, any revision."""
        fonts_dir = key.owner_dir(self.root) / key.fonts
        best: tuple[float, Path, dict[str, Any]] | None = None
        if not fonts_dir.is_dir():
            return None
        for slot in fonts_dir.iterdir():
            path = slot / name
            if not path.is_file():
                continue
            meta = self.meta(slot)
            when = float(meta.get("pictures", {}).get(name, {}).get("recorded_at", path.stat().st_mtime))
            if best is None or when > best[0]:
                best = (when, path, meta)
        return (best[1], best[2]) if best else None

    @staticmethod
    def meta(slot: Path) -> dict[str, Any]:
        try:
            data = json.loads((slot / META).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def save(self, key: RefKey, pictures: dict[str, Path], fingerprint: FontFingerprint, *, seed: int,
             source: str = "", run: dict[str, Any] | None = None) -> Path:
        """Copy recorded pictures (reference name -> file) into the key's slot, each replaced atomically,
        and merge what was recorded into its meta.json.  Returns the slot."""
        slot = key.slot(self.root)
        slot.mkdir(parents=True, exist_ok=True)
        now = time.time()
        meta = self.meta(slot)
        entries = dict(meta.get("pictures", {}))
        for name, src in pictures.items():
            dest = slot / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".rec-", suffix=".png")
            os.close(fd)
            shutil.copyfile(src, tmp)
            os.replace(tmp, dest)
            entries[name] = {"recorded_at": now, "seed": seed}
        meta.update({"target": key.name, "program": str(key.program), "revision": key.revision,
                     "source": source or meta.get("source", "manual"), "recorded_at": now,
                     "pictures": entries, **fingerprint.to_dict()})
        if run:
            meta["run"] = run
        fd, tmp = tempfile.mkstemp(dir=slot, prefix=".meta-")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(meta, fh, indent=2, sort_keys=True)
        os.replace(tmp, slot / META)
        return slot


# -- resolution --------------------------------------------------------------------------
@dataclass(frozen=True)
class ResolvedRef:
    """A reference picture and where it came from (``local``, ``committed`` or ``missing``)."""

    path: Path | None
    origin: str
    detail: str
    """A short phrase for the finding, e.g. 'local reference, recorded on this machine from calculator'."""


class ReferenceResolver:
    """Resolves the ``reference`` pictures of one run of ``spec`` (see the module docstring)."""

    def __init__(self, spec: TargetSpec, store: RefStore | None = None,
                 fingerprint: FontFingerprint | None = None) -> None:
        self.spec = spec
        self.store = store or RefStore()
        self.names = reference_names(spec.script)
        source = spec.source.resolve()
        self.program = reference_program(spec)
        """The known-good program (None: only the user knows which version is good)."""
        self.fingerprint = fingerprint or program_fingerprint(self.program or source)
        """This machine's fonts for the program the committed pictures were drawn from."""
        self.exact: RefKey | None = None
        """The reference program at its current revision: what a bug variant or a bundled copy is judged by."""
        if self.program is not None:
            self.exact = RefKey(spec.name, self.program, self.fingerprint.digest,
                                source_revision(self.program, self.names))
        self.own: RefKey | None = None
        """The target's own recordings (any revision: recorded from the version its user trusts)."""
        self.key_fingerprint = self.fingerprint
        if self.program != source:
            if fingerprint is None and self.program is not None:
                self.key_fingerprint = program_fingerprint(source)
            self.own = RefKey(spec.name, source, self.key_fingerprint.digest, source_revision(source, self.names))
        key = self.own or self.exact
        assert key is not None  # the program is either the target's own folder or another one
        self.key = key
        """Where ``playcoder refs record`` on this target stores its pictures (fonts: ``key_fingerprint``)."""
        self.manifest = committed_manifest(spec.folder)
        self.note = ""
        """What :meth:`record` did, for the run's log."""

    # -- committed pictures --
    def committed_fits(self) -> bool | None:
        """True when the committed pictures were recorded with this machine's fonts, False when with
        others, None when unknown (no manifest)."""
        if self.manifest is None:
            return None
        return bool(self.manifest.get("fonts") == self.fingerprint.digest)

    def _committed_detail(self) -> str:
        fits = self.committed_fits()
        if fits:
            return "committed reference, recorded with the same fonts as this machine's"
        hint = f"record local ones with `playcoder refs record {self.spec.source}`"
        if fits is None:
            return f"committed reference, recorded with unknown fonts; {hint}"
        diff = self.fingerprint.differences(dict(self.manifest.get("families", {})) if self.manifest else {})
        shown = "; ".join(diff[:2]) + ("; …" if len(diff) > 2 else "")
        return f"committed reference, recorded with other fonts ({shown}); {hint}"

    # -- lookup --
    def local(self, name: str) -> tuple[Path, dict[str, Any]] | None:
        """The local picture: the target's own newest recording, else the reference program's at its
        current revision."""
        if self.own is not None:
            hit = self.store.newest(self.own, name)
            if hit is not None:
                return hit
        if self.exact is not None:
            path = self.store.find(self.exact, name)
            if path is not None:
                return path, self.store.meta(self.exact.slot(self.store.root))
        return None

    def resolve(self, name: str) -> ResolvedRef:
        hit = self.local(name)
        if hit is not None:
            path, meta = hit
            rev = meta.get("revision", "?")
            how = "recorded automatically" if meta.get("source") == "auto" else "recorded"
            return ResolvedRef(path, LOCAL, f"local reference, {how} on this machine from "
                                            f"{Path(str(meta.get('program', '?'))).name} rev {rev}")
        committed = self.spec.folder / name
        if committed.is_file():
            return ResolvedRef(committed, COMMITTED, self._committed_detail())
        return ResolvedRef(None, MISSING, "no local or committed picture")

    def missing_locally(self, seed: int) -> list[str]:
        return [n for n in reference_names(self.spec.script, seed) if self.local(n) is None]

    def should_record(self, seed: int) -> bool:
        """A reference program is known, a picture this run needs has no local copy, and the committed
        picture is missing or not known to fit this machine's fonts."""
        if self.exact is None:
            return False
        missing = self.missing_locally(seed)
        if not missing:
            return False
        return any(not (self.spec.folder / n).is_file() for n in missing) or not self.committed_fits()

    def record(self, seed: int, timeout_s: float = RECORD_TIMEOUT_S) -> bool:
        """Record the reference program's pictures into the local store in a child process
        (``playcoder refs record``, its own private display); True when the store now has them.
        Concurrent runs (``bench --jobs``) wait for one another's recording instead of repeating it."""
        if self.exact is None or self.program is None:
            return False
        owner = self.exact.owner_dir(self.store.root)
        owner.mkdir(parents=True, exist_ok=True)
        with open(owner / "record.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not self.should_record(seed):
                self.note = f"references of {self.spec.name} were recorded by another run meanwhile"
                return True
            with tempfile.TemporaryDirectory(prefix="playcoder-refs-") as tmp:
                cmd = [sys.executable, "-m", "app", "refs", "record", str(self.program), "--seed", str(seed),
                       "--db", str(Path(tmp) / "record.db"), "--auto"]
                env = {**os.environ, STORE_ENV: str(self.store.root)}
                t0 = time.monotonic()
                try:
                    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout_s)
                    ok, tail = proc.returncode == 0, (proc.stderr.strip() or proc.stdout.strip())[-300:]
                except subprocess.TimeoutExpired:
                    ok, tail = False, f"it took longer than {timeout_s:g} s"
                except OSError as exc:
                    ok, tail = False, str(exc)
        recorded = not self.missing_locally(seed)
        took = time.monotonic() - t0
        if recorded:
            self.note = (f"recorded the reference pictures of {self.spec.name} on this machine from "
                         f"{self.program} ({took:.0f} s)")
        else:
            self.note = (f"could not record the reference pictures of {self.spec.name} from {self.program}"
                         f"{'' if ok else ': ' + tail}; using the committed ones")
        return recorded
