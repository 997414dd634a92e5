"""Issue 24's cases for benchmark/faults.py: contained as root, every resource of a run bounded, measured.

    python benchmark/faults.py --only root,tree,output,model,gate,small

- root: a hostile program (CapEff, ``mount -o remount,rw`` of /usr, of its own source bind and of /, writes to
  /usr, /etc, the engine's Python prefix, the seeding folder, the real program folder, /proc/sys) through
  ``sandbox.run`` (unit tests, import checks, patches), a repair's unit tests and ``playcoder test``.
- tree: a fork loop and 4 children x 1.5 GB and memfds up to 6 GB under the target bounds (512 processes, 4 GB);
  a client asking the private Xvfb for 4 GB of pixmaps.
- output: 1 GB printed on stdout by a played target: database growth and the engine's peak RSS.
- model: a model server answering 10 MB per call, 3 steps: bytes stored in llm_calls.
- gate: a candidate truncating its clock memfd; one answering frames it was never granted.
- small: the smaller list (secret filter, [env], TOML, base URL, runs, off-screen window, take-over, desktop
  entry, file-size limit).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
PROBE = str(ROOT / "tests" / "targets" / "probe_tk")
Row = Callable[..., None]
GB = 1 << 30

WINDOW = "import tkinter as tk\nroot = tk.Tk()\nroot.title('T')\nroot.geometry('240x160+0+0')\n" \
         "tk.Label(root, text='hi').pack()\nroot.mainloop()\n"


def _report(text: str) -> dict[str, Any]:
    line = text[text.index("REPORT ") + len("REPORT "):].splitlines()[0].rstrip("'\"")
    return dict(json.loads(line))


def _attack_folder(tmp: Path, tag: str) -> tuple[Path, list[str]]:
    from test_sandbox_root import ATTACK

    from app.engine.play.target import SEEDING_DIR

    folder = tmp / "hostile"
    folder.mkdir()
    targets = ["/usr", "/etc", sys.prefix, os.path.dirname(os.path.realpath(sys.executable)), str(SEEDING_DIR)]
    call = f"attack({tag!r}, {targets!r})"
    (folder / "attack.py").write_text(ATTACK + f"\nprint('REPORT ' + json.dumps({call}), flush=True)\n")
    (folder / "test_attack.py").write_text(ATTACK + f"\n\ndef test_attack():\n    assert False, 'REPORT ' + "
                                           f"json.dumps({call})\n")
    (folder / "main.py").write_text((folder / "attack.py").read_text() + WINDOW)
    (folder / "playcoder.toml").write_text('name = "hostile"\ncommand = ["python", "main.py"]\n'
                                           'unit_tests = ["test_*.py"]\n')
    return folder, [*targets, str(folder)]


def _said(report: dict[str, Any], on_host: list[str]) -> str:
    return (f"CapEff {report['cap_eff']:x}, uid {report['uid']}; remounted: {report['remounted'] or 'none'}; "
            f"written inside: {report['written'] or 'none'}; on the host: {on_host or 'none'}")


def bench_root(tmp: Path, row: Row) -> None:
    from app.engine.play import sandbox
    from app.engine.play.target import SEEDING_DIR
    from app.engine.repair.sandbox import Executor, Workspace
    from app.engine.repair.tools import UnitTestRunner
    from app.engine.trace.store import TrajectoryStore

    tag = str(os.getpid())
    folder, targets = _attack_folder(tmp, tag)
    who = "root" if os.geteuid() == 0 else "an ordinary user"

    def on_host() -> list[str]:
        found = [t for t in targets if Path(t, f"pwned-{tag}").exists()]
        for t in found:
            Path(t, f"pwned-{tag}").unlink()
        return found

    out = sandbox.run([sys.executable, "attack.py"], sandbox.Jail(folder, read_only=(SEEDING_DIR,)))
    row(f"hostile program as {who}: sandbox.run (unit tests, imports, patches)", _said(_report(out.stdout), on_host()),
        "CapEff 0, none, none")
    tests = UnitTestRunner(Executor()).run(Workspace(folder))
    message = next(iter(tests.failed.values()), tests.output)
    row(f"hostile program as {who}: a repair's unit tests", _said(_report(message), on_host()), "CapEff 0, none, none")
    db = tmp / "root.db"
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(folder), "--max-steps", "2", "--json", "--db",
                           str(db)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    store = TrajectoryStore(db, readonly=True)
    logs = "\n".join(r["text"] for r in store.logs(store.runs()[0]["id"]) if r["text"].startswith("REPORT "))
    store.close()
    row(f"hostile program as {who}: `playcoder test`", _said(_report(logs), on_host()) + f"; exit {proc.returncode}",
        "CapEff 0, none, none")


FORK_LOOP = '''
import os, time
made = 0
for _ in range(3000):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    made += 1
print("FORKED", made, flush=True)
'''

CHILDREN = '''
import os, time
kids = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        held = []
        for mb in range(0, 1536, 64):
            held.append(b"\\1" * (64 << 20))
            print("CHILD", os.getpid(), mb + 64, flush=True)
        time.sleep(5)  # all four hold what they have at once
        os._exit(0)
    kids.append(pid)
for _ in kids:
    pid, status = os.wait()
    print("ENDED", pid, os.waitstatus_to_exitcode(status), flush=True)
'''

MEMFDS = '''
import os
held, fds, chunk = 0, [], b"\\1" * (64 << 20)
try:
    while held < 6144:
        fd = os.memfd_create("hoard")
        os.write(fd, chunk)
        fds.append(fd)
        held += 64
        print("HELD", held, flush=True)
except OSError as exc:
    print("REFUSED", exc, flush=True)
'''


def _gone(tag: str) -> int:
    import psutil

    return len([p for p in psutil.process_iter(["cmdline"]) if tag in " ".join(p.info["cmdline"] or [])])


def bench_tree(tmp: Path, row: Row) -> None:
    import dataclasses
    import re

    from app.engine.play import cgroup, sandbox

    limits = dataclasses.replace(sandbox.TARGET_LIMITS, wall_s=60)
    probe = cgroup.RunGroup.create(1, 1)
    how = "cgroup " + ("v2" if probe.paths and "pids" not in probe.paths[0] else "v1") if probe.bounded else \
        "no cgroup (polling)"
    probe.close()
    for name, code in (("fork loop", FORK_LOOP), ("4 children x 1.5 GB", CHILDREN), ("memfds up to 6 GB", MEMFDS)):
        folder = tmp / name.replace(" ", "-")
        folder.mkdir()
        (folder / "main.py").write_text(code)
        t0 = time.monotonic()
        out = sandbox.run([sys.executable, "main.py"], sandbox.Jail(folder, limits=limits))
        seconds = time.monotonic() - t0
        if name == "fork loop":
            made = re.findall(r"FORKED (\d+)", out.stdout)
            value = f"{made[-1] if made else '?'} processes made (then refused); ended in {seconds:.1f} s"
            target = f"≤ {limits.nproc} processes"
        elif name.startswith("4 children"):
            per: dict[str, int] = {}
            for pid, mb in re.findall(r"CHILD (\d+) (\d+)", out.stdout):
                per[pid] = max(per.get(pid, 0), int(mb))
            killed = {pid for pid, code in re.findall(r"ENDED (\d+) (-?\d+)", out.stdout) if code != "0"}
            held = sum(mb for pid, mb in per.items() if pid not in killed)
            value = f"{len(killed)} of 4 children killed at the bound; the others held {held} MB together"
            target = f"≤ {limits.memory_mb} MB"
        else:
            held = max([int(n) for n in re.findall(r"HELD (\d+)", out.stdout)] or [0])
            value = f"{held} MB of memfds held, then {'refused' if 'REFUSED' in out.stdout else 'killed'}"
            target = f"≤ {limits.memory_mb} MB"
        row(f"{name} under the target bounds ({how})", f"{value}; exit {out.returncode}", target)
    _xvfb_pixmaps(row)


def _xvfb_pixmaps(row: Row) -> None:
    from Xlib import display as xdisplay

    from app.engine.play.display import XVFB_MEMORY_MB, start_xvfb

    xvfb = start_xvfb((320, 240))
    try:
        conn = xdisplay.Display(xvfb.name)
        refused: list[Any] = []
        conn.set_error_handler(lambda err, *_: refused.append(err))
        made = 0
        for _ in range(256):  # 16 MB each: 4 GB asked
            conn.screen().root.create_pixmap(2048, 2048, 24)
            conn.sync()
            if refused:
                break
            made += 1
        assert xvfb.process is not None
        with open(f"/proc/{xvfb.process.pid}/status") as fh:
            peak = next(line.split()[1] for line in fh if line.startswith("VmPeak"))
        conn.close()
        alive = xvfb.process.poll() is None
    finally:
        xvfb.close()
    row("a client asking Xvfb for 4 GB of pixmaps", f"{made * 16} MB made, then BadAlloc; Xvfb VmPeak "
        f"{int(peak) // 1024} MB; Xvfb alive: {'yes' if alive else 'NO'}", f"≤ {XVFB_MEMORY_MB} MB, alive")


def bench_output(tmp: Path, row: Row) -> None:
    from hostile_inputs import run_measured

    folder = tmp / "loud"
    folder.mkdir()
    (folder / "playcoder.toml").write_text('name = "loud"\ncommand = ["python", "main.py"]\nstartup_timeout = 240\n')
    (folder / "main.py").write_text("import sys\nblock = ('x' * 999 + '\\n') * 1024\nfor _ in range(1024):\n"
                                    "    sys.stdout.write(block)\nsys.stdout.flush()\n" + WINDOW)
    db = tmp / "loud.db"
    m = run_measured([sys.executable, "-m", "app", "test", str(folder), "--max-steps", "3", "--db", str(db)],
                     cwd=ROOT, timeout_s=600)
    size = db.stat().st_size + sum(p.stat().st_size for p in tmp.glob("loud.db-*"))
    stored = sqlite3.connect(db).execute("SELECT count(*), coalesce(sum(length(text)), 0) FROM target_logs").fetchone()
    row("1 GB printed on stdout by a played target", f"database {size / 2**20:.1f} MB ({stored[0]} lines, "
        f"{stored[1] / 2**20:.1f} MB of text kept); engine peak RSS {m.max_rss_bytes / 2**20:.0f} MB; exit "
        f"{m.returncode} in {m.seconds:.0f} s{'' if m.returncode == 0 else ': ' + m.stderr.strip()[-120:]}",
        "≤ 1 MB of log kept, RSS bounded")


def bench_model(tmp: Path, row: Row) -> None:
    from llm_servers import OpenAIServer, Reply

    db = tmp / "model.db"
    env = dict(os.environ, PLAYCODER_API_KEY="local", PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring")
    with OpenAIServer() as server:
        server.responder = lambda rec: Reply('{"action": "wait", "seconds": 0.1}' + " " * (10 << 20))
        out = subprocess.run([sys.executable, "-m", "app", "test", PROBE, "--tester", "llm", "--provider",
                              "compatible", "--model", "m", "--base-url", server.base_url, "--max-steps", "3",
                              "--db", str(db)], cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    calls, stored = sqlite3.connect(db).execute(
        "SELECT count(*), coalesce(sum(length(request) + length(coalesce(response, ''))), 0) FROM llm_calls").fetchone()
    row("model server answering 10 MB per call, 3 steps", f"{calls} calls, {stored / 2**20:.1f} MB stored; exit "
        f"{out.returncode}", "≤ 256 KB per answer")


def bench_gate(tmp: Path, row: Row) -> None:
    from test_gate_hostile import ENGINE, FAKE_ACKS, TRUNCATE

    from app.engine.play.gate import FrameGate

    proc = subprocess.run([sys.executable, "-c", ENGINE, TRUNCATE], capture_output=True, text=True, timeout=60,
                          cwd=ROOT)
    row("a candidate truncating its clock memfd", f"engine exit {proc.returncode}: {proc.stdout.strip()[:80]}",
        "engine alive, nothing done")
    gate = FrameGate()
    fds = gate.child_fds()
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(FAKE_ACKS), *map(str, fds)], pass_fds=fds)
    gate.started()
    time.sleep(1.0)
    t0 = time.monotonic()
    done = threading.Event()

    def play() -> None:
        if gate.engage():
            while gate.advance(600):
                pass
        done.set()

    threading.Thread(target=play, daemon=True).start()
    ended = done.wait(60)
    child.kill()
    child.wait()
    gate.close()
    row("a candidate writing fake \"frame played\" bytes", (f"let go after {time.monotonic() - t0:.2f} s: {gate.lost}"
        if ended else "engine BLOCKED"), "let go with a reason")


def bench_small(tmp: Path, row: Row) -> None:
    from app.engine.play.sandbox import is_secret

    t0 = time.monotonic()
    is_secret("BLOB", "a" * 3_000_000)
    row("secret filter on a 3 MB variable", f"{time.monotonic() - t0:.3f} s", "linear (was minutes)")
    cli = [sys.executable, "-m", "app"]

    def said(folder: Path, toml: str, what: str) -> None:
        folder.mkdir()
        (folder / "playcoder.toml").write_text(toml)
        out = subprocess.run([*cli, "test", str(folder), "--db", str(tmp / "s.db")], cwd=ROOT, capture_output=True,
                             text=True, timeout=120)
        line = out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "(none)"
        row(what, f"exit {out.returncode}: {line.replace(str(folder), '…')[:110]}", "one sentence")

    base = 'name = "x"\ncommand = ["python", "main.py"]\n'
    said(tmp / "env", base + f'[env]\nBLOB = "{"x" * 3_000_000}"\n', "a 3 MB [env] value")
    said(tmp / "deep", base + "x = " + "[" * 50_000 + "]" * 50_000 + "\n", "a TOML nested 50,000 deep")
    from app.engine.run.settings import public_options as _public_options

    stored = _public_options({"base_url": "http://user:pw@llm.local:8080/v1?token=sekrit#frag"})["base_url"]
    row("base URL with user:pw@ and ?token=", f"stored as {stored}", "no credentials, no query")
    store_db = tmp / "runs.db"
    from app.engine.trace.store import TrajectoryStore

    store = TrajectoryStore(store_db)
    store.create_run(target="evil\nline\u202etxt.exe", tester="offline")
    store.close()
    out = subprocess.run([*cli, "runs", "--db", str(store_db)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    row("`playcoder runs` on a target named with a newline and U+202E", f"{len(out.stdout.splitlines())} line: "
        f"{out.stdout.strip()!a}", "one line, escaped")
    _off_screen(row)
    _file_size(tmp, row)
    for name, nodeid, target in (("a refused take-over drag (probe_tk, 4 steps)", "take_over", "the run passes"),
                                 ("install-desktop-entry.sh in a folder named with &, a pipe, \", $ and %",
                                  "desktop_entry", "Exec exact, a user's own link kept")):
        out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", nodeid,
                              str(ROOT / "tests" / "test_faults_small.py")], cwd=ROOT, capture_output=True, text=True,
                             timeout=300)
        summary = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "(no output)"
        row(name, f"tests/x/test_faults_small.py -k {nodeid}: {summary}", target)


def _off_screen(row: Row) -> None:
    import mss

    from app.engine.play.display import start_xvfb
    from app.engine.run.faults import describe_fault

    xvfb = start_xvfb((320, 240))
    try:
        with mss.MSS(display=xvfb.name) as grabber:
            try:
                grabber.grab({"left": 300, "top": 200, "width": 100, "height": 100})
                said: str | None = "captured"
            except Exception as exc:  # noqa: BLE001 (what mss raises is the measurement)
                said = f"{type(exc).__name__} -> {describe_fault(exc, xvfb)}"
    finally:
        xvfb.close()
    row("a window moved off its screen", str(said)[:150], "one sentence")


def _file_size(tmp: Path, row: Row) -> None:
    import dataclasses

    from app.engine.judge.oracles import file_size_limit
    from app.engine.play import sandbox

    folder = tmp / "big"
    folder.mkdir()
    (folder / "main.py").write_text("with open('big.bin', 'wb') as fh:\n    fh.write(b'x' * (300 << 20))\n")
    limits = dataclasses.replace(sandbox.TARGET_LIMITS, wall_s=60)
    out = sandbox.run([sys.executable, "main.py"], sandbox.Jail(folder, limits=limits))
    row("a 300 MB file written by a program", f"exit {out.returncode}: "
        f"{file_size_limit(out.returncode, out.stderr.splitlines()) or 'a crash'}"[:170], "said as the limit")


def cases(row: Row) -> dict[str, Callable[[Path], None]]:
    """The cases above for faults.py's table (each gets faults.py's ``row``)."""
    return {name: (lambda tmp, f=f: f(tmp, row)) for name, f in
            (("root", bench_root), ("tree", bench_tree), ("output", bench_output), ("model", bench_model),
             ("gate", bench_gate), ("small", bench_small))}


if shutil.which("Xvfb") is None:  # every case but gate and small plays or draws on a private display
    print("faults_contained: Xvfb is not installed; the root, tree, output and model cases need it", file=sys.stderr)
