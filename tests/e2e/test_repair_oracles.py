"""The program's oracles are read-only to refiners.

A patch that touches a unit test, playcoder.toml, a reference picture or a
tests folder is refused and recorded as refused; "fixes N failing tests"
counts only tests that still exist, unchanged, and now pass.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine.repair.checks import Gate
from app.engine.repair.loop import PlayOutcome, RepairConfig, RepairLoop
from app.engine.repair.oracle_guard import OracleGuard
from app.engine.repair.patching import apply_atomically
from app.engine.repair.proposal import Proposal
from app.engine.repair.records import cycles
from app.engine.repair.sandbox import Executor, Workspace
from app.engine.repair.tools import UnitTestRunner, Validator
from app.engine.trace.store import TrajectoryStore

from suite import ROOT, TARGETS, needs_xvfb
from llm_servers import OpenAIServer, Recorded, Reply

LOGIC = "def sub(a, b):\n    return b - a\n"
TESTS = ("from logic import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n\n\n"
         "def test_same():\n    assert sub(4, 4) == 0\n")


@pytest.fixture
def program(tmp_path: Path) -> Workspace:
    root = tmp_path / "prog"
    (root / "refs").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "checks").mkdir()
    (root / "logic.py").write_text(LOGIC)
    (root / "test_logic.py").write_text(TESTS)
    (root / "tests" / "helper.py").write_text("X = 1\n")
    (root / "checks" / "sub_check.py").write_text("Y = 2\n")
    (root / "refs" / "shot.png").write_bytes(b"\x89PNG fake")
    (root / "playcoder.toml").write_text('name = "prog"\ncommand = ["python", "main.py"]\n'
                                         'unit_tests = ["test_*.py", "checks/*_check.py"]\n')
    return Workspace(root)


def test_the_guard_names_every_oracle(program):
    guard = OracleGuard.of(program)
    assert set(guard.fingerprint) == {"test_logic.py", "tests/helper.py", "checks/sub_check.py", "refs/shot.png",
                                      "playcoder.toml"}
    assert guard.refused(["logic.py", "test_logic.py", "refs/new.png", "sub/test_more.py", "tests/x.py",
                          "checks/other_check.py", "playcoder.toml"]) == [
        "checks/other_check.py", "playcoder.toml", "refs/new.png", "sub/test_more.py", "test_logic.py", "tests/x.py"]
    assert not guard.protects("logic.py") and guard.changes(program) == []
    program.write_text("test_logic.py", TESTS.replace("== 2", "== -2"))
    program.delete("refs/shot.png")
    program.write_text("test_extra.py", "def test_x():\n    pass\n")
    assert guard.changes(program) == ["refs/shot.png", "test_extra.py", "test_logic.py"]


def test_a_vanished_or_edited_failing_test_fixes_nothing(program):
    ex = Executor()
    runner = UnitTestRunner(ex)
    baseline = runner.run(program)
    assert list(baseline.failed) == ["test_logic::test_sub"] and baseline.passed == ["test_logic::test_same"]
    before = program.snapshot()
    # Without the guard the gate itself still refuses to count a test that disappeared.
    unguarded = Gate(Validator(ex), runner, baseline, require_improvement=True)
    gone = {"test_logic.py": TESTS[:TESTS.index("def test_sub")] + TESTS[TESTS.index("def test_same"):]}
    applied, check = apply_atomically(program, gone, unguarded)
    assert applied is None and "no longer run" in check.reason and "test_logic::test_sub" in check.reason
    emptied = {"test_logic.py": ""}
    applied, check = apply_atomically(program, emptied, Gate(Validator(ex), runner, baseline))
    assert applied is None and "no longer run" in check.reason
    # With the guard an edited test is refused before anything runs.
    guarded = Gate(Validator(ex), runner, baseline, guard=OracleGuard.of(program))
    edited = {"test_logic.py": TESTS.replace("== 2", "== -2")}
    applied, check = apply_atomically(program, edited, guarded)
    assert applied is None and check.tests is None and "changes test_logic.py" in check.reason
    assert program.snapshot() == before
    applied, check = apply_atomically(program, {"logic.py": LOGIC.replace("b - a", "a - b")}, guarded)
    assert applied is not None and check.reason == "fixes 1 of 1 failing unit test(s); all unit tests pass"


class ScriptedRefiner:
    """A refiner that proposes the given edits, one per iteration (what a model would answer)."""

    name = "scripted"

    def __init__(self, *edits: dict[str, str]) -> None:
        self.edits = list(edits)
        self.told: list[str] = []

    def begin(self, store: TrajectoryStore, session_run: int) -> None:
        pass

    def propose(self, diag, workspace, iteration, baseline) -> Proposal:
        return Proposal(self.edits.pop(0), f"scripted patch {iteration}")

    def rejected(self, proposal: Proposal, why: str) -> None:
        self.told.append(why)


def test_the_loop_refuses_and_records_a_patch_to_the_oracles(program, tmp_path, monkeypatch):
    def play(self: RepairLoop) -> PlayOutcome:
        return PlayOutcome([], "pass", "offline: pass — no generic defect seen")

    monkeypatch.setattr(RepairLoop, "play", play)
    ex = Executor()
    refiner = ScriptedRefiner({"test_logic.py": "def test_sub():\n    pass\n"},
                              {"logic.py": LOGIC.replace("b - a", "a - b"), "playcoder.toml": "name = 'x'\n"})
    store = TrajectoryStore(tmp_path / "r.db")
    loop = RepairLoop(store, program, refiner, Validator(ex), UnitTestRunner(ex),
                      RepairConfig(target="prog@flipped", max_iterations=2))
    result = loop.run()
    recs = cycles(store, result.session_run)
    store.close()
    assert not result.fixed and result.final_verdict == "fail"
    assert [c.outcome for c in result.cycles] == ["refused", "refused"] == [r.outcome for r in recs]
    assert "the patch touches test_logic.py" in recs[0].error and "playcoder.toml" in recs[1].error
    assert "-    assert sub(5, 3) == 2" in recs[0].diff, "the refused patch is kept for the record"
    assert "the patch was refused" in recs[1].diagnosis and len(refiner.told) == 2
    assert program.read_text("test_logic.py") == TESTS and program.read_text("logic.py") == LOGIC


# -- end to end: the LLM refiner through the CLI ---------------------------------------------------------
TALLY = TARGETS / "tally_tk"
"""The tests' own tally and its flipped subtraction: no benchmark bug is pinned."""
TEST_FILE = "test_tally_logic.py"
_TEST_LINES = (TALLY / TEST_FILE).read_text().splitlines()
DELETE_TEST_FILE = (f"--- a/{TEST_FILE}\n+++ /dev/null\n@@ -1,{len(_TEST_LINES)} +0,0 @@\n"
                    + "".join(f"-{line}\n" for line in _TEST_LINES))
EDIT_THE_TEST = (f"{TEST_FILE}\n<<<<<<< SEARCH\n    assert combine(\"-\", 9, 3) == 6\n"
                 "=======\n    assert combine(\"-\", 9, 3) == -6\n>>>>>>> REPLACE\n")


@needs_xvfb
def test_an_llm_fix_that_deletes_or_edits_the_failing_test_is_refused(tmp_path):
    patches = [DELETE_TEST_FILE, EDIT_THE_TEST]

    def respond(rec: Recorded) -> Reply:
        if "Now write the patch" in rec.prompt():
            return Reply(f"```diff\n{patches.pop(0)}```" if patches[0].startswith("---") else patches.pop(0))
        return Reply("The failing test expects 9 - 3 = 6; the test is what is wrong.")

    with OpenAIServer() as server:
        server.responder = respond
        proc = subprocess.run(
            [sys.executable, "-m", "app", "repair", f"{TALLY}@minus-flipped", "--refiner", "llm",
             "--provider", "compatible", "--model", "fixer", "--base-url", server.base_url, "--max-iterations", "2",
             "--max-steps", "6", "--json", "--db", str(tmp_path / "r.db"), "--out", str(tmp_path / "out")],
            capture_output=True, text=True, timeout=280, cwd=ROOT)
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert proc.returncode == 1 and summary["fixed"] is False, (summary, proc.stderr[-2000:])
    its = summary["iterations"]
    assert [i["outcome"] for i in its] == ["refused", "refused"], its
    assert all(f"the patch touches {TEST_FILE}" in i["error"] and i["retest_run"] is None for i in its)
    assert (tmp_path / "out" / TEST_FILE).read_text() == (TALLY / TEST_FILE).read_text()
    assert "return b - a" in (tmp_path / "out" / "tally_logic.py").read_text()


def test_play_developer_does_not_write_the_oracles(program):
    from app.engine.repair.developer import DeveloperError, DevTask, PlayDeveloper

    class NoModel:
        def complete(self, turns, *, system="", phase="repair"):
            raise AssertionError("the model must not be asked")

    dev = PlayDeveloper(NoModel(), Validator(Executor()))
    with pytest.raises(DeveloperError, match="one of the program's oracles"):
        dev.develop(DevTask(program.root, "test_logic.py", "def test_sub():", "Make the test pass."))
    assert program.read_text("test_logic.py") == TESTS
