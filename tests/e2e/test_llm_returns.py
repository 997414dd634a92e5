"""return_to(N) for the LLM tester: screens listed in the prompt, a restart asked of the session, the inputs
replayed without model calls, and the arrival told to the model (local protocol server; a real Tk program)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from types import SimpleNamespace

from app.engine.llm.client import LLMClient
from app.engine.play.actions import Press, Wait
from app.engine.play.control import RunControl
from app.engine.play.observer import Observation
from app.engine.play.targetspec import resolve_target
from app.engine.testers import base as tester_base
from app.engine.testers.llm import LLMTester
from app.engine.trace.store import TrajectoryStore
from suite import ROOT, TARGETS, needs_xvfb
from llm_servers import TEST_KEY, OpenAIServer, playbook, settings_for, synthetic_frame

SIZE = (480, 560)


def _obs(seed):
    return Observation(synthetic_frame(*SIZE, seed=seed), True, 0.0, None, 1)


def test_return_to_restarts_replays_and_tells_the_model(db_path):
    store = TrajectoryStore(db_path)
    replies = ['{"thought": "open it", "action": "press", "key": "a"}',
               '{"thought": "go on", "action": "press", "key": "b"}',
               '{"thought": "back to where a was pressed", "action": "return_to", "screen": 2}',
               '{"thought": "again", "action": "press", "key": "c"}']
    with OpenAIServer() as server:
        server.responder = playbook(replies)
        settings = settings_for(server, "openai", "gpt-test")
        tester = LLMTester(settings, LLMClient(settings))
        tester.attach(store, store.create_run(target="t", tester="llm"), RunControl())
        program = SimpleNamespace(inside=None)
        ctx = tester_base.TesterContext(resolve_target("calculator").spec, 0, 10, random.Random(0), SIZE)
        ctx.player = SimpleNamespace(target=program, lockstep=False, gate=None, frames=0)
        tester.begin(ctx, _obs(0))
        screens = [_obs(0), _obs(1), _obs(2)]  # start, after "a", after "b"
        decisions = []
        for step in range(3):
            d = tester.decide(step, screens[step])
            decisions.append(d)
            tester.observe(step, screens[step].frame, d, screens[min(step + 1, 2)], "ok")
        assert decisions[2].action == Wait(0.0) and "return_to(2)" in decisions[2].rationale
        assert tester.wants_restart()
        ctx.player = SimpleNamespace(target=SimpleNamespace(inside=None), lockstep=False, gate=None, frames=0)  # the session's restart
        tester.restarted(screens[0])
        assert not tester.wants_restart()
        calls = len(server.requests)
        replayed = tester.decide(3, screens[0])
        assert replayed.action == Press("a") and "input 1 of 1" in replayed.rationale
        assert len(server.requests) == calls  # no model call while replaying
        tester.observe(3, screens[0].frame, replayed, screens[1], "ok")
        after = tester.decide(4, screens[1])
        prompts = [r.prompt() for r in server.requests if "Action decision" in r.prompt()]
    store.close()
    assert after.action == Press("c")
    assert "screen 1: first seen before step 0, 0 inputs" in prompts[1]
    assert "screen 2: first seen before step 1, 1 inputs from the start, seen 1 times (the screen now)" in prompts[1]
    assert "You are back on screen 2" in prompts[-1]


def test_a_screen_not_on_offer_gets_a_reask(db_path):
    store = TrajectoryStore(db_path)
    with OpenAIServer() as server:
        server.responder = playbook(['{"action": "press", "key": "a"}', "return_to(7)",
                                     '{"action": "wait", "seconds": 1}'])
        settings = settings_for(server, "openai", "gpt-test")
        tester = LLMTester(settings, LLMClient(settings))
        tester.attach(store, store.create_run(target="t", tester="llm"), RunControl())
        ctx = tester_base.TesterContext(resolve_target("calculator").spec, 0, 10, random.Random(0), SIZE)
        tester.begin(ctx, _obs(0))
        first = tester.decide(0, _obs(0))
        tester.observe(0, _obs(0).frame, first, _obs(1), "ok")
        second = tester.decide(1, _obs(1))
        reask = server.requests[-1].prompt()
    store.close()
    assert isinstance(second.action, Wait) and not tester.wants_restart()
    assert "there is no screen 7 to return to (screens on offer: 1, 2)" in reask


@needs_xvfb
def test_a_real_program_is_restarted_for_a_return(tmp_path):
    replies = ['{"thought": "type", "action": "press", "key": "x"}',
               '{"thought": "back to the start", "action": "return_to", "screen": 1}',
               '{"thought": "done", "action": "finish", "verdict": "pass", "reason": "ok"}']
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env.update(OPENAI_API_KEY=TEST_KEY, PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring")
    db = tmp_path / "runs.db"
    with OpenAIServer() as server:
        server.responder = playbook(replies)
        out = subprocess.run([sys.executable, "-m", "app", "test", str(TARGETS / "probe_tk"), "--tester", "llm",
                              "--provider", "openai", "--model", "gpt-test", "--base-url", server.base_url,
                              "--max-steps", "5", "--json", "--db", str(db)],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
        prompts = [r.prompt() for r in server.requests if "Action decision" in r.prompt()]
    assert out.returncode == 0, out.stderr
    run_id = json.loads(out.stdout.strip().splitlines()[-1])["run_id"]
    store = TrajectoryStore(db, readonly=True)
    kinds = [f["kind"] for f in store.findings(run_id)]
    steps = store.steps(run_id)
    store.close()
    assert "restart" in kinds  # the session restarted the program for the return
    assert steps[1]["action"] == {"action": "wait", "seconds": 0.0}
    assert "screen 1: first seen before step 0" in prompts[1]
    assert "screen 1" in prompts[2] and ("You are back on screen 1" in prompts[2] or "did not reach" in prompts[2])
