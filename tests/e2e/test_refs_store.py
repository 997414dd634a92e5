"""Reference pictures recorded on this machine: the font fingerprint, the local store, resolution, recording.

The store lives under $PLAYCODER_REFS (conftest points it at a temporary folder).
A target folder is never written: the end-to-end tests compare every file's hash
and mtime before and after.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from app.engine.judge import refs
from app.engine.judge.refs import (FontFingerprint, RefStore, ReferenceResolver, families_named, reference_program,
                                   source_revision)
from app.engine.play.targetspec import APPS_DIR, load_spec, resolve_target
from app.engine.trace.store import TrajectoryStore

from suite import ROOT, needs_xvfb

MINI_MAIN = '''import tkinter as tk

STEP = 1
root = tk.Tk()
root.title("mini")
root.geometry("220x90")
label = tk.Label(root, text="0", font=("DejaVu Sans", 28, "bold"), bg="#ffffff", fg="#202020")
label.pack(fill="both", expand=True)
root.bind("<Key-a>", lambda e: label.configure(text=str(int(label.cget("text")) + STEP)))
root.after(100, root.focus_force)
root.mainloop()
'''
MINI_SPEC = '''name = "mini"
kind = "app"
command = ["python", "main.py"]
size = [220, 90]

[window]
title = "mini"

[[criteria]]
id = "counts"
text = "a adds one"

[[script]]
criterion = "counts"
steps = [{action = "press", key = "a"}]
expect = [{kind = "similar", reference = "refs/one.png", region = [0, 0, 220, 90], threshold = 0.95}]
'''
BUG_PATCH = '''--- a/main.py
+++ b/main.py
@@ -1,6 +1,6 @@
 import tkinter as tk

-STEP = 1
+STEP = 2
 root = tk.Tk()
 root.title("mini")
 root.geometry("220x90")
'''


def mini(tmp_path: Path, *, committed: bool = False, bug: bool = False) -> Path:
    folder = tmp_path / "mini"
    (folder / "refs").mkdir(parents=True)
    (folder / "main.py").write_text(MINI_MAIN)
    (folder / "playcoder.toml").write_text(MINI_SPEC)
    if committed:
        Image.new("RGB", (220, 90), (200, 0, 0)).save(folder / "refs" / "one.png")  # "recorded elsewhere"
    if bug:
        (folder / "bugs").mkdir()
        (folder / "bugs" / "two.patch").write_text(BUG_PATCH)
    return folder


def snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``folder``: content hash and mtime."""
    return {str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def fake_fonts(sans: str = "DejaVuSans.ttf|DejaVu Sans|Book") -> FontFingerprint:
    fonts = {"sans-serif": sans, "DejaVu Sans": "DejaVuSans.ttf|DejaVu Sans|Book"}
    return FontFingerprint(hashlib.sha256(json.dumps(fonts, sort_keys=True).encode()).hexdigest()[:12], fonts)


# -- fonts ------------------------------------------------------------------------------
def test_families_named_finds_quoted_families_and_skips_manifest_and_bugs(tmp_path):
    (tmp_path / "refs").mkdir()
    (tmp_path / "bugs").mkdir()
    (tmp_path / "main.py").write_text('label = tk.Label(root, font=("DejaVu Sans", 12))\n'
                                      'score = pygame.font.SysFont("arial", 20)\n# Courier is only a word here\n')
    (tmp_path / "style.qss").write_text("QLabel { font-family: 'DejaVu Sans Mono'; }\n")
    (tmp_path / "refs" / "recorded-on.json").write_text('{"sans-serif": "Noto Sans"}')
    (tmp_path / "bugs" / "x.patch").write_text('+font=("Noto Sans", 9)\n')
    names = families_named(tmp_path, ["DejaVu Sans", "DejaVu Sans Mono", "Arial", "Noto Sans", "Courier"])
    assert names == ["Arial", "DejaVu Sans", "DejaVu Sans Mono"]


def test_the_fingerprint_follows_fontconfig_and_says_what_changed(monkeypatch):
    answers = {"sans-serif": "DejaVuSans.ttf|DejaVu Sans|Book|155320|True|True|1|False||1"}
    monkeypatch.setattr(refs, "fc_match", lambda pattern: answers.get(pattern, f"x.ttf|{pattern}|Regular|1"))
    first, again = refs.font_fingerprint(["Helvetica"]), refs.font_fingerprint(["Helvetica"])
    assert first == again and {"sans-serif", "Helvetica", "Helvetica:bold", "monospace"} <= set(first.fonts)
    answers["sans-serif"] = "NotoSans-Regular.ttf|Noto Sans|Regular|131334|True|True|1|False||1"
    changed = refs.font_fingerprint(["Helvetica"])
    assert changed.digest != first.digest
    assert changed.differences(first.fonts) == ["sans-serif: DejaVu Sans Book there, Noto Sans Regular here"]
    monkeypatch.setattr(refs, "fc_match", lambda pattern: "")
    assert refs.font_fingerprint().fonts == {"fontconfig": f"absent ({sys.platform})"}


def test_the_real_fingerprint_names_the_fonts_of_this_machine():
    if shutil.which("fc-match") is None:
        pytest.skip("fontconfig is not installed")
    fp = refs.program_fingerprint(APPS_DIR / "calculator")
    assert "DejaVu Sans" in fp.fonts and fp.fonts["DejaVu Sans"].startswith("DejaVuSans.ttf|DejaVu Sans|")
    assert len(fp.digest) == 12 and fp == refs.program_fingerprint(APPS_DIR / "calculator")


# -- revisions and reference programs ------------------------------------------------------
def test_the_revision_covers_the_program_not_its_pictures_bugs_or_caches(tmp_path):
    folder = mini(tmp_path, committed=True, bug=True)
    rev = source_revision(folder, ["refs/one.png"])
    Image.new("RGB", (220, 90), (0, 0, 200)).save(folder / "refs" / "one.png")
    (folder / "refs" / "recorded-on.json").write_text("{}")
    (folder / "bugs" / "more.patch").write_text("x")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0")
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref")
    assert source_revision(folder, ["refs/one.png"]) == rev
    (folder / "main.py").write_text(MINI_MAIN.replace("#ffffff", "#fefefe"))
    assert source_revision(folder, ["refs/one.png"]) != rev


def test_the_reference_program_of_a_bug_variant_and_of_a_bundled_copy(tmp_path):
    folder = mini(tmp_path, bug=True)
    resolved = resolve_target(f"{folder}@two")
    try:
        assert reference_program(resolved.spec) == folder.resolve()
    finally:
        resolved.cleanup()
    assert reference_program(load_spec(folder)) is None  # only its user knows which version is good
    copy = tmp_path / "workspace" / "calculator"
    shutil.copytree(APPS_DIR / "calculator", copy, ignore=shutil.ignore_patterns("bugs"))
    assert reference_program(load_spec(copy)) == (APPS_DIR / "calculator").resolve()  # a repair workspace
    other = (copy / "playcoder.toml").read_text().replace('reference = "refs/cleared.png"',
                                                           'reference = "refs/twelve.png"')
    (copy / "playcoder.toml").write_text(other)
    assert reference_program(load_spec(copy)) is None  # another script: not the bundled app


# -- the store and resolution -----------------------------------------------------------------
def test_local_pictures_come_first_and_a_font_change_invalidates_them(tmp_path):
    folder = mini(tmp_path, committed=True)
    store = RefStore(tmp_path / "store")
    spec = load_spec(folder)
    before = snapshot(folder)
    resolver = ReferenceResolver(spec, store, fake_fonts())
    committed = resolver.resolve("refs/one.png")
    assert committed.origin == "committed" and committed.path == folder / "refs" / "one.png"
    assert "recorded with unknown fonts" in committed.detail and "playcoder refs record" in committed.detail
    assert not resolver.should_record(0)  # no reference program is known for a plain target
    recorded = tmp_path / "one.png"
    Image.new("RGB", (220, 90), (0, 200, 0)).save(recorded)
    slot = store.save(resolver.key, {"refs/one.png": recorded}, fake_fonts(), seed=0)
    assert slot.is_relative_to(store.root) and (slot / "refs" / "one.png").is_file()
    meta = json.loads((slot / "meta.json").read_text())
    assert meta["target"] == "mini" and meta["program"] == str(folder.resolve()) and meta["fonts"] == fake_fonts().digest
    local = ReferenceResolver(spec, store, fake_fonts()).resolve("refs/one.png")
    assert local.origin == "local" and local.path == slot / "refs" / "one.png" and "rev" in local.detail
    # other fonts on this machine: the local picture no longer applies, the committed one is the fallback
    other = fake_fonts("NotoSans-Regular.ttf|Noto Sans|Regular")
    fallback = ReferenceResolver(spec, store, other).resolve("refs/one.png")
    assert fallback.origin == "committed" and fallback.path == folder / "refs" / "one.png"
    assert snapshot(folder) == before
    # the program changed (a new revision): the user's recording still counts (recorded from the trusted version)
    (folder / "main.py").write_text(MINI_MAIN.replace("STEP = 1", "STEP = 3"))
    assert ReferenceResolver(load_spec(folder), store, fake_fonts()).resolve("refs/one.png").origin == "local"


def test_a_bug_variant_records_when_the_committed_pictures_do_not_fit(tmp_path):
    folder = mini(tmp_path, committed=True, bug=True)
    store = RefStore(tmp_path / "store")
    resolved = resolve_target(f"{folder}@two")
    try:
        spec = resolved.spec
        resolver = ReferenceResolver(spec, store, fake_fonts())
        assert resolver.program == folder.resolve() and resolver.exact == resolver.key
        assert resolver.committed_fits() is None and resolver.should_record(0)  # no manifest: unknown fonts
        refs.write_manifest(spec.folder, fake_fonts(), ["refs/one.png"], 0)
        fits = ReferenceResolver(spec, store, fake_fonts())
        assert fits.committed_fits() is True and not fits.should_record(0)
        assert "recorded with the same fonts" in fits.resolve("refs/one.png").detail
        elsewhere = ReferenceResolver(spec, store, fake_fonts("NotoSans-Regular.ttf|Noto Sans|Regular"))
        assert elsewhere.committed_fits() is False and elsewhere.should_record(0)
        assert "sans-serif: DejaVu Sans Book there, Noto Sans Regular here" in elsewhere.resolve("refs/one.png").detail
        picture = tmp_path / "one.png"
        Image.new("RGB", (220, 90), (0, 200, 0)).save(picture)
        store.save(elsewhere.key, {"refs/one.png": picture}, elsewhere.fingerprint, seed=0, source="auto")
        assert not elsewhere.should_record(0)
        assert "recorded automatically" in elsewhere.resolve("refs/one.png").detail
        # the unpatched program changed: its pictures must be recorded again
        (folder / "main.py").write_text(MINI_MAIN.replace("#202020", "#303030"))
        assert ReferenceResolver(spec, store, fake_fonts("NotoSans-Regular.ttf|Noto Sans|Regular")).should_record(0)
    finally:
        resolved.cleanup()


def test_the_committed_bundled_pictures_fit_a_machine_set_up_by_setup_sh():
    manifest = json.loads((APPS_DIR / "calculator" / refs.MANIFEST).read_text())
    assert set(manifest["pictures"]) == set(refs.reference_names(load_spec(APPS_DIR / "calculator").script))
    here = refs.program_fingerprint(APPS_DIR / "calculator")
    if manifest["fonts"] != here.digest:
        pytest.skip("this machine's fonts differ from installer/setup.sh's: " + "; ".join(
            here.differences(manifest["families"])))
    assert ReferenceResolver(load_spec(APPS_DIR / "calculator")).committed_fits() is True


# -- recording through the CLI ---------------------------------------------------------------------
def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env=os.environ.copy())


@needs_xvfb
def test_refs_record_stores_the_pictures_and_never_writes_the_target_folder(tmp_path, db_path):
    folder = mini(tmp_path, committed=True)
    before = snapshot(folder)
    proc = cli("refs", "record", str(folder), "--db", str(db_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "mini: recorded 1 reference picture(s)" in proc.stdout and "refs/one.png" in proc.stdout
    assert snapshot(folder) == before
    store = RefStore()  # $PLAYCODER_REFS
    assert store.root == tmp_path / "refs-store"
    (picture,) = store.root.rglob("one.png")
    assert Image.open(picture).size == (220, 90)
    # a run of the same program now uses the local picture and passes; the committed red one is ignored
    proc = cli("test", str(folder), "--tester", "script", "--json", "--db", str(db_path))
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["verdict"] == "pass", summary
    trajectories = TrajectoryStore(db_path)
    try:
        notes = [j["note"] for j in trajectories.judgments(summary["run_id"]) if j["criterion"] == "counts"]
    finally:
        trajectories.close()
    assert "local reference, recorded on this machine from mini" in notes[0]
    assert snapshot(folder) == before


@needs_xvfb
def test_a_bug_variant_is_judged_by_pictures_recorded_from_its_reference_program(tmp_path, db_path):
    folder = mini(tmp_path, committed=True, bug=True)  # the committed red picture fits no machine
    before = snapshot(folder)
    proc = cli("test", f"{folder}@two", "--tester", "script", "--json", "--db", str(db_path))
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["verdict"] == "fail", summary
    trajectories = TrajectoryStore(db_path)
    try:
        notes = [j["note"] for j in trajectories.judgments(summary["run_id"]) if j["criterion"] == "counts"]
        rationale = trajectories.steps(summary["run_id"])[0]["rationale"]
    finally:
        trajectories.close()
    assert "SSIM" in notes[0] and "local reference, recorded automatically on this machine from mini" in notes[0]
    assert "recorded the reference pictures of mini on this machine" in rationale
    assert snapshot(folder) == before
    # the reference program itself passes against the same pictures, without recording again
    proc = cli("test", str(folder), "--tester", "script", "--json", "--db", str(db_path))
    assert json.loads(proc.stdout.strip().splitlines()[-1])["verdict"] == "pass"
    assert len(list(RefStore().root.rglob("one.png"))) == 1
