"""Containment with real processes: hostile targets and hostile unit tests under the one sandbox.

Each hostile program tries everything a hostile-program probe found: read the engine's
environment through /proc, scan /proc, connect to a listener on 127.0.0.1,
write outside its copy (HOME, /tmp, the repository, the real target folder),
fill the disk, leave a ``setsid`` daemon behind and read a fake API key.
The checks are made from the outside: 0 writes outside the copy, 0
connections, 0 keys read, 0 processes left.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest

from app.engine.play import sandbox
from app.engine.play.targetspec import load_spec
from app.engine.errors import TargetError
from app.engine.trace.store import TrajectoryStore

from suite import ROOT, TARGETS, needs_xvfb

BWRAP = bool(sandbox.bwrap_status()[0])
needs_bwrap = pytest.mark.skipif(not BWRAP, reason="bubblewrap cannot run here (the fallback is tested separately)")
MB = 1024 * 1024

ATTACK = r'''
import json, os, socket, subprocess, sys, time

def attack(fill_mb=1024):
    tag = os.environ.get("HOSTILE_TAG", "0")
    rep = {"pids": [], "keys": [], "connected": [], "disk_bytes": 0, "x_sockets": [], "uid": os.getuid()}
    for k, v in os.environ.items():
        if "sk-hostile-" in v or "hostile-pw" in v:
            rep["keys"].append("env:" + k)
    for name in os.listdir("/proc"):
        if name.isdigit():
            rep["pids"].append(int(name))
            for f in ("environ", "cmdline"):
                try:
                    with open("/proc/%s/%s" % (name, f), "rb") as fh:
                        data = fh.read()
                except OSError:
                    continue
                if b"sk-hostile-" in data or b"hostile-pw" in data:
                    rep["keys"].append("/proc/%s/%s" % (name, f))
    try:
        with open("/proc/%d/environ" % os.getppid(), "rb") as fh:
            if b"sk-hostile-" in fh.read():
                rep["keys"].append("ppid")
    except OSError:
        pass
    port = int(os.environ.get("HOSTILE_PORT", "0"))
    for host in ("127.0.0.1", "localhost"):
        try:
            s = socket.create_connection((host, port), timeout=1)
            s.sendall(b"stolen")
            s.close()
            rep["connected"].append(host)
        except OSError:
            pass
    home = os.path.expanduser("~")
    outside = [p for p in os.environ.get("HOSTILE_PATHS", "").split(os.pathsep) if p]
    for path in outside + [os.path.join(home, "hostile-" + tag), "/tmp/hostile-" + tag]:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as fh:
                fh.write("pwned")
        except OSError:
            pass
    try:
        rep["x_sockets"] = sorted(os.listdir("/tmp/.X11-unix"))
    except OSError:
        pass
    total, chunk = 0, b"\1" * (16 << 20)
    try:
        for i in range(fill_mb // 16):
            with open("fill-%d.bin" % i, "wb") as fh:
                fh.write(chunk)
            total += len(chunk)
    except OSError:
        pass
    rep["disk_bytes"] = total
    for i in range(fill_mb // 16):
        try:
            os.remove("fill-%d.bin" % i)
        except OSError:
            pass
    subprocess.Popen(["sleep", "300." + tag], start_new_session=True, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execvp("sleep", ["sleep", "301." + tag])
        os._exit(0)
    return rep
'''

TARGET_MAIN = ATTACK + r'''
rep = attack()
print("REPORT " + json.dumps(rep), flush=True)
import tkinter as tk
root = tk.Tk()
root.title("Hostile")
root.geometry("240x160+0+0")
tk.Label(root, text="nothing to see").pack()
root.mainloop()
'''


@pytest.fixture
def listener():
    """A TCP listener on 127.0.0.1 that counts the connections it gets."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    seen: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            seen.append(conn.recv(100))
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], seen
    stop.set()
    thread.join(2)
    server.close()


@pytest.fixture
def hostile(tmp_path, monkeypatch, listener):
    """Fake keys in the engine's environment and the paths a hostile program will try to write."""
    tag = str(secrets.randbelow(10 ** 8))
    port, seen = listener
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.setenv("OPENAI_API_KEY", f"sk-hostile-{tag}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", f"sk-hostile-ant-{tag}")
    monkeypatch.setenv("MY_DB_PASSWORD", f"sk-hostile-db-{tag}")
    monkeypatch.setenv("DATABASE_URL", f"postgres://user:hostile-pw-{tag}@db.example/x")
    paths = [outside / "x.txt", ROOT / f"hostile-{tag}.txt", Path.home() / f"hostile-{tag}.txt",
             Path("/tmp") / f"hostile-{tag}"]
    yield {"tag": tag, "port": port, "seen": seen, "outside": outside, "paths": paths}
    for path in paths:
        path.unlink(missing_ok=True)


def _assert_contained(h: dict, report: dict | None, real_folder: Path | None = None,
                      before: dict[str, bytes] | None = None) -> None:
    assert not h["seen"], f"the program reached the host's loopback: {h['seen']}"
    written = [str(p) for p in h["paths"] if p.exists()] + [str(p) for p in h["outside"].iterdir()]
    assert not written, f"writes outside the copy: {written}"
    if real_folder is not None:
        after = {str(p.relative_to(real_folder)): p.read_bytes() for p in real_folder.rglob("*") if p.is_file()}
        assert after == before, "the real target folder changed"
    deadline = time.monotonic() + 5
    while True:
        left = [p.pid for p in psutil.process_iter(["cmdline", "status"])
                if p.info["cmdline"] and p.info["cmdline"][0] == "sleep" and p.info["cmdline"][-1].endswith(h["tag"])
                and p.info["status"] != psutil.STATUS_ZOMBIE]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert not left, f"processes survived the run: {left}"
    if report is not None:
        assert report["keys"] == [], f"keys read: {report['keys']}"
        assert report["connected"] == []


def _hostile_target(folder: Path, h: dict, network: str = "none") -> Path:
    folder.mkdir()
    env = {"HOSTILE_TAG": h["tag"], "HOSTILE_PORT": str(h["port"]),
           "HOSTILE_PATHS": os.pathsep.join(str(p) for p in h["paths"] + [folder / ".." / "escaped.txt"])}
    toml = 'name = "hostile"\nkind = "app"\ncommand = ["python", "main.py"]\nsize = [240, 160]\n' \
           f'network = "{network}"\n[env]\n' + "".join(f'{k} = {json.dumps(v)}\n' for k, v in env.items())
    (folder / "playcoder.toml").write_text(toml)
    (folder / "main.py").write_text(TARGET_MAIN)
    return folder


def _report(lines: list[str]) -> dict:
    found = [json.loads(t[len("REPORT "):]) for t in lines if t.startswith("REPORT ")]
    assert found, f"the hostile program reported nothing: {lines[-10:]}"
    return found[-1]


# -- played targets ------------------------------------------------------------------------
@needs_xvfb
@needs_bwrap
def test_hostile_target_is_contained(xvfb, tmp_path, hostile):
    from app.engine.play.target import TargetProcess

    folder = _hostile_target(tmp_path / "hostile", hostile)
    before = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    target = TargetProcess(load_spec(folder), xvfb, seed=1)
    try:
        win = target.wait_for_window(timeout=60)
        assert win.method in ("net_wm_pid", "xres")
        assert target.confined
        report = _report([t for _, _, t in target.lines()])
    finally:
        target.shutdown()
    _assert_contained(hostile, report, folder, before)
    assert len(report["pids"]) <= 8, f"the program saw processes beyond its own: {report['pids']}"
    assert report["x_sockets"] == [f"X{xvfb.name.lstrip(':')}"], "only its own display's X socket"
    quota = sandbox.TARGET_LIMITS.disk_mb * MB
    assert quota // 2 < report["disk_bytes"] <= quota + 32 * MB, "the copy is size-limited"
    assert not (tmp_path / "escaped.txt").exists()


@needs_xvfb
@needs_bwrap
def test_hostile_target_in_playcoder_test(tmp_path, hostile, db_path):
    folder = _hostile_target(tmp_path / "hostile", hostile)
    before = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(folder), "--tester", "offline", "--max-steps",
                           "2", "--json", "--db", str(db_path)], capture_output=True, text=True, timeout=240,
                          cwd=ROOT)
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["run_id"] is not None, proc.stderr
    logs = [row["text"] for row in TrajectoryStore(db_path).logs(summary["run_id"])]
    report = _report(logs)
    _assert_contained(hostile, report, folder, before)
    assert len(report["pids"]) <= 8
    assert hostile["tag"] not in proc.stdout + proc.stderr


@needs_xvfb
@needs_bwrap
def test_namespace_pid_maps_to_host_pid_for_window_discovery(xvfb):
    from Xlib import display as xdisplay

    from app.engine.play.target import TargetProcess, find_window

    target = TargetProcess(load_spec(TARGETS / "anim_pg"), xvfb)
    try:
        win = target.wait_for_window()
        assert win.method == "net_wm_pid"  # SDL wrote the namespace PID; it was mapped
        mapping = sandbox.namespace_pids(target.sandboxed.host_pids())
        assert mapping[target.pid] == 2 and target.pid != 2
        conn = xdisplay.Display(xvfb.name)
        try:
            prop = conn.create_resource_object("window", win.id).get_full_property(
                conn.intern_atom("_NET_WM_PID"), 0)
            assert int(prop.value[0]) == 2
            deadline = time.monotonic() + 5  # the caption is set just after the window maps
            while (by_title := find_window(conn, xvfb.process.pid, "Anim")) is None and time.monotonic() < deadline:
                time.sleep(0.05)  # xvfb's PID owns no window: only the title fallback can find it
            assert by_title is not None and by_title.method == "title"
        finally:
            conn.close()
    finally:
        target.shutdown()
    assert not target.alive()


def test_engine_killed_takes_the_sandbox_with_it(tmp_path):
    tag = str(secrets.randbelow(10 ** 8))
    folder = tmp_path / "prog"
    folder.mkdir()
    code = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from app.engine.play import sandbox
        proc = sandbox.start(["sleep", "302.{tag}"], sandbox.Jail(Path({str(folder)!r})))
        print(proc.pid, flush=True)
        time.sleep(60)
    """)
    engine = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert engine.stdout is not None and engine.stdout.readline().strip()
        engine.kill()
        engine.wait(10)
    finally:
        if engine.poll() is None:
            engine.kill()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if not [p for p in psutil.process_iter(["cmdline", "status"])
                if p.info["cmdline"] == ["sleep", f"302.{tag}"] and p.info["status"] != psutil.STATUS_ZOMBIE]:
            return
        time.sleep(0.1)
    pytest.fail("the sandboxed program outlived the engine killed by SIGKILL")


# -- unit tests, import checks and bench unit tests ------------------------------------------
def _hostile_program(root: Path, h: dict) -> Path:
    root.mkdir()
    (root / "logic.py").write_text("def add(a, b):\n    return a + b\n")
    env = (f"import os\nos.environ.update(HOSTILE_TAG={h['tag']!r}, HOSTILE_PORT={str(h['port'])!r}, "
           f"HOSTILE_PATHS={os.pathsep.join(str(p) for p in h['paths'])!r})\n")
    (root / "test_hostile.py").write_text(
        env + ATTACK + "\n\ndef test_attack():\n    rep = attack(fill_mb=512)\n"
        "    assert False, 'REPORT ' + json.dumps(rep)\n")
    (root / "helper.py").write_text(env + ATTACK + "\nprint('REPORT ' + json.dumps(attack(fill_mb=64)))\n")
    (root / "playcoder.toml").write_text('name = "hostile"\ncommand = ["python", "main.py"]\n'
                                         'unit_tests = ["test_*.py"]\n')
    (root / "main.py").write_text("import logic, helper\n")
    return root


@needs_bwrap
def test_hostile_unit_tests_and_import_check_in_a_repair(tmp_path, hostile):
    from app.engine.repair.sandbox import Executor, Workspace
    from app.engine.repair.tools import UnitTestRunner, Validator

    root = _hostile_program(tmp_path / "prog", hostile)
    before = {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    ws = Workspace(root)
    t0 = time.monotonic()
    tests = UnitTestRunner(Executor()).run(ws)
    assert time.monotonic() - t0 < 60, "a daemon left behind does not hold the stage"
    assert tests.ran and not tests.error and list(tests.failed) == ["test_hostile::test_attack"], tests.output
    message = tests.failed["test_hostile::test_attack"]
    report = json.loads(message[message.index("REPORT ") + 7:].splitlines()[0].rstrip("'\""))
    _assert_contained(hostile, report, root, before)
    assert report["disk_bytes"] <= sandbox.Limits().disk_mb * MB + 32 * MB
    assert len(report["pids"]) <= 8
    validation = Validator(Executor()).validate(ws)
    imported = next(s for s in validation.stages if s.stage == "import")
    report = _report(imported.output.splitlines())
    _assert_contained(hostile, report, root, before)


@needs_bwrap
def test_hostile_unit_tests_in_bench_play(tmp_path, hostile):
    from app.engine.bench.play_at_k import run_unit_tests

    root = _hostile_program(tmp_path / "prog", hostile)
    before = {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    passed, note = run_unit_tests(root)
    assert passed is False and "1 failed" in note
    _assert_contained(hostile, None, root, before)


# -- network ----------------------------------------------------------------------------------------
LOOPBACK_PROBE = r'''
import socket, sys, threading
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
threading.Thread(target=lambda: srv.accept()[0].sendall(b"pong"), daemon=True).start()
c = socket.create_connection(srv.getsockname(), timeout=2)
print("own loopback:", c.recv(4).decode())
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1)
    print("host reached")
except OSError:
    print("host unreachable")
'''


@needs_bwrap
@pytest.mark.parametrize("network", ["loopback", "none"])
def test_a_target_has_its_own_loopback_only(tmp_path, listener, network):
    port, seen = listener
    out = sandbox.run([sys.executable, "-c", LOOPBACK_PROBE, str(port)],
                      sandbox.Jail(tmp_path, network=network, limits=sandbox.Limits(wall_s=20)))
    assert out.returncode == 0, out.stderr
    assert "own loopback: pong" in out.stdout and "host unreachable" in out.stdout
    assert out.network_isolated and not seen


def test_network_key_in_playcoder_toml(tmp_path):
    (tmp_path / "playcoder.toml").write_text('name = "n"\ncommand = ["python", "main.py"]\nnetwork = "loopback"\n')
    assert load_spec(tmp_path).network == "loopback"
    (tmp_path / "playcoder.toml").write_text('name = "n"\ncommand = ["python", "main.py"]\n')
    assert load_spec(tmp_path).network == "none"
    (tmp_path / "playcoder.toml").write_text('name = "n"\ncommand = ["python", "main.py"]\nnetwork = "host"\n')
    with pytest.raises(TargetError, match='"network" must be "none" or "loopback"'):
        load_spec(tmp_path)


# -- environment, limits, fallback ------------------------------------------------------------------
def test_environment_is_a_whitelist():
    base = {"PATH": "/usr/bin", "LANG": "C.UTF-8", "LC_ALL": "C", "OPENAI_API_KEY": "k", "GITHUB_TOKEN": "t",
            "DB_PASSWORD": "p", "PASSWD": "p", "AWS_SECRET_ACCESS_KEY": "s", "GOOGLE_APPLICATION_CREDENTIALS": "/c",
            "HTTPS_PROXY": "http://user:pw@proxy:3128", "XAUTHORITY": "/root/.Xauthority", "DISPLAY": ":0",
            "SSH_AUTH_SOCK": "/run/ssh", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/bus", "HOME": "/root"}
    env = sandbox.program_environment({"MY_API_KEY": "x", "GAME_LEVEL": "3", "MIRROR": "https://u:p@host/"},
                                      home="/tmp/home", tmp="/tmp", display=":5", base=base)
    assert env["LANG"] == "C.UTF-8" and env["LC_ALL"] == "C" and env["GAME_LEVEL"] == "3"
    assert env["HOME"] == "/tmp/home" and env["DISPLAY"] == ":5" and env["PATH"].endswith("/usr/bin")
    for name in ("OPENAI_API_KEY", "GITHUB_TOKEN", "DB_PASSWORD", "PASSWD", "AWS_SECRET_ACCESS_KEY",
                 "GOOGLE_APPLICATION_CREDENTIALS", "HTTPS_PROXY", "XAUTHORITY", "SSH_AUTH_SOCK",
                 "DBUS_SESSION_BUS_ADDRESS", "MY_API_KEY", "MIRROR"):
        assert name not in env, name


def test_xauthority_keeps_only_the_programs_display(tmp_path):
    def entry(number: str, cookie: bytes) -> bytes:
        parts = [b"host", number.encode(), b"MIT-MAGIC-COOKIE-1", cookie]
        return (256).to_bytes(2, "big") + b"".join(len(p).to_bytes(2, "big") + p for p in parts)

    path = tmp_path / "xauth"
    path.write_bytes(entry("0", b"desktop-cookie") + entry("7", b"run-cookie") + entry("70", b"other"))
    kept = sandbox.xauthority_entries(str(path), "7")
    assert kept == entry("7", b"run-cookie")


@needs_bwrap
def test_private_tmp_and_home_are_size_limited(tmp_path):
    code = ("import json, os\nn, errno = 0, None\ntry:\n    with open(os.path.expanduser('~/big'), 'wb') as fh:\n"
            "        for _ in range(64):\n            fh.write(b'x' * (1 << 20)); fh.flush(); n += 1\n"
            "except OSError as e:\n    errno = e.errno\n"
            f"real = {str(Path.home())!r}\n"
            "seen = sorted(os.listdir(real)) if os.path.isdir(real) else []\n"
            "print(json.dumps([n, errno, os.environ['HOME'], sorted(os.listdir('/')), seen]))\n")
    out = sandbox.run([sys.executable, "-c", code], sandbox.Jail(tmp_path, limits=sandbox.Limits(tmp_mb=8)))
    written, errno, home, top, seen = json.loads(out.stdout.splitlines()[-1])
    assert written <= 8 and errno == 28, "No space left on device past the private /tmp's size"
    assert home == "/tmp/home"
    # The checkout's top folder is not shown; /tmp always is (the sandbox's own, private one).
    assert not ({"home", "srv", "mnt", Path(ROOT).parts[1]} - {"tmp"}) & set(top), top
    python_parts = {Path(p).relative_to(Path.home()).parts[0] for p in (sys.prefix, sys.base_prefix)
                    if Path(p).is_relative_to(Path.home())}
    assert set(seen) <= python_parts, f"the real HOME shows more than the Python the engine runs: {seen}"


def test_fallback_keeps_the_limits_and_kills_daemons(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fallback-key")
    tag = str(secrets.randbelow(10 ** 8))
    (tmp_path / "prog").mkdir()
    code = (f"import os, subprocess\nsubprocess.Popen(['sleep', '303.{tag}'], start_new_session=True)\n"
            "print(os.environ.get('OPENAI_API_KEY', 'absent'), os.getcwd())\nopen('mine.txt', 'w').write('x')\n")
    out = sandbox.run([sys.executable, "-c", code], sandbox.Jail(tmp_path / "prog", confine=False))
    assert not out.confined and out.returncode == 0, out.stderr
    assert out.stdout.startswith("absent ") and str(tmp_path / "prog") not in out.stdout
    assert not (tmp_path / "prog" / "mine.txt").exists(), "the fallback writes in a throwaway copy"
    time.sleep(0.2)
    assert not [p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == ["sleep", f"303.{tag}"]]
    fill = "import time\nf = open('big', 'wb')\nfor _ in range(400):\n    f.write(b'x' * (1 << 20)); f.flush()\n" \
           "time.sleep(30)\n"
    out = sandbox.run([sys.executable, "-c", fill], sandbox.Jail(
        tmp_path / "prog", confine=False, limits=sandbox.Limits(disk_mb=16, tmp_mb=4, fsize_mb=512, wall_s=30)))
    assert out.disk_exceeded and not out.timed_out


def test_missing_bwrap_is_said_once_and_falls_back(tmp_path):
    code = textwrap.dedent(f"""
        import shutil, sys
        from pathlib import Path
        real = shutil.which
        shutil.which = lambda name, *a, **k: None if name == "bwrap" else real(name, *a, **k)
        from app.engine.play import sandbox
        for _ in range(3):
            out = sandbox.run([sys.executable, "-c", "print('ran')"], sandbox.Jail(Path({str(tmp_path)!r})))
            assert out.stdout.strip() == "ran" and not out.confined
    """)
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("without the bubblewrap sandbox (bwrap is not installed)") == 1, proc.stderr


def test_output_bomb_costs_the_engine_a_bounded_tail(tmp_path):
    code = "import sys\nfor _ in range(40):\n    sys.stdout.write('y' * (1 << 20))\nprint('END')\n"
    out = sandbox.run([sys.executable, "-c", code], sandbox.Jail(tmp_path))
    assert out.returncode == 0 and out.stdout.endswith("END\n")
    assert len(out.stdout) <= sandbox.OUTPUT_CAP_BYTES


# -- a model's patch, played during a repair ---------------------------------------------------
@needs_xvfb
@needs_bwrap
def test_a_hostile_model_patch_played_in_a_repair_is_contained(hostile, db_path):
    """The refiner's patch fixes the bug and also attacks at import: in the unit tests, the import
    check and the re-test play it reads no key, reaches no listener, writes nothing outside its
    copy and leaves no process; the bundled app's own folder is unchanged."""
    from llm_servers import OpenAIServer, Recorded, Reply

    env = (f"import os\nos.environ.update(HOSTILE_TAG={hostile['tag']!r}, HOSTILE_PORT={str(hostile['port'])!r}, "
           f"HOSTILE_PATHS={os.pathsep.join(str(p) for p in hostile['paths'])!r})\n")
    payload = env + ATTACK + '\nprint("REPORT " + json.dumps(attack(fill_mb=32)), flush=True)\n'
    app_folder = TARGETS / "tally_tk"  # the tests' own tally and its flipped subtraction: no benchmark bug pinned
    anchor = (app_folder / "tally_logic.py").read_text().splitlines(keepends=True)[0]
    patch = ("tally_logic.py\n<<<<<<< SEARCH\n    if op == \"-\":\n        return b - a\n=======\n"
             "    if op == \"-\":\n        return a - b\n>>>>>>> REPLACE\n\n"
             f"tally_logic.py\n<<<<<<< SEARCH\n{anchor}=======\n{anchor}{payload}>>>>>>> REPLACE\n")

    def respond(rec: Recorded) -> Reply:
        if "Now write the patch" in rec.prompt():
            return Reply(patch, (900, 60))
        return Reply("apply() returns b - a for '-'.", (1200, 40))

    before = {str(p.relative_to(app_folder)): p.read_bytes() for p in app_folder.rglob("*")
              if p.is_file() and "__pycache__" not in p.parts}
    with OpenAIServer() as server:
        server.responder = respond
        proc = subprocess.run(
            [sys.executable, "-m", "app", "repair", f"{app_folder}@minus-flipped", "--refiner", "llm",
             "--provider", "compatible", "--model", "fixer", "--base-url", server.base_url, "--max-iterations", "1",
             "--json", "--db", str(db_path)], capture_output=True, text=True, timeout=400, cwd=ROOT)
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    (it,) = summary["iterations"]
    assert "return a - b" in it["diff"] and "attack(fill_mb=32)" in it["diff"], it
    assert it["retest_run"] is not None, it
    logs = [row["text"] for row in TrajectoryStore(db_path).logs(it["retest_run"])]
    report = _report(logs)
    assert report is not None, "the patched program ran in the re-test play"
    _assert_contained(hostile, report)
    after = {str(p.relative_to(app_folder)): p.read_bytes() for p in app_folder.rglob("*")
             if p.is_file() and "__pycache__" not in p.parts}
    assert after == before, "the target's own folder changed"
    out = proc.stdout + proc.stderr
    for key in (f"sk-hostile-{hostile['tag']}", f"sk-hostile-ant-{hostile['tag']}", f"hostile-pw-{hostile['tag']}"):
        assert key not in out
