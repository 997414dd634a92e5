"""The frame gate and its clock cannot be turned against the engine.

Real child processes hold the program's ends of a real gate and misbehave:
one truncates (and tries to write) the clock memfd it inherits, which would
kill the engine with SIGBUS at its next clock write; one answers frames it
was never granted; one acknowledges every grant without taking a frame,
which would fill the credit pipe and block the engine in a write forever.
Each time the engine goes on, and the gate says why it let the program go.
"""

from __future__ import annotations

import select
import subprocess
import sys
import textwrap
import threading

from app.engine.play.gate import FrameGate

from suite import ROOT

TRUNCATE = r'''
import os, sys
credit, ack, clock = map(int, sys.argv[1:4])
done = []
for name, attack in [("ftruncate", lambda fd: os.ftruncate(fd, 0)), ("grow", lambda fd: os.ftruncate(fd, 1 << 20)),
                     ("write", lambda fd: os.pwrite(fd, b"\xff" * 8, 0))]:
    for fd in (clock, os.open("/proc/self/fd/%d" % clock, os.O_RDWR)):
        try:
            attack(fd)
            done.append(name)
        except OSError:
            pass
print(" ".join(done) or "nothing", flush=True)
'''

ENGINE = r'''
import subprocess, sys
from app.engine.play.gate import FrameGate
gate = FrameGate()
fds = gate.child_fds()
child = subprocess.run([sys.executable, "-c", sys.argv[1], *map(str, fds)], pass_fds=fds, capture_output=True,
                       text=True, timeout=30)
gate.started()
for _ in range(100):
    gate.advance_clock(0.5)
gate.close()
print("engine alive; the program managed:", child.stdout.strip(), flush=True)
'''

FAKE_ACKS = r'''
import os, sys
credit, ack, clock = map(int, sys.argv[1:4])
os.write(ack, bytes([0, 60]))  # hello, then "standing at my first frame"
while True:
    os.write(ack, bytes([60]) * 4096)  # "frames played", never taking a credit
'''

NO_FRAMES = r'''
import fcntl, os, struct, sys, termios, time
credit, ack, clock = map(int, sys.argv[1:4])
os.write(ack, bytes([0, 60]))
seen = 0
while True:  # answers each grant in turn, but never takes a frame: the credits pile up
    waiting = struct.unpack("i", fcntl.ioctl(credit, termios.FIONREAD, b"\0" * 4))[0]
    if waiting > seen:
        seen = waiting
        os.write(ack, bytes([60]))
    time.sleep(0.001)
'''


def test_a_program_truncating_its_clock_cannot_kill_the_engine():
    proc = subprocess.run([sys.executable, "-c", ENGINE, TRUNCATE], capture_output=True, text=True, timeout=60,
                          cwd=ROOT)
    assert proc.returncode == 0, f"the engine died ({proc.returncode}): {proc.stderr[-500:]}"
    assert proc.stdout.strip() == "engine alive; the program managed: nothing"


def _hostile(code: str) -> tuple[FrameGate, subprocess.Popen[bytes]]:
    gate = FrameGate()
    fds = gate.child_fds()
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *map(str, fds)], pass_fds=fds)
    gate.started()
    return gate, child


def _advance_until_let_go(gate: FrameGate) -> list[bool]:
    """Grant frames over and over from a thread the test can wait for (a blocked engine would never return)."""
    results: list[bool] = []
    select.select([gate._ack_r], [], [], 20)  # the child's interpreter has started (engage waits 0.3 s for it)
    engaged = gate.engage()

    def play() -> None:
        for _ in range(400):
            results.append(gate.advance(600))
            if not results[-1]:
                return

    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    thread.join(60)
    assert engaged, "the hostile program said hello and stood at a frame"
    assert not thread.is_alive(), "the engine is blocked writing credits"
    return results


def test_answers_out_of_turn_let_the_program_go():
    gate, child = _hostile(FAKE_ACKS)
    try:
        results = _advance_until_let_go(gate)
        assert results[-1] is False and "out of turn" in gate.lost
    finally:
        child.kill()
        child.wait(10)
        gate.close()


def test_a_program_that_takes_no_frames_cannot_block_the_engine():
    gate, child = _hostile(NO_FRAMES)
    try:
        results = _advance_until_let_go(gate)
        assert results[-1] is False and gate.lost, "let go, with a reason"
        assert "stopped taking frames" in gate.lost or "out of turn" in gate.lost
    finally:
        child.kill()
        child.wait(10)
        gate.close()
