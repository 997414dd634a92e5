"""A fuzzer for every channel the engine reads from a program: the frame gate, the inside channel, the scout socket.

For each channel a small hostile program of the tests' own holds the program's ends of a real channel and sends
random, huge, malformed, endless or early-EOF data; the engine's real end reads it.  Each must end within its
bound, raise nothing, keep its reader alive, and leave no process behind.  One end-to-end run plays a hostile
target through ``playcoder test --duration`` and must end within the duration + 10 s with a verdict.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from app.engine.play.gate import FrameGate
from app.engine.play.inside import Inside
from app.engine.play.targetspec import load_spec
from app.engine.testers.explore.fork_scout import MAX_PAIRS, ForkGate, ForkScouts
from app.engine.trace.store import TrajectoryStore

from suite import ROOT, TARGETS, needs_xvfb

MODES = ("random", "huge", "malformed", "endless", "eof")
HOSTILE = textwrap.dedent(r'''
    import json, os, random, socket, sys, time
    channel, mode = sys.argv[1], sys.argv[2]
    fds = [int(a) for a in sys.argv[3:]]
    random.seed(7)
    out = fds[1] if channel in ("gate", "inside") else fds[0]
    sock = socket.socket(fileno=fds[0]) if channel == "scout" else None

    def send(data):
        try:
            if sock is not None:
                sock.send(data[:1 << 20])
            else:
                os.write(out, data)
        except OSError:
            sys.exit(0)

    def replies():
        """Answers to the inside channel's requests, every one hostile."""
        import select
        buf = b""
        while select.select([fds[0]], [], [], 0)[0]:
            chunk = os.read(fds[0], 65536)
            if not chunk:
                break
            buf += chunk
        for line in buf.splitlines():
            try:
                ident = json.loads(line)["id"]
            except Exception:
                continue
            send(b'{"v":1,"type":"reply","id":%d,"idle":true,"next_timer_ms":1%s}\n' % (ident, b"0" * 400))
            send(b'{"v":1,"type":"reply","id":%d,"widgets":[{"kind":"button","box":[Infinity,0,10,10]},'
                 b'{"box":[1e400,0,1,1]},{"box":[0,0,"x",1]},[1,2]]}\n' % ident)
            send(b'{"v":1,"type":"reply","id":%d,"files":{"/etc/passwd":[1,2]},"widgets":7}\n' % ident)

    if mode == "eof":
        sys.exit(0)
    end = time.monotonic() + (6 if mode == "endless" else 3)
    if channel == "inside":
        send(b'{"v":1,"type":"hello","toolkit":"tk","main":{"path":"/etc/host.py","name":"host.py"}}\n')
    if channel == "gate" and mode != "malformed":
        send(b"\x00\x3c")  # hello, and "standing at my first frame"
    while time.monotonic() < end:
        if mode == "random":
            send(os.urandom(random.randint(1, 5000)))
        elif mode == "huge":
            send(b"[" * 200000 + b"x" * (3 << 20))
            send(b"\n")
        elif mode == "malformed":
            for m in (b"[1,2]\n", b"null\n", b'{"v":1}\n', b'{"id":1,"w":1e999,"h":2}\n', b"[" * 100000 + b"\n",
                      b'{"v":1,"type":"coverage","files":{"a.py":[1e400, "x", null]}}\n', b"\xff\xfe\n",
                      b'{"id":1,"end":1,"alive":true,"lines":[["f",1]],"near":[["f",1,1,NaN,1]]}\n'):
                send(b"\x00" if channel == "gate" else m)
        else:  # endless
            send(b"\x00" * 65536 if channel == "gate" else b"x" * 65536)
        if channel == "inside":
            replies()
        time.sleep(0.01)
''')


def hostile(channel: str, mode: str, fds: tuple[int, ...]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", HOSTILE, channel, mode, *map(str, fds)], pass_fds=fds,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def finish(child: subprocess.Popen[bytes]) -> None:
    """The hostile program is gone afterwards, with everything it started."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    child.wait(10)
    assert child.poll() is not None


@pytest.mark.parametrize("mode", MODES)
def test_the_frame_gate_takes_anything_within_its_bounds(mode):
    gate = FrameGate()
    fds = gate.child_fds()
    child = hostile("gate", mode, fds)
    gate.started()
    t0 = time.monotonic()
    try:
        if gate.engage(lambda: child.poll() is None, hello_s=1.0, first_frame_s=2.0):
            for _ in range(20):
                if not gate.advance(6) or time.monotonic() - t0 > 12:
                    break
        took = time.monotonic() - t0
    finally:
        gate.close()
        finish(child)
    assert took < 15, f"{mode}: the engine was held {took:.1f} s"
    if mode == "endless":
        # let go at once, with the reason: the flood came in its wait, or before the engine asked
        assert ("flooded its frame gate" in gate.lost or "out of turn" in gate.lost) and took < 5


@pytest.mark.parametrize("mode", MODES)
def test_the_inside_channel_takes_anything_and_its_reader_lives(tmp_path, mode):
    (tmp_path / "main.py").write_text("x = 1\n")
    said: list[str] = []
    inside = Inside(tmp_path, note=said.append)
    fds = inside.child_fds()
    child = hostile("inside", mode, fds)
    inside.started()
    t0 = time.monotonic()
    try:
        inside.wait_hello(2.0)
        while time.monotonic() - t0 < 3:
            assert inside.idle(0.2) is None
            widgets = inside.widgets(0.2)
            assert widgets is None or all(w.box is None or all(abs(v) < 1 << 21 for v in w.box) for w in widgets)
            inside.coverage(0.2)
        assert inside._reader.is_alive() or mode in ("eof", "random", "huge", "malformed") or child.poll() is not None
        assert set(inside.lines_by_file()) <= {"main.py"}, "a forged path is never read"
    finally:
        finish(child)
        inside.close()
    inside._reader.join(5)
    assert not inside._reader.is_alive()
    assert time.monotonic() - t0 < 12
    if mode == "malformed":
        assert inside.notes.kept and all(n.startswith("inside channel: the program sent") for n in said)
        assert inside.dropped > 0


@pytest.mark.parametrize("mode", MODES)
def test_the_scout_socket_takes_anything_and_stops_at_its_end(mode):
    scouts = ForkScouts(load_spec(TARGETS / "anim_pg"), 0)
    gate = ForkGate()
    scouts.gate = gate
    fds = (gate.child_fds()[-1],)
    child = hostile("scout", mode, fds)
    gate.started()
    t0 = time.monotonic()
    try:
        got = scouts._collect({1: ([2, 4], 2.0)}, 2, 2)
        scouts._drain()
        took = time.monotonic() - t0
    finally:
        gate.close()
        finish(child)
    assert took < 6, f"{mode}: the engine was held {took:.1f} s"
    assert len(got[1].lines) <= MAX_PAIRS and got[1].lived <= 2
    if mode == "malformed":
        assert scouts.notes.kept


HOSTILE_TARGET = textwrap.dedent(r'''
    import fcntl, os, threading, time, tkinter as tk

    def pipes_to_the_engine():
        """Every pipe end it may write, but its own output (the engine hid the channel's variable)."""
        out = []
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            try:
                if fd > 2 and os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:") \
                        and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                    out.append(fd)
            except OSError:
                pass
        return out

    def flood():
        fds = pipes_to_the_engine()
        junk = [b"[" * 100000 + b"\n", b'{"v":1,"type":"hello","main":{"path":"/etc/x.py","name":"x.py"}}\n',
                b'{"v":1,"type":"reply","id":1,"idle":true,"next_timer_ms":1e400}\n', b"[1]\n", b"x" * 70000]
        while True:
            for j in junk:
                for fd in fds:
                    os.write(fd, j)
            time.sleep(0.001)

    root = tk.Tk()
    root.title("hostile")
    root.geometry("200x120+0+0")
    tk.Button(root, text="press").pack()
    root.after(300, lambda: threading.Thread(target=flood, daemon=True).start())
    root.mainloop()
''')


STARTUP_S = 30
"""The engine's own start and end around a run (imports, Xvfb, the film): generous, CI machines are shared."""


@needs_xvfb
def test_a_program_flooding_its_channel_ends_within_its_duration_with_a_verdict(tmp_path):
    folder = tmp_path / "hostile"
    folder.mkdir()
    (folder / "main.py").write_text(HOSTILE_TARGET)
    (folder / "playcoder.toml").write_text('name = "hostile"\ncommand = ["python", "main.py"]\n')
    duration = 8
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "app", "test", str(folder), "--tester", "offline", "--duration",
                           str(duration), "--json", "--db", str(tmp_path / "runs.db")], capture_output=True, text=True,
                          timeout=duration + 60, cwd=ROOT, start_new_session=True)
    took = time.monotonic() - t0
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["duration_s"] < duration + 10, summary  # the run ends within its duration + 10 s ...
    assert took < duration + 10 + STARTUP_S, f"took {took:.1f} s"  # ... and the engine's own start is bounded too
    assert summary["verdict"] in ("pass", "fail", "inconclusive"), summary
    assert "internal error" not in proc.stdout + proc.stderr
    assert not _left_behind(str(folder)), "no process of the run is left"
    store = TrajectoryStore(tmp_path / "runs.db", readonly=True)
    try:
        logs = [row["text"] for row in store.logs(summary["run_id"])]
    finally:
        store.close()
    assert any(t.startswith("playcoder: inside channel: the program sent") for t in logs), "\n".join(logs[-12:])


def _left_behind(mark: str) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                cmd = Path(f"/proc/{name}/cmdline").read_bytes()
            except OSError:
                continue
            if mark.encode() in cmd and int(name) != os.getpid():
                found.append(int(name))
    return found

