"""The sandbox holds when the engine runs as root: no capability, no mount made writable.

A hostile program reads its capabilities, tries ``mount -o remount,rw`` on
``/usr`` and on its own source bind, and writes to ``/usr``, ``/etc``, the
engine's Python prefix, the seeding folder, the real program folder (through
its read-only bind) and ``/proc/sys``.  Every path that starts foreign code
(``sandbox.run`` as unit tests and patches use it, a repair's unit tests, a
played target) is checked from the outside: nothing written, CapEff 0.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
from pathlib import Path

import pytest

from app.engine.play import sandbox
from app.engine.play.sandbox_privilege import privilege_flags
from app.engine.play.target import SEEDING_DIR

from suite import needs_xvfb

needs_bwrap = pytest.mark.skipif(not sandbox.bwrap_status()[0], reason="bubblewrap cannot run here")

ATTACK = r'''
import json, os, subprocess, sys

def attack(tag, targets):
    rep = {"cap_eff": None, "remounted": [], "written": [], "uid": os.getuid()}
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("CapEff:"):
                rep["cap_eff"] = int(line.split()[1], 16)
    for mount_point in ("/usr", "/run/playcoder/src", "/proc", "/"):
        for options in ("remount,rw", "remount,bind,rw"):
            proc = subprocess.run(["mount", "-o", options, mount_point], capture_output=True)
            if proc.returncode == 0:
                rep["remounted"].append(mount_point)
    for folder in targets + ["/run/playcoder/src"]:
        path = os.path.join(folder, "pwned-" + tag)
        try:
            with open(path, "w") as fh:
                fh.write("pwned")
            rep["written"].append(path)
        except OSError:
            pass
    for knob in ("/proc/sys/kernel/core_pattern", "/proc/sys/vm/drop_caches"):
        try:
            os.close(os.open(knob, os.O_WRONLY))
            rep["written"].append(knob)
        except OSError:
            pass
    return rep
'''


@pytest.fixture
def hostile(tmp_path: Path):
    """The program folder and the host folders a hostile program will try to write."""
    tag = str(secrets.randbelow(10 ** 9))
    folder = tmp_path / "prog"
    folder.mkdir()
    targets = ["/usr", "/etc", sys.prefix, os.path.dirname(os.path.realpath(sys.executable)), str(SEEDING_DIR)]
    script = (ATTACK + f"\nprint('REPORT ' + json.dumps(attack({tag!r}, {targets!r})), flush=True)\n")
    (folder / "attack.py").write_text(script)
    (folder / "test_attack.py").write_text(ATTACK + f"\n\ndef test_attack():\n"
                                           f"    assert False, 'REPORT ' + json.dumps(attack({tag!r}, {targets!r}))\n")
    (folder / "playcoder.toml").write_text('name = "hostile"\ncommand = ["python", "attack.py"]\n'
                                           'unit_tests = ["test_*.py"]\n')
    yield {"tag": tag, "folder": folder, "targets": [*targets, str(folder)]}  # its copy lies over the folder inside
    for t in [*targets, str(folder)]:
        Path(t, f"pwned-{tag}").unlink(missing_ok=True)


def _check(h: dict, report: dict) -> None:
    on_host = [t for t in h["targets"] if Path(t, f"pwned-{h['tag']}").exists()]
    assert not on_host, f"the program wrote on the host: {on_host}"
    assert report["cap_eff"] == 0, f"the program kept capabilities: {report['cap_eff']:x}"
    assert report["remounted"] == [], f"mounts made writable: {report['remounted']}"
    assert report["written"] == [], f"written: {report['written']}"


def _report(text: str) -> dict:
    line = text[text.index("REPORT ") + len("REPORT "):].splitlines()[0].rstrip("'\"")
    return json.loads(line)


@needs_bwrap
def test_run_leaves_the_program_no_capability_and_nothing_writable(hostile):
    """sandbox.run: unit tests, import checks and model patches all start here."""
    out = sandbox.run([sys.executable, "attack.py"], sandbox.Jail(hostile["folder"], read_only=(SEEDING_DIR,)))
    assert out.confined and out.returncode == 0, out.stderr
    _check(hostile, _report(out.stdout))
    assert ("--cap-drop" in privilege_flags()) == (os.geteuid() == 0)


@needs_bwrap
def test_a_repairs_unit_tests_cannot_remount_or_write(hostile):
    from app.engine.repair.sandbox import Executor, Workspace
    from app.engine.repair.tools import UnitTestRunner

    tests = UnitTestRunner(Executor()).run(Workspace(hostile["folder"]))
    assert list(tests.failed) == ["test_attack::test_attack"], tests.output
    _check(hostile, _report(tests.failed["test_attack::test_attack"]))


@needs_xvfb
@needs_bwrap
def test_a_played_target_cannot_remount_or_write(xvfb, hostile):
    from app.engine.play.target import TargetProcess
    from app.engine.play.targetspec import load_spec

    folder = hostile["folder"]
    (folder / "attack.py").write_text((folder / "attack.py").read_text() + (
        "import tkinter as tk\nroot = tk.Tk()\nroot.title('Hostile')\nroot.geometry('200x100+0+0')\nroot.mainloop()\n"))
    target = TargetProcess(load_spec(folder), xvfb, seed=1)
    try:
        target.wait_for_window(timeout=60)
        report = _report("\n".join(t for _, _, t in target.lines() if t.startswith("REPORT ")))
    finally:
        target.shutdown()
    _check(hostile, report)
