"""Databases a user can break: many first opens at once, read-only, foreign, damaged, a full disk, wild arguments.

Each ends in one sentence and exit code 2, never a traceback or "internal error";
a run that cannot write any more is still closed.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.engine.run.session import RunConfig, Session
from app.engine.trace.store import TrajectoryStore

ROOT = Path(__file__).resolve().parents[2]
PROBE = str(ROOT / "tests" / "targets" / "probe_tk")
needs_xvfb = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb is not installed")
PARALLEL_OPENS = 60


def playcoder(*args: str, db: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PLAYCODER_DB=str(db)) if db else None
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=env)


def one_line(out: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert out.returncode == 2, (out.returncode, out.stderr[-2000:])
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr + out.stdout, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("playcoder: "), out.stderr
    sentence = lines[0].removeprefix("playcoder: ")
    assert sentence.endswith(".") and not re.search(r"[.!?]\s+[A-Z]", sentence), sentence
    for needle in needles:
        assert needle in sentence, sentence
    return sentence


# -- many first opens at once ------------------------------------------------------------------
def _open_and_write(path: str, start_at: float, results: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    try:
        while time.time() < start_at:
            pass
        store = TrajectoryStore(path)
        store.create_run(target="parallel", tester="offline")
        store.close()
        results.put("ok")
    except BaseException as exc:  # reported, not raised: the parent counts failures
        results.put(f"{type(exc).__name__}: {exc}")


@pytest.mark.parametrize("shared", [False, True], ids=["new-files", "one-new-file"])
def test_sixty_parallel_first_opens_never_fail(shared: bool, tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    start_at = time.time() + 1.5
    procs = [ctx.Process(target=_open_and_write,
                         args=(str(tmp_path / ("one.db" if shared else f"db{i}.db")), start_at, results))
             for i in range(PARALLEL_OPENS)]
    for p in procs:
        p.start()
    outcomes = [results.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(30)
    failures = [o for o in outcomes if o != "ok"]
    assert failures == [], failures[:3]
    if shared:
        store = TrajectoryStore(tmp_path / "one.db", readonly=True)
        assert len(store.runs()) == PARALLEL_OPENS
        store.close()


@needs_xvfb
def test_five_parallel_runs_on_one_new_database(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    cmd = [sys.executable, "-m", "app", "test", PROBE, "--max-steps", "2", "--json", "--db", str(db)]
    procs = [subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(5)]
    outs = [p.communicate(timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [0] * 5, [o[1][-500:] for o in outs]
    store = TrajectoryStore(db, readonly=True)
    assert sorted(r["status"] for r in store.runs()) == ["completed"] * 5
    store.close()


# -- read-only -------------------------------------------------------------------------------------
def _readonly_prefix(path: Path) -> list[str]:
    """Run a command with ``path`` read-only: chmod for a normal user; a private read-only mount for root."""
    if os.geteuid() != 0:
        path.chmod(0o555 if path.is_dir() else 0o444)
        return []
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode:
        pytest.skip("root cannot make a file read-only here (no unshare)")
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
    return ["unshare", "-m", "sh", "-c", script, str(path)]


def _run(prefix: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*prefix, sys.executable, "-m", "app", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_a_read_only_database_file_is_read_and_refuses_writes_in_one_sentence(tmp_path: Path) -> None:
    db = tmp_path / "ro.db"
    store = TrajectoryStore(db)
    store.finish_run(store.create_run(target="t", tester="offline"), status="completed", verdict="pass")
    store.close()
    prefix = _readonly_prefix(db)
    listed = _run(prefix, "runs", "--db", str(db))
    assert listed.returncode == 0 and "completed" in listed.stdout, listed.stderr
    one_line(_run(prefix, "test", PROBE, "--db", str(db)), "read-only", str(db))


@pytest.mark.parametrize("which", ["existing", "new", "new-subfolder"])
def test_a_read_only_folder_is_one_sentence(which: str, tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    db = {"existing": folder / "old.db", "new": folder / "new.db", "new-subfolder": folder / "sub" / "new.db"}[which]
    if which == "existing":
        TrajectoryStore(db).close()
    prefix = _readonly_prefix(folder)
    for args in (("runs", "--db", str(db)), ("test", PROBE, "--db", str(db))):
        one_line(_run(prefix, *args), str(db.parent) if which == "new-subfolder" else str(db))


# -- another program's file, a damaged file ------------------------------------------------------------
@pytest.mark.parametrize("user_version", [0, 2, 7])
def test_another_programs_database_is_one_sentence_for_every_command(user_version: int, tmp_path: Path) -> None:
    db = tmp_path / "notes.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute(f"PRAGMA user_version = {user_version}")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    for args in (["runs"], ["runs", "--json"], ["test", PROBE], ["export", "1", "-o", str(tmp_path / "x.zip")],
                 ["import", str(tmp_path / "nothing.zip")]):
        one_line(playcoder(*args, "--db", str(db)), "not a PlayCoder database", str(db))
    assert db.read_bytes() == before


def test_a_damaged_database_is_one_sentence(tmp_path: Path) -> None:
    db = tmp_path / "big.db"
    store = TrajectoryStore(db)
    for i in range(200):
        run_id = store.create_run(target="t" * 200, tester="offline")
        store.add_logs(run_id, [("stdout", 1.0, "x" * 300)] * 10)
    store.close()
    data = bytearray(db.read_bytes())
    quarter = len(data) // 4 // 4096 * 4096
    data[2 * quarter:3 * quarter] = b"\xde\xad\xbe\xef" * (quarter // 4)  # garbage in the middle pages
    db.write_bytes(bytes(data))
    for args in (["runs"], ["runs", "--json"]):
        one_line(playcoder(*args, "--db", str(db)), "is damaged", "restore a backup")


# -- a full disk ---------------------------------------------------------------------------------------------
@needs_xvfb
def test_a_full_database_ends_the_run_as_error_and_closes_it(tmp_path: Path) -> None:
    """A database that cannot grow (``max_page_count``, as a full disk): the run is closed, not left running."""
    store = TrajectoryStore(tmp_path / "full.db")
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count = {pages + 12}")
    result = Session(RunConfig(PROBE, max_steps=40), store).run()
    assert result.status == "error" and "full" in result.error and "internal error" not in result.error
    assert result.steps < 40
    row = store.run(result.run_id)
    assert row["status"] == "error" and row["ended_at"] is not None and "full" in row["error"]
    store.close()


def _tmpfs_prefix(mountpoint: Path, size: str) -> list[str]:
    if shutil.which("unshare") is None:
        pytest.skip("no unshare to mount a small private file system")
    flags = ["-m"] if os.geteuid() == 0 else ["-r", "-m"]
    script = f'mount -t tmpfs -o size={size} tmpfs "$0" && exec "$@"'
    probe = subprocess.run(["unshare", *flags, "sh", "-c", script, str(mountpoint), "true"], capture_output=True)
    if probe.returncode:
        pytest.skip("cannot mount a small private file system here")
    return ["unshare", *flags, "sh", "-c", script, str(mountpoint)]


@needs_xvfb
def test_a_full_disk_ends_the_cli_run_with_one_line_and_a_closed_row(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    prefix = _tmpfs_prefix(disk, "400k")
    db = disk / "runs.db"
    check = f"import sqlite3; print(sqlite3.connect('{db}').execute('SELECT status FROM runs').fetchall())"
    script_args = [sys.executable, "-c",
                   "import subprocess, sys; "
                   f"r = subprocess.run([sys.executable, '-m', 'app', 'test', {PROBE!r}, '--max-steps', '200', "
                   f"'--db', {str(db)!r}], capture_output=True, text=True); "
                   "print(r.returncode); print(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ''); "
                   f"exec({check!r})"]
    out = subprocess.run([*prefix, *script_args], cwd=ROOT, capture_output=True, text=True, timeout=180)
    code, line, rows = out.stdout.strip().splitlines()[-3:]
    assert code == "2" and line.startswith("playcoder: the disk holding") and "full" in line, out.stdout
    assert rows == "[('error',)]", out.stdout


# -- wild arguments -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("args, needle", [
    (["test", PROBE, "--max-steps", str(10**23)], "--max-steps"),
    (["test", PROBE, "--seed", str(10**23)], "from 0 to 4294967295"),
    (["export", str(10**23), "-o", "x.zip"], "from 1 to"),
    (["bench", "detect", "--jobs", "0"], "from 1 to 256"),
])
def test_numbers_out_of_range_are_refused_with_the_range(args: list[str], needle: str, tmp_path: Path) -> None:
    out = playcoder(*args, "--db", str(tmp_path / "x.db"))
    assert out.returncode == 2 and "Traceback" not in out.stderr and needle in out.stderr, out.stderr


def test_a_closed_pipe_is_not_a_traceback(tmp_path: Path) -> None:
    db = tmp_path / "many.db"
    store = TrajectoryStore(db)
    with store.transaction():
        store.conn.executemany("INSERT INTO runs (target, tester, started_at) VALUES (?, 'offline', 0)",
                               [(f"target-{i}",) for i in range(5000)])
    store.close()
    proc = subprocess.Popen([sys.executable, "-m", "app", "runs", "--db", str(db)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.read(10)
    proc.stdout.close()  # like `| head`
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and b"Traceback" not in err, err.decode()[-1000:]
    json.dumps(None)
