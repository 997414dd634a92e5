"""The repair sandbox and tools with real processes: secrets, limits, confinement, atomic patches, templates."""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from app.engine.repair.checks import Gate
from app.engine.repair.mutations import Mutator
from app.engine.repair.patching import PatchError, apply_atomically, extract_edits, unified_diff
from app.engine.repair.sandbox import Executor, Limits, SandboxViolation, Workspace, network_prefix
from app.engine.repair.tools import ContextSearchTool, FileReadTool, UnitTestRunner, Validator

LOGIC = "def sub(a, b):\n    return b - a\n"
TESTS = "from logic import sub\n\n\ndef test_sub():\n    assert sub(9, 4) == 5\n\n\ndef test_zero():\n    assert sub(0, 0) == 0\n"


@pytest.fixture
def program(tmp_path: Path) -> Workspace:
    root = tmp_path / "prog"
    root.mkdir()
    (root / "logic.py").write_text(LOGIC)
    (root / "test_logic.py").write_text(TESTS)
    (root / "main.py").write_text("import logic\n\nif __name__ == '__main__':\n    print(logic.sub(1, 2))\n")
    return Workspace(root)


def run_py(ws: Workspace, code: str, **limits: object) -> object:
    return Executor(Limits(**limits)).run_in_copy(ws, [sys.executable, "-c", code])  # type: ignore[arg-type]


def test_child_gets_no_secrets_and_lives_in_its_copy(program, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-123456")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_abcdef")
    monkeypatch.setenv("MY_SERVICE_SECRET", "hush")
    monkeypatch.setenv("PLAYCODER_API_KEY", "pc-key")
    monkeypatch.setenv("DISPLAY", ":99")
    code = ("import json, os; print(json.dumps({'env': dict(os.environ), 'cwd': os.getcwd(), "
            "'copy': os.path.isfile('logic.py')}))")
    res = run_py(program, code)
    assert res.ok, res.stderr
    seen = json.loads(res.stdout)
    env = seen["env"]
    for name in ("OPENAI_API_KEY", "GITHUB_TOKEN", "MY_SERVICE_SECRET", "PLAYCODER_API_KEY", "DISPLAY"):
        assert name not in env
    assert "sk-live" not in res.stdout and "hush" not in res.stdout
    cwd = Path(seen["cwd"])
    assert cwd != program.root and seen["copy"], "commands run in a temporary copy"
    assert env["HOME"] != os.path.expanduser("~") and Path(env["HOME"]).is_relative_to(env["TMPDIR"])
    if res.confined:  # bubblewrap: HOME lives in the private, size-limited /tmp
        assert env["TMPDIR"] == "/tmp"
    assert not cwd.exists(), "the copy is deleted afterwards"


def test_looping_program_and_its_children_are_killed_on_timeout(program):
    code = ("import subprocess, sys\np = subprocess.Popen(['sleep', '60.4242'])\nprint(p.pid, flush=True)\n"
            "while True:\n    pass\n")
    t0 = time.monotonic()
    res = run_py(program, code, wall_s=2.0)
    assert res.timed_out and res.limit == "wall"
    assert time.monotonic() - t0 < 10
    assert res.stdout.split(), "the child was started"  # its PID is a namespace PID under bubblewrap
    left = [p for p in psutil.process_iter(["cmdline", "status"])
            if p.info["cmdline"] == ["sleep", "60.4242"] and p.info["status"] != psutil.STATUS_ZOMBIE]
    assert not left


def test_memory_hog_is_stopped_by_the_limit(program):
    res = run_py(program, "x = bytearray(3 * 1024 ** 3)\nprint('allocated')", memory_mb=256)
    assert not res.ok and res.limit == "memory"
    assert "allocated" not in res.stdout


def test_cpu_and_file_size_limits(program):
    res = run_py(program, "while True:\n    pass", cpu_s=1, wall_s=20.0)
    assert res.limit == "cpu" and not res.timed_out
    res = run_py(program, "open('big.bin', 'wb').write(b'x' * (5 * 1024 * 1024))", fsize_mb=1)
    assert res.limit == "fsize"


def test_no_network_when_the_os_allows_it(program):
    from app.engine.play.sandbox import bwrap_status

    if not bwrap_status()[0] and not network_prefix():
        pytest.skip("neither bwrap nor unshare -n is permitted here; the sandbox documents the fallback")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    threading.Thread(target=lambda: server.accept(), daemon=True).start()
    code = f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n    print('reached')\n" \
           "except OSError as e:\n    print('refused', e)"
    res = run_py(program, code)
    server.close()
    assert res.network_isolated and "refused" in res.stdout


def test_writes_outside_the_copy_are_refused(program, tmp_path):
    outside = tmp_path / "outside.txt"
    for bad in ("../outside.txt", str(outside), "sub/../../outside.txt"):
        with pytest.raises(SandboxViolation):
            program.write_text(bad, "pwned")
    (program.root / "link").symlink_to(tmp_path)
    with pytest.raises(SandboxViolation):
        program.write_text("link/outside.txt", "pwned")
    assert not outside.exists()
    program.write_text("sub/inside.txt", "ok")
    assert (program.root / "sub" / "inside.txt").read_text() == "ok"
    with pytest.raises(SandboxViolation):
        extract_edits("--- a/../outside.txt\n+++ b/../outside.txt\n@@ -0,0 +1 @@\n+x\n", program)
    with pytest.raises(SandboxViolation):
        FileReadTool(program).read("../outside.txt")


def test_tools_search_read_validate_and_test(program):
    hits = ContextSearchTool(program).search(r"return b - a")
    assert [(h.path, h.line) for h in hits] == [("logic.py", 2)]
    assert FileReadTool(program).read("logic.py", 2, 2) == "   2      return b - a"
    ex = Executor()
    report = UnitTestRunner(ex).run(program)
    assert report.ran and len(report.passed) == 1 and list(report.failed) == ["test_logic::test_sub"]
    assert Validator(ex).validate(program).ok
    program.write_text("logic.py", "def sub(a, b):\n    return b -\n")
    bad = Validator(ex).validate(program)
    assert not bad.ok and bad.first_failure().stage == "syntax" and "logic.py:2" in bad.text()
    program.write_text("logic.py", "import no_such_module_xyz\n")
    bad = Validator(ex).validate(program)
    assert bad.first_failure().stage == "import" and "no_such_module_xyz" in bad.text()


def test_atomic_application_is_all_or_nothing(program):
    ex = Executor()
    baseline = UnitTestRunner(ex).run(program)
    gate = Gate(Validator(ex), UnitTestRunner(ex), baseline, require_improvement=True)
    before = program.snapshot()
    broken = {"logic.py": "def sub(a, b):\n    return a - b\n", "main.py": "def broken(:\n"}
    applied, check = apply_atomically(program, broken, gate)
    assert applied is None and not check.ok and check.validation.first_failure().stage == "syntax"
    assert program.snapshot() == before, "nothing of a rejected patch lands"
    fix = extract_edits("logic.py\n<<<<<<< SEARCH\n    return b - a\n=======\n    return a - b\n>>>>>>> REPLACE\n",
                        program)
    applied, check = apply_atomically(program, fix, gate)
    assert applied is not None and check.ok and applied.files == ["logic.py"]
    assert "-    return b - a\n+    return a - b\n" in applied.diff
    assert program.read_text("logic.py").endswith("return a - b\n")
    assert not any(p.name.startswith(".prog.staging") for p in program.root.parent.iterdir())


def test_model_patch_formats_and_malformed_ones(program):
    diff = "```diff\n--- a/logic.py\n+++ b/logic.py\n@@ -1,9 +1,9 @@\n def sub(a, b):\n-    return b - a\n+    return a - b\n```"
    assert extract_edits(diff, program) == {"logic.py": "def sub(a, b):\n    return a - b\n"}
    with pytest.raises(PatchError, match="neither a unified diff nor SEARCH/REPLACE"):
        extract_edits("I think the bug is in sub().", program)
    with pytest.raises(PatchError, match="does not occur"):
        extract_edits("logic.py\n<<<<<<< SEARCH\nreturn 42\n=======\nreturn 0\n>>>>>>> REPLACE", program)
    with pytest.raises(PatchError, match="does not match"):
        extract_edits("--- a/logic.py\n+++ b/logic.py\n@@ -1,2 +1,2 @@\n-    return 7\n+    return 8\n", program)
    assert unified_diff({"a.py": "x = 1\n"}, {"a.py": "x = 2\n"}).startswith("--- a/a.py\n+++ b/a.py\n@@")


def test_templates_propose_the_classic_repairs():
    src = ("def f(items, i, a, b, done):\n    while not done:\n        x = 1\n    if a < b and done:\n"
           "        return items[i]\n    return a // b\n")
    m = Mutator("m.py", src)
    by = {t: [x.description.split(": ", 1)[1] for x in m.at_line(line, (t,))]
          for t, line in (("compare-flip", 4), ("boolop-flip", 4), ("index-modulo", 5), ("zero-guard", 6),
                          ("swap-operands", 6), ("while-to-if", 2), ("negate", 2))}
    assert "a < b -> a <= b" in by["compare-flip"]
    assert by["boolop-flip"] == ["a < b and done -> a < b or done"]
    assert by["index-modulo"] == ["items[i] -> items[i % len(items)]"]
    assert by["zero-guard"] == ["a // b -> (a // b if b else 0)"]
    assert by["swap-operands"] == ["a // b -> b // a"]
    assert by["while-to-if"] and by["negate"] == ["not done -> done"]
    for mutation in m.at_line(4, ("compare-flip", "boolop-flip", "negate", "delete")):
        compile(mutation.new_source, "m.py", "exec")
