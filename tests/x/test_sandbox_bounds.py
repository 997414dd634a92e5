"""One bound for a program's whole tree: processes and memory, memfds included, whatever the uid.

A fork loop and a memfd hoarder run under small bounds through ``sandbox.run``
(where every foreign program starts); the counts come from the programs
themselves and the leftovers are checked from the outside: the cgroup is
gone, no process is left.
"""

from __future__ import annotations

import functools
import glob
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine.play import cgroup, sandbox
from app.engine.play.display import die_with_parent

NPROC = 48
MEMORY_MB = 192
CHUNK_MB = 16
SLACK_MB = 32
"""What the program's own interpreter and its copy hold beside the memfds."""

FORK_LOOP = r'''
import os, sys, time
made = 0
for _ in range(%d):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(120)
        os._exit(0)
    made += 1
print("FORKED", made, flush=True)
''' % (NPROC * 4)

MEMFD_HOARD = r'''
import os
held, fds, chunk = 0, [], b"\1" * (%d << 20)
try:
    for _ in range(%d):
        fd = os.memfd_create("hoard")
        os.write(fd, chunk)
        fds.append(fd)
        held += len(chunk) >> 20
        print("HELD", held, flush=True)
except OSError as exc:
    print("REFUSED", exc, flush=True)
''' % (CHUNK_MB, 4 * MEMORY_MB // CHUNK_MB)


def _groups() -> list[str]:
    return [p for p in glob.glob(f"/sys/fs/cgroup/**/{cgroup.PREFIX}{os.getpid()}-*", recursive=True)
            if not p.endswith(cgroup.ENGINE_SUFFIX)]  # the engine's own group stays while it runs


@pytest.fixture
def bounded():
    group = cgroup.RunGroup.create(NPROC, MEMORY_MB)
    made = group.bounded
    group.close()
    if not made:
        pytest.skip("no cgroup can be made here (the polling fallback is tested separately)")


def _program(tmp_path: Path, code: str) -> Path:
    folder = tmp_path / "prog"
    folder.mkdir()
    (folder / "main.py").write_text(code)
    return folder


@pytest.mark.parametrize("confine", [True, False], ids=["bwrap", "fallback"])
def test_a_fork_loop_stays_within_the_process_bound(tmp_path, bounded, confine):
    if confine and not sandbox.bwrap_status()[0]:
        pytest.skip("bubblewrap cannot run here")
    jail = sandbox.Jail(_program(tmp_path, FORK_LOOP), confine=confine,
                        limits=sandbox.Limits(wall_s=30, nproc=NPROC, memory_mb=1024))
    out = sandbox.run([sys.executable, "main.py"], jail)
    forked = int(re.search(r"FORKED (\d+)", out.stdout).group(1))  # type: ignore[union-attr]
    assert 0 < forked < NPROC, "the whole tree counts against one bound, root or not"
    assert not out.timed_out, "the run ends when the program does"
    assert _groups() == [], "the run's cgroup is removed"
    assert not [p for p in cgroup.descendants(os.getpid()) if _cmdline(p).endswith("main.py")]


def test_memfds_count_against_the_memory_bound(tmp_path, bounded):
    if not sandbox.bwrap_status()[0]:
        pytest.skip("bubblewrap cannot run here")
    jail = sandbox.Jail(_program(tmp_path, MEMFD_HOARD), limits=sandbox.Limits(wall_s=60, memory_mb=MEMORY_MB))
    out = sandbox.run([sys.executable, "main.py"], jail)
    held = max([int(n) for n in re.findall(r"HELD (\d+)", out.stdout)] or [0])
    assert held <= MEMORY_MB + SLACK_MB, f"memfds held {held} MB beyond the {MEMORY_MB} MB bound"
    assert "REFUSED" in out.stdout or out.returncode < 0, "the hoarder was refused or killed at the bound"
    assert _groups() == []


def test_no_cgroup_is_said_in_one_sentence(monkeypatch):
    monkeypatch.setattr(cgroup, "_make_v2", lambda *a: [])
    monkeypatch.setattr(cgroup, "_make_v1", lambda *a: [])
    monkeypatch.setattr(cgroup, "fallback_reason", "")
    group = cgroup.RunGroup.create(NPROC, MEMORY_MB)
    group.close()
    sentence = cgroup.fallback_reason
    assert not group.bounded and sentence == cgroup.fallback_sentence()
    assert sentence.endswith(".") and "\n" not in sentence and "cgroup" in sentence


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return ""


def test_without_a_cgroup_a_watcher_ends_a_fork_loop(tmp_path, monkeypatch):
    monkeypatch.setattr(cgroup, "_make_v2", lambda *a: [])
    monkeypatch.setattr(cgroup, "_make_v1", lambda *a: [])
    monkeypatch.setattr(cgroup, "_said", True)
    code = FORK_LOOP.replace("time.sleep(120)", "time.sleep(20)") + "time.sleep(20)\n"
    jail = sandbox.Jail(_program(tmp_path, code), confine=False,
                        limits=sandbox.Limits(wall_s=10, nproc=NPROC, memory_mb=1024))
    out = sandbox.run([sys.executable, "main.py"], jail)
    assert not out.timed_out and out.returncode < 0, "the watcher killed the tree past the bound"


def test_a_private_x_server_is_held_to_its_memory(monkeypatch):
    from Xlib import error
    from Xlib import display as xdisplay

    from app.engine.play import display

    monkeypatch.setattr(display, "XVFB_MEMORY_MB", 256)
    xvfb = display.start_xvfb((320, 240))
    try:
        conn = xdisplay.Display(xvfb.name)
        refused: list[error.XError] = []
        conn.set_error_handler(lambda err, *_: refused.append(err))
        root = conn.screen().root
        made = 0
        for _ in range(64):  # 16 MB each: 1 GB asked of a server bounded to 256 MB
            root.create_pixmap(2048, 2048, 24)
            conn.sync()
            if refused:
                break
            made += 1
        conn.close()
        assert refused and made * 16 <= 256, "the X server refused pixmaps past its bound"
        assert xvfb.process is not None and xvfb.process.poll() is None, "and it kept running"
    finally:
        xvfb.close()


def test_open_files_are_bounded_per_process(tmp_path):
    code = "import os\nfds = []\ntry:\n    while len(fds) < 100000:\n        fds.append(os.open('/dev/null', os.O_RDONLY))\n" \
           "except OSError as exc:\n    print('OPENED', len(fds), exc.errno, flush=True)\n"
    out = sandbox.run([sys.executable, "main.py"], sandbox.Jail(_program(tmp_path, code),
                                                                limits=sandbox.Limits(wall_s=30, nofile=256)))
    opened = int(re.search(r"OPENED (\d+) 24", out.stdout).group(1))  # type: ignore[union-attr]  (EMFILE)
    assert opened < 256


def test_a_child_whose_parent_died_before_it_could_ask_to_die_with_it_ends_at_once() -> None:
    """PR_SET_PDEATHSIG set after the parent is gone would never fire (a ``kill -9`` of the engine while it
    forks bubblewrap left bubblewrap behind in CI): such a child ends before it runs anything."""
    not_my_parent = functools.partial(die_with_parent, os.getpid() + 1_000_000)  # as if the forker were gone
    orphan = subprocess.Popen(["sleep", "30"], preexec_fn=not_my_parent)
    assert orphan.wait(timeout=10) == 128 + 9
    child = subprocess.Popen(["sleep", "30"], preexec_fn=functools.partial(die_with_parent, os.getpid()))
    try:
        assert child.poll() is None  # the usual case: it runs, and dies with us
    finally:
        child.kill()
        child.wait()
