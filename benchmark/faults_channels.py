"""Hostile target folders and hostile channel data, for benchmark/faults.py: nothing a target ships runs outside its
sandbox, nothing a program sends hangs or breaks the engine.

    python benchmark/faults.py --only build,venvhome,channels

- build: a requirements file naming a local package with an in-tree build backend (through ``playcoder test``
  and ``playcoder inspect``), ``-r`` of a host file, two targets with the same line and different local packages,
  and a repair patch editing requirements.txt.
- venvhome: a target's ``.venv/pyvenv.cfg`` whose ``home`` is a host folder under a home's ``.config``.
- channels: a zero-byte flood on the frame gate; the scout socket at end of file; malformed and huge scout
  messages; out-of-range numbers, deep nesting and a forged hello on the inside channel; the engine's own cgroup.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
Row = Callable[..., None]

BACKEND = r'''
import base64, hashlib, json, os, socket, zipfile
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    try:
        open(HOST_MARK, "w").write("escaped")
    except OSError:
        pass
    try:
        socket.create_connection(("1.1.1.1", 53), timeout=2).close()
        net = True
    except OSError:
        net = False
    cap = [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0]
    seen = {"token": os.environ.get("PROBE_API_TOKEN"), "net": net, "capeff": cap, "uid": os.getuid(),
            "wrote_at_the_host_path_inside": os.path.exists(HOST_MARK), "root_visible": os.path.isdir("/root/.config")}
    files = {"evilpkg/__init__.py": ("SEEN = %r\n" % json.dumps(seen)).encode(),
             "evilpkg-0.1.dist-info/METADATA": b"Metadata-Version: 2.1\nName: evilpkg\nVersion: 0.1\n",
             "evilpkg-0.1.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    rec = "".join("%s,sha256=%s,%d\n" % (n, base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode(),
                  len(d)) for n, d in files.items()) + "evilpkg-0.1.dist-info/RECORD,,\n"
    files["evilpkg-0.1.dist-info/RECORD"] = rec.encode()
    with zipfile.ZipFile(os.path.join(wheel_directory, "evilpkg-0.1-py3-none-any.whl"), "w") as zf:
        for n, d in files.items():
            zf.writestr(n, d)
    return "evilpkg-0.1-py3-none-any.whl"
'''
WINDOW = ("import evilpkg, tkinter as tk\nprint('SEEN ' + evilpkg.SEEN, flush=True)\nroot = tk.Tk()\n"
          "root.geometry('200x100+0+0')\ntk.Label(root, text='hi').pack()\nroot.mainloop()\n")


def _evil(folder: Path, mark: Path) -> Path:
    (folder / "evilpkg").mkdir(parents=True)
    (folder / "evilpkg" / "backend.py").write_text(f"HOST_MARK = {str(mark)!r}\n" + BACKEND)
    (folder / "evilpkg" / "pyproject.toml").write_text('[build-system]\nrequires = []\nbuild-backend = "backend"\n'
                                                       'backend-path = ["."]\n')
    (folder / "requirements.txt").write_text("./evilpkg\n")
    (folder / "main.py").write_text(WINDOW)
    (folder / "playcoder.toml").write_text('name = "evil"\ncommand = ["python", "main.py"]\n'
                                           'requirements = "requirements.txt"\n')
    return folder


def _cli(*args: str, env: dict[str, str], timeout: float = 600) -> tuple[subprocess.CompletedProcess[str], float]:
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, env=env)
    return proc, time.monotonic() - t0


def _seen(cache: Path) -> str:
    """What the backend saw, from the package it built into the environment (the build's own record)."""
    for init in cache.glob("*/lib/python*/site-packages/evilpkg/__init__.py"):
        text = init.read_text()
        return text[text.index("{"):text.rindex("}") + 1]
    return "(no environment was built)"


def bench_build(tmp: Path, row: Row) -> None:
    from app.engine.errors import TargetError
    from app.engine.play.program_env import env_key
    from app.engine.play.requirement_set import Reader
    from app.engine.repair.oracle_guard import OracleGuard

    env = {**os.environ, "PLAYCODER_ENV_CACHE": str(tmp / "cache"), "PROBE_API_TOKEN": "s3cret-probe-token"}
    for how, args in (("playcoder test", ["test", "--tester", "offline", "--max-steps", "1", "--json", "--db",
                                          str(tmp / "runs.db")]), ("playcoder inspect", ["inspect"])):
        mark = tmp / f"host-mark-{how.split()[1]}.txt"
        folder = _evil(tmp / how.split()[1], mark)
        cache = tmp / f"cache-{how.split()[1]}"  # a fresh build each
        env["PLAYCODER_ENV_CACHE"] = str(cache)
        proc, took = _cli(*args[:1], str(folder), *args[1:], env=env)
        row(f"a local package's in-tree build backend, through `{how}`",
            f"file written on the host: {'YES' if mark.exists() else 'no'}; the backend saw {_seen(cache)}; "
            f"exit {proc.returncode} in {took:.0f} s", "nothing on the host, no secret, no network, CapEff 0")
    folder = tmp / "includes"
    folder.mkdir()
    (folder / "requirements.txt").write_text("six\n-r /etc/hostname\n")
    try:
        Reader(folder).read("requirements.txt")
        said = "accepted"
    except TargetError as exc:
        said = str(exc)
    host = Path("/etc/hostname").read_text().strip()
    row("`-r /etc/hostname` in a requirements file", f"{said} (host content in it: {'YES' if host in said else 'no'})",
        "refused naming the line, no host content")
    keys = []
    for name, content in (("one", "A = 1\n"), ("two", "A = 2\n")):
        (tmp / name / "pkg").mkdir(parents=True)
        (tmp / name / "pkg" / "setup.py").write_text(content)
        (tmp / name / "requirements.txt").write_text("./pkg\n")
        keys.append(env_key(Reader(tmp / name).read("requirements.txt"), tmp / name))
    row("two targets, the same line `./pkg`, different packages", f"cache keys {keys[0]} and {keys[1]}: "
        f"{'shared' if keys[0] == keys[1] else 'separate environments'}", "separate")
    refused = OracleGuard().refused(["logic.py", "requirements.txt", "pyproject.toml", "package.json", "setup.py"])
    row("a repair patch editing requirements.txt, pyproject.toml, package.json, setup.py",
        f"refused: {', '.join(refused)}", "refused like a test edit")


def bench_venvhome(tmp: Path, row: Row) -> None:
    secret = Path("/root/.config/playcoder-probe-secret")
    made = not secret.exists()
    (secret / "bin").mkdir(parents=True, exist_ok=True)
    (secret / "token.txt").write_text("probe-secret\n")
    try:
        folder = tmp / "venvhome"
        (folder / ".venv" / "bin").mkdir(parents=True)
        (folder / ".venv" / "bin" / "python").symlink_to(sys.executable)
        (folder / ".venv" / "pyvenv.cfg").write_text(f"home = {secret / 'bin'}\n")
        (folder / "main.py").write_text("import os\nprint('READ', os.path.exists('/root/.config/playcoder-probe-"
                                        "secret/token.txt'), flush=True)\n")
        (folder / "playcoder.toml").write_text('name = "venvhome"\ncommand = [".venv/bin/python", "main.py"]\n')
        proc, took = _cli("test", str(folder), "--tester", "offline", "--max-steps", "1", env=dict(os.environ))
        said = (proc.stderr.strip().splitlines() or ["(nothing)"])[-1]
        said = "…" + said[said.index("pyvenv.cfg line"):] if "pyvenv.cfg line" in said else said
        row("`home =` in a target's .venv/pyvenv.cfg naming /root/.config/…",
            f"exit {proc.returncode}: {said[:400]}; the secret read: {'YES' if 'READ True' in proc.stdout else 'no'}",
            "refused naming the line, nothing mounted")
    finally:
        if made:
            (secret / "token.txt").unlink()
            (secret / "bin").rmdir()
            secret.rmdir()


HOSTILE = textwrap.dedent(r'''
    import os, socket, sys, time
    what, fds = sys.argv[1], [int(a) for a in sys.argv[2:]]
    if what == "gate-zeros":
        os.write(fds[1], b"\x00\x3c")
        os.read(fds[0], 1)  # the engine granted a frame and waits for the answer: flood it
        while True:
            os.write(fds[1], b"\x00" * 65536)
    if what == "scout-eof":
        sys.exit(0)
    sock = socket.socket(fileno=fds[0])
    if what == "scout-malformed":
        for m in (b"[1,2]\n", b"null\n", b'{"id":1,"w":"x"}\n', b"[" * 100000 + b"\n"):
            sock.send(m)
        time.sleep(5)
    if what == "scout-end":
        lines = [["f%d.py" % i, i] for i in range(8000)]
        while True:
            sock.send(('{"id":1,"end":1,"alive":true,"lines":%s}' % lines).replace("'", '"').encode()[:1 << 20])
''')


def _child(what: str, fds: tuple[int, ...]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", HOSTILE, what, *map(str, fds)], pass_fds=fds,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _gate_flood(row: Row) -> None:
    from app.engine.play.gate import FrameGate

    gate = FrameGate()
    fds = gate.child_fds()
    child = _child("gate-zeros", fds)
    gate.started()
    t0, c0 = time.monotonic(), _cpu()
    steps = 0
    if gate.engage(lambda: child.poll() is None, hello_s=2.0):
        while steps < 8 and gate.advance(6):
            steps += 1
    took, cpu = time.monotonic() - t0, _cpu() - c0
    child.kill()
    child.wait()
    gate.close()
    row("a program flooding the frame gate's answer pipe with zero bytes",
        f"let go after {took:.2f} s ({cpu:.2f} s of engine CPU), {steps} steps played: {gate.lost}",
        "let go at once with a reason, never stalls")


def _scouts(row: Row) -> None:
    from app.engine.play.targetspec import load_spec
    from app.engine.testers.explore.fork_scout import ForkGate, ForkScouts

    for what, case, target in (
            ("scout-eof", "the scout socket at end of file (the copy gone)", "returns at once, no spin"),
            ("scout-malformed", "malformed scout messages (a list, null, a string size, 100k-deep nesting)",
             "ignored with a note; search stays on"),
            ("scout-end", "scout `end` messages of 8,000 made-up lines each, without end",
             "bounded: one end per branch, at most 100,000 lines, only own lines once the trunk's are known")):
        scouts = ForkScouts(load_spec(ROOT / "tests" / "targets" / "anim_pg"), 0)
        scouts.gate = gate = ForkGate()
        child = _child(what, (gate.child_fds()[-1],))
        gate.started()
        t0, c0 = time.monotonic(), _cpu()
        error = ""
        got = {}
        try:
            got = scouts._collect({1: ([2, 4], 2.0)}, 2, 2)
            scouts._drain()
        except Exception as exc:  # the row says it, the table goes on
            error = f"{type(exc).__name__}: {exc}"
        took, cpu = time.monotonic() - t0, _cpu() - c0
        child.kill()
        child.wait()
        gate.close()
        kept = len(got[1].lines) if 1 in got else 0
        row(case, f"returned after {took:.2f} s ({cpu:.2f} s CPU); raised: {error or 'nothing'}; lines kept: {kept}; "
            f"notes: {'; '.join(scouts.notes.kept)[:160] or 'none'}", target)


def _inside(tmp: Path, row: Row) -> None:
    from app.engine.play.inside import Inside

    tmp = tmp / "inside"
    tmp.mkdir()
    (tmp / "main.py").write_text("x = 1\n")
    said: list[str] = []
    inside = Inside(tmp, note=said.append)
    req_r, evt_w = inside.child_fds()
    script = textwrap.dedent(r'''
        import json, os, sys
        req, evt = int(sys.argv[1]), int(sys.argv[2])
        os.write(evt, b'{"v":1,"type":"hello","toolkit":"tk","main":{"path":"/etc/python3/sitecustomize.py",'
                      b'"name":"sitecustomize.py"}}\n')
        os.write(evt, b"[" * 200000 + b"\n")
        buf = b""
        while True:
            chunk = os.read(req, 4096)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                msg = json.loads(line)
                if msg["type"] == "idle":
                    os.write(evt, b'{"v":1,"type":"reply","id":%d,"idle":true,"next_timer_ms":1%s}\n'
                             % (msg["id"], b"0" * 400))
                elif msg["id"] == 2:
                    os.write(evt, b'{"v":1,"type":"reply","id":%d,"widgets":[{"kind":"button",'
                                  b'"box":[Infinity,0,10,10]},{"kind":"label","box":[0,0,5,5]}]}\n' % msg["id"])
                else:
                    os.write(evt, b'{"v":1,"type":"reply","id":%d,"widgets":[{"kind":"button",'
                                  b'"box":[1e400,0,10,10]},{"kind":"label","box":[0,0,5,5]}]}\n' % msg["id"])
    ''')
    child = subprocess.Popen([sys.executable, "-c", script, str(req_r), str(evt_w)], pass_fds=(req_r, evt_w))
    inside.started()
    error = ""
    try:
        inside.wait_hello(5)
        time.sleep(0.5)
        idle = inside.idle(2.0)
        infinity = inside.widgets(2.0)
        widgets = inside.widgets(2.0)
    except Exception as exc:
        error, idle, infinity, widgets = f"{type(exc).__name__}: {exc}", None, None, None
    alive = inside._reader.is_alive()
    forged = [f for f in inside.lines_by_file() if f != "main.py"]
    child.kill()
    child.wait()
    inside.close()
    row("inside: an idle reply with next_timer_ms 10**400, a widget box [Infinity, 0, 10, 10]",
        f"raised: {error or 'nothing'}; idle answer: {idle}; the Infinity message: "
        f"{'dropped' if infinity is None else 'taken'}; of a box [1e400, 0, 10, 10] and a good one, kept: "
        f"{len(widgets or [])}; "
        f"noted in the run's log: {' / '.join(said)[:300]}", "the program's fault, a note; no internal error")
    row("inside: 200,000-deep nested JSON", f"reader thread alive after it: {alive}; answers after it: "
        f"{'yes' if widgets is not None else 'no'}", "reader lives, answers go on")
    row("inside: a forged hello naming /etc/python3/sitecustomize.py", f"files read besides the program's main.py: "
        f"{forged or 'none'}", "none")


def _engine_group(row: Row) -> None:
    from app.engine.play import cgroup

    probe = ("from app.engine.play import cgroup; g = cgroup.RunGroup.create(8, 64); g.close(); "
             "import json; print(json.dumps(cgroup.engine_group))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=ROOT)
    paths = json.loads(proc.stdout.strip() or "[]")
    limit = ""
    for path in paths:
        for name in ("memory.limit_in_bytes", "memory.max"):
            if os.path.exists(os.path.join(path, name)):
                limit = Path(path, name).read_text().strip()
    row("the engine process's own cgroup", f"{paths[0] if paths else 'none'}; memory bound "
        f"{int(limit) // (1 << 20) if limit.isdigit() else limit or '-'} MB (default {cgroup.ENGINE_MEMORY_MB} MB)",
        "a group of its own with a memory bound")


FLOOD_THREAD = '''import fcntl, os, threading, time


def _flood():
    time.sleep(1.0)
    fds = []
    for name in os.listdir("/proc/self/fd"):  # every pipe end it may write but its own output: the gate's too
        fd = int(name)
        try:
            if fd > 2 and os.readlink("/proc/self/fd/%d" % fd).startswith("pipe:") \\
                    and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                fds.append(fd)
        except OSError:
            pass
    while True:
        for fd in fds:
            try:
                os.write(fd, b"\\x00" * 4096)
            except OSError:
                pass


threading.Thread(target=_flood, daemon=True).start()
'''


def _gate_duration(tmp: Path, row: Row) -> None:
    """The flood through a whole run on the frame gate (the survival search's trunk plays on it)."""
    import shutil

    folder = tmp / "flood_pg"
    shutil.copytree(ROOT / "tests" / "targets" / "anim_pg", folder)
    (folder / "main.py").write_text(FLOOD_THREAD + (folder / "main.py").read_text())
    runs = {}
    for name, path in (("flooded", folder), ("as shipped", ROOT / "tests" / "targets" / "anim_pg")):
        proc, took = _cli("test", str(path), "--tester", "offline", "--survival", "on", "--duration", "8", "--json",
                          "--db", str(tmp / f"{name.split()[0]}.db"), env=dict(os.environ), timeout=300)
        try:
            summary = json.loads(proc.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            summary = {"verdict": "none", "steps": 0, "duration_s": 0, "error": proc.stderr[-200:]}
        runs[name] = (proc.returncode, took, summary)
    code, took, got = runs["flooded"]
    base = runs["as shipped"]
    row("a game flooding every pipe it holds (the frame gate's too) with zero bytes, `playcoder test --tester "
        "offline --survival on --duration 8`",
        f"exit {code}, verdict {got['verdict']}, {got['steps']} steps, played {got['duration_s']} s, "
        f"{took:.0f} s wall{', error: ' + got['error'] if got.get('error') else ''}; the game as shipped: exit "
        f"{base[0]}, {base[2]['steps']} steps, played {base[2]['duration_s']} s, {base[1]:.0f} s wall",
        "ends at its duration with a verdict")


def bench_channels(tmp: Path, row: Row) -> None:
    _gate_flood(row)
    _gate_duration(tmp, row)
    _scouts(row)
    _inside(tmp, row)
    _engine_group(row)


def cases(row: Row) -> dict[str, Callable[[Path], None]]:
    """The cases above for faults.py's table (each gets faults.py's ``row``)."""
    return {"build": lambda tmp: bench_build(tmp, row), "venvhome": lambda tmp: bench_venvhome(tmp, row),
            "channels": lambda tmp: bench_channels(tmp, row)}

