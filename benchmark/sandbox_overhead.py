"""What the sandbox adds to each program start, with and without bubblewrap.

    python benchmark/sandbox_overhead.py [--runs 30] [--app tiles2048]

Starts ``true`` (so only the start is timed, not the program) on a copy of a
sample app's folder three ways and prints the medians:

- plain: ``subprocess.run`` in the folder, nothing else (what the engine did
  before the sandbox);
- bwrap: :func:`app.engine.play.sandbox.run` confined (namespaces, mounts,
  the folder copied into its tmpfs, environment whitelist, rlimits, kill of
  the namespace at the end);
- fallback: the same call with ``confine=False`` (throwaway copy on disk,
  rlimits, disk watcher, marker scan for daemons).

Target: the sandbox's overhead per run start, median ≤ 150 ms.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine.play import sandbox  # noqa: E402
from app.engine.play.targetspec import APPS_DIR  # noqa: E402

TARGET_MS = 150.0


def timed(call: Callable[[], object], runs: int) -> list[float]:
    call()  # warm-up (probe of bwrap, page cache)
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        call()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--app", default="tiles2048")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="playcoder-overhead-") as tmp:
        folder = Path(tmp) / args.app
        shutil.copytree(APPS_DIR / args.app, folder)
        files = sum(1 for p in folder.rglob("*") if p.is_file())
        true = shutil.which("true") or "/bin/true"
        plain = timed(lambda: subprocess.run([true], cwd=folder, check=True), args.runs)
        rows = [("plain subprocess", plain)]
        if sandbox.bwrap_status()[0]:
            rows.append(("bwrap sandbox", timed(lambda: sandbox.run([true], sandbox.Jail(folder)), args.runs)))
        fallback = timed(lambda: sandbox.run([true], sandbox.Jail(folder, confine=False)), args.runs)
        rows.append(("fallback (no bwrap)", fallback))
    base = statistics.median(plain)
    print(f"sandbox overhead per run start: {args.runs} runs of `true` on a copy of {args.app} ({files} files)")
    print(f"{'':22} {'median ms':>10} {'p90 ms':>8} {'overhead ms':>12}")
    worst = 0.0
    for name, values in rows:
        med = statistics.median(values)
        p90 = sorted(values)[int(0.9 * (len(values) - 1))]
        over = med - base
        if name != "plain subprocess":
            worst = max(worst, over)
        print(f"{name:22} {med:10.1f} {p90:8.1f} {over:12.1f}")
    verdict = "meets" if worst <= TARGET_MS else "MISSES"
    print(f"largest median overhead {worst:.1f} ms: {verdict} the target of {TARGET_MS:g} ms")
    if not sandbox.bwrap_status()[0]:
        print(f"bwrap: {sandbox.bwrap_status()[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
