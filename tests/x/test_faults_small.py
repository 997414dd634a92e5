"""The smaller list of faults: each ends in one clear sentence or is handled, never "internal error".

Secrets filter in linear time and [env] values capped; deeply nested TOML;
``?token=`` in a base URL; ``playcoder runs`` and control characters; a
window off its screen (mss's XProtoError); a refused take-over; the desktop
entry installer and odd folder names; the file-size limit said as such.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine.errors import TargetError
from app.engine.judge.oracles import file_size_limit
from app.engine.play import sandbox
from app.engine.play.targetspec import MAX_ENV_VALUE_CHARS, load_spec
from app.engine.trace.store import TrajectoryStore

from suite import ROOT, TARGETS, needs_xvfb

CLI = [sys.executable, "-m", "app"]


def _one_sentence(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr and "internal error" not in stderr, stderr[-800:]
    return lines[0]


# -- secrets and [env] -----------------------------------------------------------------------
def test_the_secret_filter_is_linear_and_still_finds_credentials():
    big = "a" * 3_000_000  # the quadratic regex took minutes on this
    assert not sandbox.is_secret("DATA", big) and not sandbox.is_secret("DATA", "x://" + big)
    assert not sandbox.is_secret("DATA", "a://b" * 100_000)
    assert sandbox.is_secret("DB", "postgres://user:pw@db.example/x")
    assert sandbox.is_secret("DB", big + " https://tok@example.com/" + big)
    assert not sandbox.is_secret("HOME_PAGE", "https://example.com/a@b")


def test_a_huge_env_value_is_refused_in_one_sentence(tmp_path):
    (tmp_path / "playcoder.toml").write_text(
        f'name = "big"\ncommand = ["python", "main.py"]\n[env]\nBLOB = "{"x" * (MAX_ENV_VALUE_CHARS + 1)}"\n')
    with pytest.raises(TargetError, match=r"\[env\] 'BLOB' holds more than .* characters; pass large data in a file"):
        load_spec(tmp_path)


# -- TOML --------------------------------------------------------------------------------------
def test_deeply_nested_toml_is_one_sentence(tmp_path):
    (tmp_path / "playcoder.toml").write_text('name = "deep"\ncommand = ["python", "main.py"]\nx = '
                                             + "[" * 20000 + "]" * 20000 + "\n")
    with pytest.raises(TargetError, match="nested too deeply to read"):
        load_spec(tmp_path)
    proc = subprocess.run([*CLI, "test", str(tmp_path), "--db", str(tmp_path / "p.db")], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 2 and "nested too deeply" in _one_sentence(proc.stderr)


# -- base URLs -----------------------------------------------------------------------------------
def test_a_base_url_is_stored_without_credentials_query_or_fragment():
    from app.engine.run.settings import public_options as _public_options

    stored = _public_options({"base_url": "http://user:pw@llm.local:8080/v1?token=sekrit&x=1#frag",
                              "odd": "http://host:notaport/v1?token=sekrit", "max_tokens": 5})
    assert stored == {"base_url": "http://llm.local:8080/v1", "odd": "an unreadable address", "max_tokens": 5}


# -- playcoder runs -------------------------------------------------------------------------------
def test_runs_escapes_control_characters(tmp_path):
    db = tmp_path / "runs.db"
    store = TrajectoryStore(db)
    store.create_run(target="evil\nline\u202etxt.exe\x1b[2J", tester="offline")
    store.close()
    proc = subprocess.run([*CLI, "runs", "--db", str(db)], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    (line,) = proc.stdout.splitlines()
    assert "evil\\nline\\u202etxt.exe\\x1b[2J" in line and "\x1b" not in line and "\u202e" not in line


# -- X ----------------------------------------------------------------------------------------------
@needs_xvfb
def test_a_window_off_its_screen_is_said_not_an_internal_error():
    import mss

    from app.engine.play.display import start_xvfb
    from app.engine.run.faults import describe_fault

    xvfb = start_xvfb((320, 240))
    try:
        with mss.MSS(display=xvfb.name) as grabber:
            with pytest.raises(Exception) as caught:  # a region past the screen's edge: BadMatch
                grabber.grab({"left": 300, "top": 200, "width": 100, "height": 100})
        sentence = describe_fault(caught.value, xvfb)
    finally:
        xvfb.close()
    assert type(caught.value).__name__ == "XProtoError"
    assert sentence is not None and "could not be captured" in sentence and "playcoder.toml" in sentence


def _take_over(args: list[str], db: Path, acts: list[str], timeout: float) -> tuple[dict, list[dict], list[str]]:
    """Run ``playcoder test ARGS --events -`` with take-over ``acts`` on its stdin: the summary, the findings and
    each step's actor."""
    proc = subprocess.Popen([*CLI, "test", *args, "--events", "-", "--db", str(db), "--json"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.writelines(f"act {act}\n" for act in acts)
        proc.stdin.flush()
        lines = list(proc.stdout)  # stdin stays open: its end would stop the run
        proc.wait(timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    summary = json.loads(lines[-1])
    store = TrajectoryStore(db, readonly=True)
    try:
        return summary, store.findings(summary["run_id"]), [s["actor"] for s in store.steps(summary["run_id"])]
    finally:
        store.close()


@needs_xvfb
def test_a_refused_take_over_does_not_fail_the_program(tmp_path):
    summary, findings, _ = _take_over([str(TARGETS / "probe_tk"), "--max-steps", "4"], tmp_path / "take.db", [
        '{"action": "drag", "x": 5, "y": 5, "x2": -40, "y2": 9000}',
        '{"action": "drag", "x": 5, "y": 5, "x2": "far", "y2": 1}'], 60)
    assert summary["verdict"] == "pass", summary
    kinds = [f["kind"] for f in findings]
    assert kinds.count("refused") == 2 and "error" not in kinds


@needs_xvfb
def test_a_take_over_of_a_differential_run_is_refused_not_played_on_the_candidate_alone(tmp_path):
    """The references play only the tester's inputs: a person's click would reach the candidate alone and make
    every later comparison false, so the engine refuses it (the workbench does not offer it either)."""
    probe = str(TARGETS / "probe_tk")
    summary, findings, actors = _take_over([probe, "--tester", "differential", "--reference", probe, "--no-script",
                                            "--max-steps", "3"], tmp_path / "diff.db",
                                           ['{"action": "click", "x": 5, "y": 5}'], 120)
    refused = [f["message"] for f in findings if f["kind"] == "refused"]
    assert summary["verdict"] == "pass", summary
    assert len(refused) == 1 and "differential" in refused[0], refused
    assert "human" not in actors, actors


# -- the desktop entry ---------------------------------------------------------------------------------
def _exec_argv(line: str) -> list[str]:
    """An Exec= value read as the Desktop Entry spec says: string escapes, then quoting, then %%."""
    value, out, word, quoted, i = line[len("Exec="):].replace("\\\\", "\\"), [], "", False, 0
    while i < len(value):
        ch = value[i]
        if quoted and ch == "\\" and i + 1 < len(value) and value[i + 1] in '"`$\\':
            word, i = word + value[i + 1], i + 2
            continue
        if ch == '"':
            quoted = not quoted
        elif ch == " " and not quoted:
            out, word = out + [word], ""
        else:
            word += ch
        i += 1
    return [w.replace("%%", "%") for w in out + [word]]


def test_the_desktop_entry_takes_any_folder_name_and_keeps_a_users_own_link(tmp_path):
    bundle = tmp_path / 'my "apps" & $HOME | 100% \\x'
    bundle.mkdir()
    for name in ("bundle/install-desktop-entry.sh", "playcoder.desktop", "playcoder.svg"):
        shutil.copy(ROOT / "installer" / name, bundle)
    (bundle / "playcoder").write_text("#!/bin/sh\n")
    home = tmp_path / "home"
    env = {"HOME": str(home), "PATH": os.defpath}
    script = [str(bundle / "install-desktop-entry.sh")]
    run = subprocess.run(["sh", *script], env=env, capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    entry = home / ".local/share/applications/playcoder.desktop"
    exec_line = next(line for line in entry.read_text().splitlines() if line.startswith("Exec="))
    assert _exec_argv(exec_line) == [str(bundle / "playcoder"), "gui"]
    link = home / ".local/bin/playcoder"
    assert os.readlink(link) == str(bundle / "playcoder")
    again = subprocess.run(["sh", *script], env=env, capture_output=True, text=True, timeout=30)
    assert again.returncode == 0 and os.readlink(link) == str(bundle / "playcoder"), "our own link is renewed"
    link.unlink()
    link.write_text("#!/bin/sh\necho mine\n")
    kept = subprocess.run(["sh", *script], env=env, capture_output=True, text=True, timeout=30)
    assert kept.returncode == 0 and "kept your own" in kept.stdout
    assert link.read_text() == "#!/bin/sh\necho mine\n"


# -- the file-size limit ------------------------------------------------------------------------------
@pytest.mark.parametrize("program", ["python", "dd"])
def test_the_file_size_limit_is_said_as_such(tmp_path, program):
    folder = tmp_path / "prog"
    folder.mkdir()
    (folder / "main.py").write_text("with open('big.bin', 'wb') as fh:\n    fh.write(b'x' * (16 << 20))\n")
    argv = [sys.executable, "main.py"] if program == "python" else ["dd", "if=/dev/zero", "of=big.bin", "bs=1M",
                                                                     "count=16"]
    out = sandbox.run(argv, sandbox.Jail(folder, limits=sandbox.Limits(wall_s=30, fsize_mb=8)))
    assert out.returncode != 0
    sentence = file_size_limit(out.returncode, out.stderr.splitlines())
    assert sentence is not None and "file-size limit" in sentence and "not a crash" in sentence
    assert file_size_limit(1, ["ValueError: nope"]) is None


# -- a sparse file past the folder limit --------------------------------------------------------------
def test_a_large_sparse_file_is_refused_before_any_copy(tmp_path, monkeypatch):
    import tempfile

    from app.engine.play.targetspec import resolve_target

    folder = tmp_path / "sparse"
    folder.mkdir()
    (folder / "playcoder.toml").write_text('name = "sparse"\ncommand = ["python", "main.py"]\n')
    with open(folder / "data.bin", "wb") as fh:
        fh.truncate(2 << 30)  # 2 GB of holes: nothing on disk, 2 GB in a copy
    made: list[str] = []
    real = tempfile.TemporaryDirectory
    monkeypatch.setattr(tempfile, "TemporaryDirectory", lambda *a, **k: made.append("copy") or real(*a, **k))
    with pytest.raises(TargetError, match=f"holds more than {sandbox.MAX_FOLDER_MB} MB"):
        resolve_target(str(folder))
    assert made == [], "refused before the scratch copy"


def test_a_program_stopped_at_a_bound_is_uncertain_not_passed():
    from app.engine.judge.oracles import Finding
    from app.engine.judge.verdict import Evidence, decide

    sentence = file_size_limit(-25, [])
    assert sentence is not None
    verdict = decide(Evidence([Finding("limit", sentence, 3, {"code": -25}, fatal=True)], 3, judges_criteria=False))
    assert verdict.verdict == "uncertain" and verdict.reason.startswith("limit at step 4: the program was stopped")  # idx 3
