"""Faults and hostile input, measured: the numbers issue 13 asks for, printed as one table.

    python benchmark/faults.py [--only bomb,forge,opens,bench,xvfb,disk,llm,sigterm,root,tree,output,model,gate,small,
                                 build,venvhome,channels]

- bomb: a 2 MB bundle whose logs.jsonl inflates to 1.9 GiB of newlines (also with a
  lying header, and 400 MiB under the per-member limit): `playcoder import` seconds
  and peak RSS (ru_maxrss of the child, from wait4).  Target ≤ 10 s, ≤ 1 GB.
- forge: a bundle that puts another picture under a real frame's address.  Target: refused,
  the stored frame unchanged.
- opens: 60 processes opening 60 new databases, and 60 opening one new database, at
  the same instant; 5 parallel `playcoder test` runs on one new database.  Target: 0 failures.
- bench: Ctrl-C (SIGINT to the process group, as a terminal sends it) of a running
  `bench detect`: seconds to exit, traceback, orphans (found by a child subreaper,
  tests/fault_harness.py), runs started; and kill -9 of a bench: orphans.  Target: ≤ 15 s, none, none.
- xvfb / disk / llm: the run's Xvfb killed mid-run; the disk full (a 400 KB tmpfs in a
  private mount namespace); a model server that trickles a byte every 2 s with
  PLAYCODER_LLM_TIMEOUT=3.  Target: one line, exit 2, run row closed.
- sigterm: one SIGTERM to `playcoder test`.  Target: one line, exit 130, run row closed.

- root, tree, output, model, gate, small: issue 24 (benchmark/faults_contained.py).
- build, venvhome, channels: nothing a target ships runs outside its sandbox, nothing a program sends hangs or
  breaks the engine (benchmark/faults_channels.py).

Needs Xvfb for the runs; the tmpfs case needs root or unprivileged user namespaces.
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
for _layer in ("unit", "x", "e2e"):  # the hostile programs some cases borrow from the tests
    sys.path.insert(1, str(ROOT / "tests" / _layer))

from app.engine.trace.bundle import BundleError, export_bundle, import_bundle  # noqa: E402
from app.engine.trace.store import TrajectoryStore, image_digest  # noqa: E402
from hostile_inputs import TricklingServer, forged_bundle, newline_bomb, run_measured  # noqa: E402
from benchmark import faults_channels, faults_contained  # noqa: E402

PROBE = str(ROOT / "tests" / "targets" / "probe_tk")
HARNESS = str(ROOT / "tests" / "fault_harness.py")
ROWS: list[tuple[str, str, str]] = []


def row(case: str, value: str, target: str = "") -> None:
    ROWS.append((case, value, target))
    print(f"  {case}: {value}", file=sys.stderr, flush=True)


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(none)"


def states(db: Path) -> str:
    try:
        store = TrajectoryStore(db, readonly=True)
    except Exception as exc:  # the report must go on
        return f"unreadable ({exc})"
    try:
        return ", ".join(r["status"] for r in store.runs()) or "(no run)"
    finally:
        store.close()


# -- bundles -------------------------------------------------------------------------------------------
def bench_bomb(tmp: Path) -> None:
    for name, make in (("honest 1.9 GiB", lambda p: newline_bomb(p)),
                       ("lying header", lambda p: newline_bomb(p, declared=1000)),
                       ("400 MiB, under the member limit", lambda p: newline_bomb(p, total=400 * 1024**2))):
        bomb = make(tmp / "bomb.zip")
        m = run_measured([sys.executable, "-m", "app", "import", str(bomb), "--db", str(tmp / "bomb.db")], cwd=ROOT)
        row(f"zip bomb ({name}, {bomb.stat().st_size / 1e6:.1f} MB zip)",
            f"{m.seconds:.2f} s, peak RSS {m.max_rss_bytes / 2**20:.0f} MiB, exit {m.returncode}: "
            f"{last_line(m.stderr).replace(str(bomb), 'bomb.zip')[:120]}", "≤ 10 s, ≤ 1 GB, refused")


def bench_forge(tmp: Path) -> None:
    from PIL import Image

    src = TrajectoryStore(tmp / "src.db")
    run_id = src.create_run(target="forge", tester="offline")
    real = src.put_image(Image.new("RGB", (64, 48), (200, 20, 20)))
    src.add_step(run_id, 0, {"action": "{}", "outcome": "ok", "frame_after": real, "started_at": 0, "ended_at": 1})
    bundle = export_bundle(src, run_id, tmp / "real.zip")
    src.close()
    user = TrajectoryStore(tmp / "user.db")
    import_bundle(user, bundle)
    stored = user.frame(real)
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (250, 250, 0)).save(buf, format="PNG")
    forged, address = forged_bundle(bundle, tmp / "forged.zip", buf.getvalue())
    try:
        import_bundle(user, forged)
        outcome = "IMPORTED"
    except BundleError as exc:
        outcome = f"refused: {str(exc).split('(', 1)[1][:90]}"
    after = user.frame(address)
    untouched = after == stored and after is not None and image_digest(after.image()) == address
    user.close()
    row("frame-forging bundle", f"{outcome}; stored frame unchanged: {'yes' if untouched else 'NO'}",
        "refused, unchanged")


# -- databases -------------------------------------------------------------------------------------------
def _open(path: str, start_at: float, results: Any) -> None:
    try:
        while time.time() < start_at:
            pass
        store = TrajectoryStore(path)
        store.create_run(target="parallel", tester="offline")
        store.close()
        results.put("ok")
    except BaseException as exc:
        results.put(f"{type(exc).__name__}: {exc}")


def bench_opens(tmp: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    for shared in (False, True):
        folder = Path(tempfile.mkdtemp(dir=tmp))
        results = ctx.Queue()
        start_at = time.time() + 1.5
        procs = [ctx.Process(target=_open, args=(str(folder / ("one.db" if shared else f"{i}.db")), start_at,
                                                  results)) for i in range(60)]
        for p in procs:
            p.start()
        outcomes = [results.get(timeout=120) for _ in procs]
        for p in procs:
            p.join()
        bad = [o for o in outcomes if o != "ok"]
        what = "60 parallel first opens of one new database" if shared else "60 parallel first opens, 60 new databases"
        row(what, f"{len(bad)} failures" + (f" (first: {bad[0][:80]})" if bad else ""), "0")
    db = tmp / "five.db"
    cmd = [sys.executable, "-m", "app", "test", PROBE, "--max-steps", "2", "--json", "--db", str(db)]
    procs = [subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(5)]
    codes = [p.wait(300) for p in procs]
    for p in procs:
        p.communicate()
    row("5 parallel `playcoder test` on one new database", f"exit codes {codes}; runs: {states(db)}", "all 0")


# -- signals and faults mid-run ---------------------------------------------------------------------------
def harness(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    out = subprocess.run([sys.executable, HARNESS, *args], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env=env)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def bench_bench(tmp: Path) -> None:
    db = tmp / "bench.db"
    r = harness("--signal", "INT", "--to", "group", "--when-steps", str(db), "1", "--after", "0.5", "--",
                sys.executable, "-m", "app", "bench", "detect", "--jobs", "2", "--db", str(db))
    runs = states(db)
    row("Ctrl-C of `bench detect --jobs 2` (all apps)",
        f"exit {r['code']} after {r['seconds_to_exit']:.1f} s; traceback: {'yes' if r['traceback'] else 'no'}; "
        f"orphans: {len(r['orphans'])}; stderr: {' | '.join(r['stderr_lines'])[:60]}; runs started: "
        f"{len(runs.split(', '))} ({runs})", "≤ 15 s, exit 130, no traceback, 0 orphans")
    db = tmp / "bench9.db"
    r = harness("--signal", "KILL", "--to", "pid", "--when-steps", str(db), "1", "--", sys.executable, "-m", "app",
                "bench", "detect", "--jobs", "2", "--db", str(db))
    row("kill -9 of `bench detect --jobs 2`",
        f"{r['descendants_at_signal']} processes under it; orphans after: {len(r['orphans'])}; runs: {states(db)}",
        "0 orphans")


def bench_xvfb(tmp: Path) -> None:
    import psutil

    db = tmp / "xvfb.db"
    proc = subprocess.Popen([sys.executable, "-m", "app", "test", PROBE, "--max-steps", "200", "--db", str(db)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = False
    deadline = time.monotonic() + 90
    while not killed and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
        try:
            n = sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute("SELECT count(*) FROM steps").fetchone()[0]
        except sqlite3.Error:
            n = 0
        if n >= 2:
            for child in psutil.Process(proc.pid).children(recursive=True):
                if "Xvfb" in child.name():
                    child.kill()
                    killed = True
    _, err = proc.communicate(timeout=120)
    row("Xvfb killed mid-run", f"exit {proc.returncode}; line: {last_line(err)[:100]}; run row: {states(db)}",
        "one line, exit 2, closed")


def bench_disk(tmp: Path) -> None:
    disk = tmp / "disk"
    disk.mkdir()
    flags = ["-m"] if os.geteuid() == 0 else ["-r", "-m"]
    script = 'mount -t tmpfs -o size=400k tmpfs "$0" && exec "$@"'
    if shutil.which("unshare") is None or subprocess.run(["unshare", *flags, "sh", "-c", script, str(disk), "true"],
                                                         capture_output=True).returncode:
        row("disk full", "not measured (cannot mount a private tmpfs here)", "one line, exit 2, closed")
        return
    db = disk / "runs.db"
    inner = ("import subprocess, sqlite3, sys, json; "
             f"r = subprocess.run([sys.executable, '-m', 'app', 'test', {PROBE!r}, '--max-steps', '300', '--db', "
             f"{str(db)!r}], capture_output=True, text=True); "
             f"rows = sqlite3.connect({str(db)!r}).execute('SELECT status, steps FROM (SELECT status, "
             "(SELECT count(*) FROM steps) AS steps FROM runs)').fetchall(); "
             "print(json.dumps([r.returncode, r.stderr.strip().splitlines()[-1:], rows]))")
    out = subprocess.run(["unshare", *flags, "sh", "-c", script, str(disk), sys.executable, "-c", inner], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    code, line, rows = json.loads(out.stdout.strip().splitlines()[-1])
    said = (line or ["(none)"])[0].replace(str(disk), "…")
    row("disk full (400 KB tmpfs)", f"exit {code}; line: {said[:100]}; run row: "
        f"{', '.join(f'{s} after {n} steps' for s, n in rows)}", "one line, exit 2, closed")


def bench_llm(tmp: Path) -> None:
    db = tmp / "llm.db"
    env = dict(os.environ, PLAYCODER_LLM_TIMEOUT="3", PLAYCODER_API_KEY="local",
               PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring")
    with TricklingServer(interval_s=2.0) as server:
        url = server.base_url
        t0 = time.monotonic()
        out = subprocess.run([sys.executable, "-m", "app", "test", PROBE, "--tester", "llm", "--provider",
                              "compatible", "--model", "m", "--base-url", url, "--db", str(db)], cwd=ROOT,
                             capture_output=True, text=True, timeout=300, env=env)
        seconds = time.monotonic() - t0
    row("model server trickling 1 byte / 2 s, PLAYCODER_LLM_TIMEOUT=3",
        f"exit {out.returncode} after {seconds:.1f} s; line: "
        f"{last_line(out.stderr).replace(url, 'URL')[:160]}; run row: {states(db)}",
        "one line, exit 2, closed")


def bench_sigterm(tmp: Path) -> None:
    db = tmp / "term.db"
    r = harness("--signal", "TERM", "--to", "pid", "--when-steps", str(db), "2", "--", sys.executable, "-m", "app",
                "test", PROBE, "--max-steps", "500", "--db", str(db))
    row("one SIGTERM to `playcoder test`", f"exit {r['code']} after {r['seconds_to_exit']:.1f} s; stderr: "
        f"{' | '.join(r['stderr_lines'])}; orphans: {len(r['orphans'])}; run row: {states(db)}",
        "one line, exit 130, closed")


CASES = {"bomb": bench_bomb, "forge": bench_forge, "opens": bench_opens, "bench": bench_bench, "xvfb": bench_xvfb,
         "disk": bench_disk, "llm": bench_llm, "sigterm": bench_sigterm}
CASES.update(faults_channels.cases(row))  # hostile target folders and channel data
CASES.update(faults_contained.cases(row))  # issue 24: contained as root, every resource of a run bounded


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(CASES), help="comma-separated cases: " + ", ".join(CASES))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="playcoder-faults-") as tmp:
        for name in args.only.split(","):
            print(f"{name} …", file=sys.stderr, flush=True)
            folder = Path(tmp) / name
            folder.mkdir()
            CASES[name.strip()](folder)
    print("| case | measured | target |\n| --- | --- | --- |")
    for case, value, target in ROWS:
        print(f"| {case} | {value.replace('|', '/')} | {target} |")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.exit(main())
