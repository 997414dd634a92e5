"""Run a command, send it a signal at a chosen moment, and report how it ended and what it left behind.

    python tests/fault_harness.py --signal INT --after 3.5 [--when-steps DB N] [--to group|pid] -- CMD...

The harness makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``): any
process the command leaves behind is re-parented to the harness instead of
init, so orphans are found exactly, without guessing by name on a shared
machine.  The command starts in a session of its own; ``--to group`` signals
its whole process group, as a terminal's Ctrl-C does.  Prints one JSON object:
exit code, seconds from the signal to the exit, stdout/stderr tails, whether
a traceback was printed, and the orphans (which it then kills).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import psutil

PR_SET_CHILD_SUBREAPER = 36


def steps_in(db: str) -> int:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return int(conn.execute("SELECT count(*) FROM steps").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--signal", default="INT", help="INT, TERM, KILL or NONE")
    ap.add_argument("--after", type=float, default=0.0, help="seconds after the start (or after --when-steps)")
    ap.add_argument("--when-steps", nargs=2, metavar=("DB", "N"), default=None)
    ap.add_argument("--to", choices=["group", "pid"], default="group")
    ap.add_argument("--timeout", type=float, default=60.0, help="give up waiting for the exit after this long")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    outs: dict[str, bytes] = {}
    import threading

    readers = [threading.Thread(target=lambda k=k, s=s: outs.__setitem__(k, s.read()), daemon=True)
               for k, s in (("out", proc.stdout), ("err", proc.stderr))]
    for r in readers:
        r.start()
    if args.when_steps:
        db, n = args.when_steps[0], int(args.when_steps[1])
        while proc.poll() is None and steps_in(db) < n and time.monotonic() - t0 < args.timeout:
            time.sleep(0.05)
    deadline = time.monotonic() + args.after
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    sent_at = time.monotonic()
    descendants_at_signal = [p.pid for p in psutil.Process().children(recursive=True)]
    signalled = False
    if args.signal != "NONE" and proc.poll() is None:
        sig = getattr(signal, f"SIG{args.signal}")
        if args.to == "group":
            os.killpg(proc.pid, sig)
        else:
            os.kill(proc.pid, sig)
        signalled = True
    try:
        code = proc.wait(args.timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = proc.wait()
    seconds = time.monotonic() - sent_at
    for r in readers:
        r.join(5)
    time.sleep(1.0)  # let children that die with their parent finish dying
    orphans = []
    for p in psutil.Process().children(recursive=True):
        try:
            if p.status() != psutil.STATUS_ZOMBIE:
                orphans.append(" ".join(p.cmdline()[:4]))
                p.kill()
        except psutil.Error:
            pass
    err = outs.get("err", b"").decode("utf-8", "replace")
    print(json.dumps({
        "code": code, "signalled": signalled, "seconds_to_exit": round(seconds, 2),
        "total_seconds": round(time.monotonic() - t0, 2), "stderr": err[-3000:],
        "stdout": outs.get("out", b"").decode("utf-8", "replace")[-3000:],
        "stderr_lines": [line for line in err.splitlines() if line.strip() and "\r" not in line
                         and not line.startswith(("bench ", "  0%"))],
        "traceback": "Traceback (most recent call last)" in err, "orphans": orphans,
        "descendants_at_signal": len(descendants_at_signal),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
