"""The Test Manager's phases on synthetic frames: prompts, frames, re-asks, verdict rules."""

from __future__ import annotations

import json
import random
import threading

import pytest

from app.engine.play.actions import Click, Finish, Press
from app.engine.play.control import RunControl
from app.engine.errors import RunStopped
from app.engine.llm.client import LLMClient, LLMError
from app.engine.llm.pricing import PriceTable
from app.engine.play.observer import Observation
from app.engine.judge.oracles import Finding
from app.engine.trace.store import TrajectoryStore
from app.engine.play.targetspec import resolve_target
from app.engine.testers import make_tester
from app.engine.testers import base as tester_base
from app.engine.testers.base import Decision
from app.engine.testers.llm import LLMTester
from llm_servers import AnthropicServer, OpenAIServer, Reply, playbook, settings_for, synthetic_frame

PRICES = PriceTable({"gpt-test": (1.0, 2.0), "claude-test": (3.0, 15.0)})


@pytest.fixture
def store(db_path):
    s = TrajectoryStore(db_path)
    yield s
    s.close()


def make(server, store, provider="openai", control=None, **options):
    model = "gpt-test" if provider == "openai" else "claude-test"
    settings = settings_for(server, provider, model, **options)
    tester = LLMTester(settings, LLMClient(settings, prices=PRICES))
    run_id = store.create_run(target="t", tester="llm")
    tester.attach(store, run_id, control or RunControl())
    return tester, run_id


def begin(tester, app="tiles2048", size=(480, 560), max_steps=6):
    spec = resolve_target(app).spec
    first = synthetic_frame(*size, seed=0)
    tester.begin(tester_base.TesterContext(spec, 0, max_steps, random.Random(0), size), Observation(first, True, 0.0, None, 1))
    return Observation(first, True, 0.0, None, 1)


def play(tester, obs, steps, size=(480, 560)):
    decisions = []
    for step in range(steps):
        d = tester.decide(step, obs)
        decisions.append(d)
        if isinstance(d.action, Finish):
            break
        after = Observation(synthetic_frame(*size, seed=step + 1), True, 0.0, (100, 100, 140, 150), 2)
        tester.observe(step, obs.frame, d, after, "ok")
        obs = after
    return decisions


def phases(store, run_id):
    return [r["phase"] for r in store.db.query("SELECT phase FROM llm_calls WHERE run_id = ? ORDER BY id", [run_id])]


def test_goal_driven_game_run_end_to_end(store):
    with OpenAIServer() as server:
        server.responder = playbook([
            '{"thought": "start sliding", "action": "press", "key": "left"}',
            'Sure! {"thought": "tap the tile", "action": "click", "x": 219, "y": 256}',
            '{"thought": "seen enough", "action": "finish", "verdict": "pass", "reason": "tiles merge"}',
        ])
        tester, run_id = make(server, store)
        obs = begin(tester)
        decisions = play(tester, obs, 6)
        verdict = tester.verdict([], len(decisions))
    assert [d.action for d in decisions] == [Press("left"), Click(240, 280), Finish("pass", "tiles merge")]
    assert decisions[0].rationale == "start sliding" and decisions[0].tokens_in == 100
    # picture coordinates (438×512) mapped back to the 480×560 window
    assert phases(store, run_id) == (["gui_analysis", "strategy"] + ["action_decision"] * 3
                                     + ["criterion_judgment"] * 5 + ["verdict"])
    strategy_prompt = server.requests[1].prompt()
    assert "goal-driven" in strategy_prompt and "Slide tiles with the arrow keys" in strategy_prompt
    assert "[merge-doubles]" in strategy_prompt and "up, down, left, right" in strategy_prompt
    assert verdict.verdict == "pass" and set(verdict.criteria) == {
        "board-moves", "merge-doubles", "score-grows", "digits-readable", "restart"}
    assert verdict.criteria["restart"] == ("pass", "step 1: seen at step 0")  # the model names idx 0; people read step 1
    steps = [r["step"] for r in store.db.query("SELECT step FROM llm_calls WHERE phase = 'action_decision'")]
    assert steps == [0, 1, 2]


def test_coverage_driven_strategy_for_apps(store):
    with OpenAIServer() as server:
        server.responder = playbook(['{"action": "finish", "verdict": "pass", "reason": "ok"}'])
        tester, _ = make(server, store)
        begin(tester, "calculator", (320, 420))
    prompt = server.requests[1].prompt()
    assert "coverage-driven" in prompt and "control at least once" in prompt and "[correct-results]" in prompt


@pytest.mark.parametrize("provider, main, context", [("openai", (438, 512), (438, 512)),
                                                      ("anthropic", (480, 560), (329, 384))])
def test_each_decision_sees_the_last_three_frames_and_the_change(store, provider, main, context):
    server_cls = OpenAIServer if provider == "openai" else AnthropicServer
    with server_cls() as server:
        server.responder = playbook(['{"thought": "go", "action": "press", "key": "up"}'])
        tester, _ = make(server, store, provider)
        play(tester, begin(tester), 4)
    decisions = [r for r in server.requests if "Action decision" in r.prompt()]
    sizes = [[im.size for im in r.images()] for r in decisions]
    assert sizes[0] == [main]
    assert sizes[1] == [context, (56, 66), main]  # older frame, close-up of the change, newest
    assert sizes[3] == [context, context, (56, 66), main]  # never more than three frames
    last = decisions[3].prompt()
    assert "step 0: press(\"up\")" in last and "step 2: press(\"up\")" in last
    if provider == "openai":
        details = [p["image_url"]["detail"] for m in decisions[3].body["messages"] if isinstance(m["content"], list)
                   for p in m["content"] if p["type"] == "image_url"]
        assert details == ["low", "low", "low", "high"]


def test_malformed_reply_gets_one_reask(store):
    with OpenAIServer() as server:
        server.responder = playbook(["done"])
        tester, run_id = make(server, store)
        obs = begin(tester)
        server.push(Reply("I would click the big button.", usage=(50, 5)),
                    Reply('{"thought": "now properly", "action": "press", "key": "space"}', usage=(70, 9)))
        decision = tester.decide(0, obs)
    assert decision.action == Press("space")
    assert (decision.tokens_in, decision.tokens_out) == (120, 14)
    reask = server.requests[-1]
    assert reask.body["messages"][-2] == {"role": "assistant", "content": "I would click the big button."}
    assert "Your reply could not be used: no action found" in reask.prompt()
    assert phases(store, run_id)[-2:] == ["action_decision", "action_decision"]


def test_malformed_twice_ends_the_run_with_an_error_finding(store):
    with OpenAIServer() as server:
        server.responder = playbook(["done"])
        tester, run_id = make(server, store)
        obs = begin(tester)
        server.push("click the button please", '{"action": "teleport", "x": 1}')
        with pytest.raises(LLMError) as info:
            tester.decide(0, obs)
    assert info.value.kind == "malformed"
    assert "no usable action at step 1" in str(info.value) and "unknown action 'teleport'" in str(info.value)
    (finding,) = store.findings(run_id)
    assert finding["kind"] == "error" and finding["step"] == 0
    assert finding["evidence"]["replies"] == ["click the button please", '{"action": "teleport", "x": 1}']


def test_a_crash_fails_the_run_whatever_the_model_says(store):
    with OpenAIServer() as server:
        server.responder = playbook(['{"action": "press", "key": "left"}'], verdict="pass")
        tester, _ = make(server, store)
        play(tester, begin(tester), 2)
        crash = Finding("crash", "the program exited with code 1: ZeroDivisionError", 1, fatal=True)
        verdict = tester.verdict([crash], 2)
    assert verdict.verdict == "fail"
    assert verdict.reason.startswith("crash at step 2: the program exited with code 1")
    assert "the tester's overall judgment was pass" in verdict.reason
    prompt = [r for r in server.requests if "Criterion judgment" in r.prompt()][0].prompt()
    assert "[crash] the program exited with code 1" in prompt


def test_a_failed_criterion_fails_the_run(store):
    with OpenAIServer() as server:
        base = playbook(['{"action": "press", "key": "left"}'])

        def respond(rec):
            if "[score-grows]" in rec.prompt() and "Criterion judgment" in rec.prompt():
                return Reply(json.dumps({"verdict": "fail", "evidence_step": 1, "note": "score stayed 0"}))
            return base(rec)

        server.responder = respond
        tester, _ = make(server, store)
        play(tester, begin(tester), 2)
        verdict = tester.verdict([], 2)
    assert verdict.verdict == "fail"
    assert verdict.criteria["score-grows"] == ("fail", "step 2: score stayed 0")
    assert "criteria failed: score-grows (step 2: score stayed 0)" in verdict.reason


def test_judgment_failures_leave_criteria_uncertain_and_never_raise(store):
    with OpenAIServer() as server:
        base = playbook(['{"action": "finish", "verdict": "fail", "reason": "merges are wrong"}'])

        def respond(rec):
            if "Action decision" in rec.prompt() or "GUI analysis" in rec.prompt() or "Test strategy" in rec.prompt():
                return base(rec)
            return Reply(status=400, body={"error": {"message": "image too large"}})

        server.responder = respond
        tester, _ = make(server, store)
        play(tester, begin(tester), 2)
        verdict = tester.verdict([], 1)
    assert all(v == "uncertain" and "not judged" in note for v, note in verdict.criteria.values())
    assert verdict.verdict == "fail" and "merges are wrong" in verdict.reason  # the model's own finish


def test_no_model_calls_when_the_program_died_before_the_first_look(store):
    with OpenAIServer() as server:
        tester, run_id = make(server, store)
        tester.ctx = None
        verdict = tester.verdict([Finding("crash", "exited with code 1", None, fatal=True)], 0)
    assert verdict.verdict == "fail" and verdict.reason.startswith("crash at start")
    assert server.requests == [] and phases(store, run_id) == []


def test_stop_during_a_retry_wait_stops_the_decision(store):
    control = RunControl()
    with OpenAIServer() as server:
        server.responder = playbook(["x"])
        tester, _ = make(server, store, control=control)
        obs = begin(tester)
        server.responder = lambda rec: Reply(status=429, body={"error": {"message": "later"}},
                                             headers={"retry-after": "20"})
        timer = threading.Timer(0.3, control.stop)
        timer.start()
        with pytest.raises(RunStopped):
            tester.decide(0, obs)
        timer.join()


def test_human_take_over_is_in_the_history(store):
    with OpenAIServer() as server:
        server.responder = playbook(['{"action": "press", "key": "left"}'])
        tester, _ = make(server, store)
        obs = begin(tester)
        after = Observation(synthetic_frame(480, 560, seed=9), True, 0.0, None, 1)
        tester.observe(0, obs.frame, Decision(Click(240, 280), "human take-over"), after, "ok")
        tester.decide(1, after)
    prompt = server.requests[-1].prompt()
    assert "step 0 (by the human operator): click(219, 256) -> no visible change" in prompt


def test_make_tester_reports_a_missing_key(monkeypatch):
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PLAYCODER_PROVIDER", "PLAYCODER_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr("app.engine.llm.config.saved_key", lambda provider: None)
    from app.engine.errors import UserError

    with pytest.raises(UserError, match="The openai provider needs an API key"):
        make_tester("llm", {"provider": "openai"})


def test_judgments_get_one_reask_too_and_uncertain_overall_is_no_verdict(store):
    with OpenAIServer() as server:
        base = playbook(['{"action": "press", "key": "left"}'])
        judged = {"n": 0}

        def respond(rec):
            prompt = rec.prompt()
            if "Criterion judgment" in prompt:
                judged["n"] += 1
                if judged["n"] == 1:
                    return Reply("It looks fine to me.")
                return Reply('{"verdict": "pass", "evidence_step": 1, "note": "tiles slid"}')
            if "Overall verdict" in prompt:
                return Reply('{"verdict": "uncertain", "reason": "too few moves to tell"}')
            return base(rec)

        server.responder = respond
        tester, _ = make(server, store)
        play(tester, begin(tester), 2)
        verdict = tester.verdict([], 2)
    reask = [r for r in server.requests if "Your reply could not be used" in r.prompt()]
    assert len(reask) == 1 and '{"verdict": "uncertain", "evidence_step": null' in reask[0].prompt()
    assert verdict.criteria["board-moves"] == ("pass", "step 2: tiles slid")
    assert verdict.verdict == "uncertain" and "too few moves to tell" in verdict.reason
