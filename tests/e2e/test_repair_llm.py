"""The LLM refiner and PlayDeveloper with the official openai SDK against a local chat-completions server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from app.engine.llm.client import LLMClient
from app.engine.repair.chat import LLMChatModel
from app.engine.repair.developer import DeveloperError, DevTask, PlayDeveloper
from app.engine.repair.diagnosis import Diagnosis, FindingEvidence
from app.engine.repair.llm_refiner import LLMRefiner
from app.engine.repair.records import cycles
from app.engine.repair.sandbox import Executor, Workspace
from app.engine.repair.tools import Validator
from app.engine.trace.store import TrajectoryStore

from suite import ROOT, TARGETS, needs_xvfb
from llm_servers import OpenAIServer, Recorded, Reply, settings_for

ANALYSIS = "The root cause is in calc_logic.apply(): for '-' it returns b - a, so 9 - 4 shows -5."
FIX = ("Here is the patch.\n\ncalc_logic.py\n<<<<<<< SEARCH\n        if op == \"-\":\n            return b - a\n"
       "=======\n        if op == \"-\":\n            return a - b\n>>>>>>> REPLACE\n")
TALLY_FIX = ("Here is the patch.\n\ntally_logic.py\n<<<<<<< SEARCH\n    if op == \"-\":\n        return b - a\n"
             "=======\n    if op == \"-\":\n        return a - b\n>>>>>>> REPLACE\n")
"""The end-to-end repairs play the tests' own tally (tests/targets/tally_tk), not a benchmark bug."""


def repair_responder(patch: str):
    def respond(rec: Recorded) -> Reply:
        if "Now write the patch" in rec.prompt():
            return Reply(patch, (900, 60))
        return Reply(ANALYSIS, (1200, 40))
    return respond


def test_refiner_phases_record_frames_by_hash(tmp_path):
    prog = tmp_path / "calc"
    (prog).mkdir()
    (prog / "calc_logic.py").write_text('def apply(op, a, b):\n    if op == "-":\n        return b - a\n')
    store = TrajectoryStore(tmp_path / "r.db")
    session = store.create_run(kind="repair", target="calc", tester="offline")
    sha = store.put_image(Image.new("RGB", (64, 48), (200, 30, 30)))
    diag = Diagnosis(7, "fail", "criteria failed: correct-results")
    diag.findings.append(FindingEvidence("crash", "the program exited with code 1", 3, sha, sha, {"type": "press"}))
    with OpenAIServer() as server:
        server.responder = repair_responder(FIX.replace("        if op", "    if op").replace("            return",
                                                                                               "        return"))
        model = LLMChatModel(LLMClient(settings_for(server, provider="compatible", model="fixer")))
        refiner = LLMRefiner(model)
        refiner.begin(store, session)
        proposal = refiner.propose(diag, Workspace(prog), 1, None)
        sent = server.requests
    assert not proposal.error, proposal.error
    assert proposal.edits == {"calc_logic.py": 'def apply(op, a, b):\n    if op == "-":\n        return a - b\n'}
    assert proposal.tokens == 1200 + 40 + 900 + 60 and proposal.analysis == ANALYSIS
    assert len(sent) == 2 and len(sent[0].images()) == 1, "the failing step's frame goes to the model"
    assert "return b - a" in sent[0].prompt() and "the program exited with code 1" in sent[0].prompt()
    calls = list(store.db.query("SELECT * FROM llm_calls WHERE run_id = ? ORDER BY id", [session]))
    assert [c["phase"] for c in calls] == ["repair_diagnosis", "repair_patch"]
    request = calls[0]["request"]
    assert sha in request and "base64" not in request, "recorded requests name frames by hash, never inline"
    assert json.loads(request)["model"] == "fixer" and calls[1]["tokens_out"] == 60
    store.close()


def test_developer_writes_a_validated_function(tmp_path):
    prog = tmp_path / "p"
    prog.mkdir()
    (prog / "logic.py").write_text("def other():\n    return 1\n\n\ndef double(x):\n    raise NotImplementedError\n")
    code = "```python\ndef double(x):\n    \"\"\"Twice x.\"\"\"\n    return 2 * x\n```"
    with OpenAIServer() as server:
        server.push(code, "```python\ndef double(y, z):\n    return y\n```", "no code at all")
        model = LLMChatModel(LLMClient(settings_for(server, provider="compatible", model="dev")))
        dev = PlayDeveloper(model, Validator(Executor()))
        task = DevTask(prog, "logic.py", "def double(x):", "Return twice the given number.")
        result = dev.develop(task)
        assert result.validation.ok and result.function == "double" and result.tokens == 120
        text = (prog / "logic.py").read_text()
        assert "return 2 * x" in text and "NotImplementedError" not in text and "def other" in text
        assert "Return twice the given number." in server.requests[0].prompt()
        with pytest.raises(DeveloperError, match="asks for double"):
            dev.develop(task)
        with pytest.raises(DeveloperError, match="no valid Python definition"):
            dev.develop(task)
    assert "return 2 * x" in (prog / "logic.py").read_text(), "failed attempts leave the file alone"


def run_repair(server: OpenAIServer, db: Path, *extra: str) -> tuple[int, dict, str]:
    cmd = [sys.executable, "-m", "app", "repair", f"{TARGETS / 'tally_tk'}@minus-flipped", "--refiner", "llm",
           "--provider", "compatible", "--model", "fixer", "--base-url", server.base_url, "--json", "--db", str(db),
           *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=400, cwd=ROOT)
    lines = proc.stdout.strip().splitlines()
    return proc.returncode, (json.loads(lines[-1]) if lines else {}), proc.stderr


@needs_xvfb
def test_llm_repair_applies_validates_and_retests_a_scripted_patch(db_path):
    with OpenAIServer() as server:
        server.responder = repair_responder(TALLY_FIX)
        code, summary, err = run_repair(server, db_path)
        prompts = [r.prompt() for r in server.requests]
    assert code == 0, err
    assert summary["fixed"] and len(summary["iterations"]) == 1, summary
    it = summary["iterations"][0]
    assert it["outcome"] == "fixed" and it["verdict"] == "pass" and it["retest_run"] in summary["runs"]
    assert "+        return a - b" in it["diff"] and "[tests] 6 passed, 0 failed" in it["validation"]
    assert it["tokens"] == 1200 + 40 + 900 + 60
    assert ANALYSIS in it["diagnosis"]
    assert "test_tally_logic" in prompts[0], "the unit-test failures are part of the diagnosis prompt"
    store = TrajectoryStore(db_path)
    assert [c["phase"] for c in store.db.query("SELECT phase FROM llm_calls WHERE run_id = ?",
                                                [summary["session_run"]])] == ["repair_diagnosis", "repair_patch"]
    store.close()


@needs_xvfb
def test_malformed_llm_patches_are_recorded_and_the_loop_ends_cleanly(db_path):
    with OpenAIServer() as server:
        server.responder = repair_responder("Sure! Just swap the operands and it will work.")
        code, summary, err = run_repair(server, db_path, "--max-iterations", "2")
    assert code == 1, err
    assert summary["fixed"] is False and summary["final_verdict"] == "fail"
    assert [i["outcome"] for i in summary["iterations"]] == ["no-patch", "no-patch"]
    for it in summary["iterations"]:
        assert "malformed patch from the model" in it["error"] and it["retest_run"] is None and not it["diff"]
    assert "Traceback" not in err
    store = TrajectoryStore(db_path)
    recs = cycles(store, summary["session_run"])
    assert [r.iteration for r in recs] == [1, 2] and all("neither a unified diff" in r.validation for r in recs)
    assert "iteration 1 produced no patch" in recs[1].diagnosis, "the next iteration is told what went wrong"
    assert store.run(summary["session_run"])["status"] == "completed"
    store.close()
