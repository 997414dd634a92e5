"""The script and LLM testers play a web page as any other program (the offline and differential testers:
test_web_targets.py and the held-clock tests)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from llm_servers import TEST_KEY, OpenAIServer, playbook
from suite import ROOT, TARGETS, needs_xvfb

needs_chromium = pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
CASE = '''
[[criteria]]
id = "adds"
text = "Add one raises the count by one"

[[script]]
criterion = "adds"
steps = [{action = "click", x = 116, y = 190}, {action = "click", x = 116, y = 190}]
expect = [{after = 1, kind = "region_changed", region = [30, 30, 200, 120]},
          {after = 1, kind = "text", region = [30, 30, 200, 120], contains = "2"}]
'''


def counter_copy(tmp_path, name: str, *, step: int = 1):
    folder = tmp_path / name
    shutil.copytree(TARGETS / "web_counter", folder)
    (folder / "playcoder.toml").write_text((folder / "playcoder.toml").read_text() + CASE)
    if step != 1:
        js = folder / "counter.js"
        js.write_text(js.read_text().replace("count += 1; show(); });", f"count += {step}; show(); }});", 1))
    return folder


def verdict(args, tmp_path, env=None) -> dict:
    proc = subprocess.run([sys.executable, "-m", "app", "test", *args, "--json", "--db", str(tmp_path / "r.db")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@needs_xvfb
@needs_chromium
def test_the_script_tester_reads_a_pages_text(tmp_path):
    assert verdict([str(counter_copy(tmp_path, "right")), "--tester", "script"], tmp_path)["verdict"] == "pass"
    wrong = verdict([str(counter_copy(tmp_path, "wrong", step=2)), "--tester", "script"], tmp_path)
    assert wrong["verdict"] == "fail" and "adds" in wrong["reason"]


@needs_xvfb
@needs_chromium
def test_the_llm_tester_plays_a_page(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "PLAYCODER_"))}
    env.update(OPENAI_API_KEY=TEST_KEY, PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring")
    actions = ['{"thought": "add one", "action": "click", "x": 116, "y": 190}',
               '{"thought": "up adds too", "action": "press", "key": "up"}',
               '{"thought": "the count went up", "action": "finish", "verdict": "pass", "reason": "it counts"}']
    with OpenAIServer() as server:
        server.responder = playbook(actions)
        result = verdict([str(TARGETS / "web_counter"), "--tester", "llm", "--provider", "openai", "--model",
                          "gpt-test", "--base-url", server.base_url, "--max-steps", "3"], tmp_path, env)
    assert (result["status"], result["verdict"]) == ("completed", "pass"), result
    assert result["coverage"]["lines"] >= 6
