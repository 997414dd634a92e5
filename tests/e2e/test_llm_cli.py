"""`playcoder test --tester llm` end to end: real SDKs, a local protocol server, a real Tk target under Xvfb.

Also the redaction contract: after such runs the API key appears nowhere —
not in the SQLite file, the target logs, the events stream, the CLI output or
an exported bundle.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from app.engine.run.session import RunConfig, Session
from app.engine.trace.store import TrajectoryStore
from suite import ROOT, TARGETS, needs_xvfb
from llm_servers import TEST_KEY, AnthropicServer, OpenAIServer, Reply, playbook

PROBE = str(TARGETS / "probe_tk")
ACTIONS = [
    '{"thought": "type a letter", "action": "press", "key": "a"}',
    '{"thought": "click the middle", "action": "click", "x": 200, "y": 150}',
    '{"thought": "confirm", "action": "press", "key": "enter"}',
    '{"thought": "every input was logged", "action": "finish", "verdict": "pass", "reason": "inputs work"}',
]


@pytest.fixture
def llm_env(tmp_path):
    prices = tmp_path / "prices.toml"
    prices.write_text('[models."gpt-test"]\ninput = 1.0\noutput = 2.0\n'
                      '[models."claude-test"]\ninput = 3.0\noutput = 15.0\n')
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PLAYCODER_PROVIDER", "PLAYCODER_MODEL",
                        "PLAYCODER_BASE_URL", "PLAYCODER_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")}
    env.update(PLAYCODER_PRICES=str(prices), PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring")
    return env


def playcoder(args, env, **kw):
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=180, **kw)


def test_without_a_key_the_run_ends_with_exit_2_and_one_sentence(llm_env, db_path):
    out = playcoder(["test", PROBE, "--tester", "llm", "--provider", "openai", "--json", "--db", str(db_path)],
                    llm_env)
    assert out.returncode == 2
    assert out.stderr.strip() == (
        "playcoder: The openai provider needs an API key: set OPENAI_API_KEY or save one in the workbench "
        "settings, or use --provider compatible --base-url URL for a local server.")
    assert "Traceback" not in out.stderr


def test_llm_options_need_the_llm_tester(llm_env, db_path):
    out = playcoder(["test", PROBE, "--model", "x", "--db", str(db_path)], llm_env)
    assert out.returncode == 2 and "apply only to --tester llm" in out.stderr


@needs_xvfb
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_end_to_end_run_records_calls_tokens_and_costs(llm_env, tmp_path, provider):
    server_cls, model = (OpenAIServer, "gpt-test") if provider == "openai" else (AnthropicServer, "claude-test")
    db = tmp_path / "runs.db"
    key_var = "OPENAI_API_KEY" if provider == "openai" else "ANTHROPIC_API_KEY"
    env = dict(llm_env, **{key_var: TEST_KEY})
    with server_cls() as server:
        server.responder = playbook(ACTIONS, usage=(321, 12))
        out = playcoder(["test", PROBE, "--tester", "llm", "--provider", provider, "--model", model,
                         "--base-url", server.base_url, "--json", "--max-steps", "4", "--db", str(db)], env)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert (summary["status"], summary["verdict"], summary["steps"]) == ("completed", "pass", 4)
    store = TrajectoryStore(db, readonly=True)
    run_id = summary["run_id"]
    calls = list(store.db.query("SELECT * FROM llm_calls WHERE run_id = ? ORDER BY id", [run_id]))
    assert [c["phase"] for c in calls] == ["gui_analysis", "strategy"] + ["action_decision"] * 4 + ["verdict"]
    assert all((c["tokens_in"], c["tokens_out"], c["tokens_estimated"]) == (321, 12, 0) for c in calls)
    assert all(c["cost"] == pytest.approx(store_cost(provider, 321, 12)) for c in calls)
    assert all(c["provider"] == provider and c["model"] == model and c["error"] is None for c in calls)
    for c in calls:
        for image in json.loads(c["request"]).get("messages", []):
            for part in image["content"] if isinstance(image["content"], list) else []:
                if part.get("type") == "image":
                    assert store.frame(part["image"]) is not None
    steps = store.steps(run_id)
    assert [s["tokens_in"] for s in steps] == [321] * 4
    assert steps[1]["action"] == {"action": "click", "x": 200, "y": 150} and steps[1]["rationale"] == "click the middle"
    logs = [row["text"] for row in store.logs(run_id)]
    assert "key a  'a'" in logs and "click 1 200 150" in logs
    store.close()


def store_cost(provider, tin, tout):
    price = (1.0, 2.0) if provider == "openai" else (3.0, 15.0)
    return (tin * price[0] + tout * price[1]) / 1e6


@needs_xvfb
def test_malformed_model_output_twice_ends_the_run_in_error(llm_env, tmp_path):
    db = tmp_path / "runs.db"
    with OpenAIServer() as server:
        base = playbook(ACTIONS)
        server.responder = lambda rec: Reply("I am not sure what to do.") if "Action decision" in rec.prompt() \
            else base(rec)
        out = playcoder(["test", PROBE, "--tester", "llm", "--provider", "openai", "--model", "gpt-test",
                         "--base-url", server.base_url, "--json", "--max-steps", "4", "--db", str(db)],
                        dict(llm_env, OPENAI_API_KEY=TEST_KEY))
    assert out.returncode == 2
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert (summary["status"], summary["verdict"], summary["steps"]) == ("error", "error", 0)
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("playcoder: The LLM tester stopped: the model gave no usable action at step 1")
    store = TrajectoryStore(db, readonly=True)
    (finding,) = store.findings(summary["run_id"])
    assert finding["kind"] == "error" and finding["step"] == 0
    store.close()


@needs_xvfb
def test_an_unreachable_server_ends_the_run_with_one_sentence(llm_env, tmp_path):
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
        out = playcoder(["test", PROBE, "--tester", "llm", "--provider", "compatible", "--model", "llava",
                         "--base-url", url, "--max-steps", "2", "--db", str(tmp_path / "r.db")], llm_env)
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("playcoder: The model call for gui analysis failed: the compatible provider at "
                           f"{url} could not be reached")
    assert line.endswith(f"start the server at {url} or fix --base-url.")


@needs_xvfb
def test_a_call_past_its_deadline_ends_the_run(monkeypatch, db_path):
    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    with OpenAIServer() as server:
        base = playbook(ACTIONS)
        server.responder = lambda rec: Reply("late", delay=3.0) if "Action decision" in rec.prompt() else base(rec)
        store = TrajectoryStore(db_path)
        options = {"provider": "openai", "model": "gpt-test", "base_url": server.base_url, "timeout": 1.0,
                   "retry_budget": 10, "retry_delay": 0.05}
        result = Session(RunConfig(PROBE, tester="llm", max_steps=3, tester_options=options), store).run()
        decisions = [r for r in server.requests if "Action decision" in r.prompt()]
    assert result.status == "error" and result.verdict == "error"
    assert "action decision at step 0 failed" in result.error and "did not answer within 1 s" in result.error
    assert len(decisions) == 1  # the timeout is the whole call's: no try is left after it
    rows = list(store.db.query("SELECT error FROM llm_calls WHERE phase = 'action_decision'"))
    assert len(rows) == len(decisions) and all("did not answer" in r["error"] for r in rows)
    assert store.run(result.run_id)["status"] == "error"
    store.close()


@needs_xvfb
def test_the_key_is_nowhere_after_runs(llm_env, tmp_path):
    db = tmp_path / "runs.db"
    env = dict(llm_env, OPENAI_API_KEY=TEST_KEY)
    outputs = []
    with OpenAIServer() as server:
        server.responder = playbook(ACTIONS)
        out = playcoder(["test", PROBE, "--tester", "llm", "--provider", "openai", "--model", "gpt-test",
                         "--base-url", server.base_url, "--json", "--max-steps", "4", "--db", str(db)], env)
        assert out.returncode == 0, out.stderr
        outputs += [out.stdout, out.stderr]
        # a failing call whose error body echoes the key, and the live events stream
        server.push(Reply(status=401, body={"error": {"message": f"Incorrect API key provided: {TEST_KEY}"}}))
        events_out, events_err = tmp_path / "events.out", tmp_path / "events.err"
        with open(events_out, "w") as so, open(events_err, "w") as se:
            proc = subprocess.Popen([sys.executable, "-m", "app", "test", PROBE, "--tester", "llm", "--provider",
                                     "openai", "--model", "gpt-test", "--base-url", server.base_url, "--events",
                                     "-", "--max-steps", "4", "--db", str(db)],
                                    cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=so, stderr=se)
            try:
                proc.wait(timeout=180)
            finally:
                proc.stdin.close()
        assert server.requests[-1].headers["authorization"] == f"Bearer {TEST_KEY}"  # it was really used
    events_text = events_out.read_text()
    assert '"event":"RunFinished"' in events_text and "HTTP 401" in events_text
    outputs += [events_text, events_err.read_text()]
    for text in outputs:
        assert TEST_KEY not in text
    written = [f for p in tmp_path.glob("runs.db*") for f in ([p] if p.is_file() else p.rglob("*"))]  # + films
    blobs = [f.read_bytes() for f in written if f.is_file()]
    assert blobs and all(TEST_KEY.encode() not in b for b in blobs)
    store = TrajectoryStore(db, readonly=True)
    runs = [r["id"] for r in store.runs()]
    assert len(runs) == 2
    for run_id in runs:
        assert all(TEST_KEY not in row["text"] for row in store.logs(run_id))
        assert TEST_KEY not in json.dumps(store.run(run_id))
    for bundle in exported_bundles(store, runs, tmp_path):
        assert TEST_KEY.encode() not in bundle
    store.close()


def exported_bundles(store, runs, tmp_path: Path) -> list[bytes]:
    """Every file of every exported bundle, uncompressed; nothing when the bundle module is absent."""
    try:
        from app.engine.trace.bundle import export_bundle
    except ImportError:
        return []
    blobs = []
    for run_id in runs:
        path = Path(export_bundle(store, run_id, tmp_path / f"run-{run_id}.playcoder"))
        data = path.read_bytes()
        blobs.append(data)
        if zipfile.is_zipfile(io.BytesIO(data)):
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                blobs += [zf.read(name) for name in zf.namelist()]
    return blobs


def test_llm_check_names_the_settings_but_never_the_key(llm_env):
    out = playcoder(["llm", "check", "--provider", "anthropic", "--model", "claude-test"],
                    dict(llm_env, ANTHROPIC_API_KEY=TEST_KEY))
    assert out.returncode == 0, out.stderr
    assert "provider: anthropic" in out.stdout and "from ANTHROPIC_API_KEY" in out.stdout
    assert "$3 in / $15 out" in out.stdout and TEST_KEY not in out.stdout
    out = playcoder(["llm", "check", "--provider", "compatible", "--model", "llava"], llm_env)
    assert out.returncode == 2
    assert out.stderr.strip().startswith("playcoder: The compatible provider needs a server address")
