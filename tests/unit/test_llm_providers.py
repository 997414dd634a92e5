"""The real openai and anthropic SDKs against local servers speaking their wire protocols."""

from __future__ import annotations

import json
import socket
import time

import pytest

from app.engine.llm.client import LLMClient, LLMError
from app.engine.llm.config import resolve_settings
from app.engine.llm.messages import ChatRequest, Message
from app.engine.llm.pricing import PriceTable
from app.engine.llm.shots import Shot
from app.engine.trace.store import TrajectoryStore, frame_digest
from llm_servers import TEST_KEY, AnthropicServer, OpenAIServer, Reply, settings_for, synthetic_frame

PRICES = PriceTable({"gpt-test": (1.0, 2.0), "claude-test": (3.0, 15.0)})
SERVERS = {"openai": (OpenAIServer, "gpt-test"), "anthropic": (AnthropicServer, "claude-test")}


@pytest.fixture
def store(db_path):
    s = TrajectoryStore(db_path)
    yield s
    s.close()


def client_for(server, provider, store, **options):
    settings = settings_for(server, provider, SERVERS[provider][1], **options)
    client = LLMClient(settings, prices=PRICES)
    run_id = store.create_run(target="t", tester="llm")
    client.attach(store, run_id, None)
    return client, run_id


def screenshot_request(client, frame):
    main = Shot(frame, 0).main(client.provider.rules, "auto")
    return ChatRequest("system text", [Message.user("What do you see?", main)], 100), main


def calls(store, run_id):
    return list(store.db.query("SELECT * FROM llm_calls WHERE run_id = ? ORDER BY id", [run_id]))


@pytest.mark.parametrize("provider, sent_size", [("openai", (438, 512)), ("anthropic", (480, 560))])
def test_image_and_exact_usage_are_recorded(store, provider, sent_size):
    with SERVERS[provider][0]() as server:
        server.push(Reply("a board of tiles", usage=(1234, 56)))
        client, run_id = client_for(server, provider, store)
        frame = synthetic_frame(480, 560)
        request, main = screenshot_request(client, frame)
        result = client.ask("gui_analysis", None, request)
    assert (result.text, result.tokens_in, result.tokens_out, result.estimated) == ("a board of tiles", 1234, 56, False)
    received = server.requests[0]
    assert received.headers.get("authorization") == f"Bearer {TEST_KEY}" or received.headers.get("x-api-key") == TEST_KEY
    assert [im.size for im in received.images()] == [sent_size]
    if provider == "openai":
        part = received.body["messages"][1]["content"][1]
        assert part["image_url"]["detail"] == "high"
    else:
        assert received.body["system"] == "system text"
    (row,) = calls(store, run_id)
    assert (row["phase"], row["provider"], row["model"]) == ("gui_analysis", provider, SERVERS[provider][1])
    assert (row["tokens_in"], row["tokens_out"], row["tokens_estimated"], row["error"]) == (1234, 56, 0, None)
    assert row["cost"] == pytest.approx(PRICES.cost(SERVERS[provider][1], 1234, 56))
    assert row["response"] == "a board of tiles" and row["latency_ms"] > 0
    recorded = json.loads(row["request"])
    assert "base64" not in row["request"] and "data:image" not in row["request"]
    images = [p for m in recorded["messages"] if isinstance(m["content"], list) for p in m["content"]
              if "image" in p and isinstance(p["image"], str)]
    assert [p["image"] for p in images] == [main.sha256]
    stored = store.frame(main.sha256)
    assert (stored.width, stored.height) == sent_size
    if sent_size == (480, 560):  # unscaled: the same content address as the step's frame
        assert main.sha256 == frame_digest(480, 560, frame.bgrx)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_missing_usage_is_estimated_and_flagged(store, provider):
    with SERVERS[provider][0]() as server:
        server.push(Reply("x" * 40, usage=None))
        client, run_id = client_for(server, provider, store)
        request, main = screenshot_request(client, synthetic_frame(480, 560))
        result = client.ask("gui_analysis", None, request)
    image_tokens = client.provider.rules.tokens(main.size, main.detail)
    text_tokens = -(-request.text_chars() // 4)
    assert result.estimated and result.tokens_out == 10
    assert result.tokens_in == image_tokens + text_tokens
    (row,) = calls(store, run_id)
    assert row["tokens_estimated"] == 1 and row["tokens_in"] == result.tokens_in


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_rate_limit_then_success_is_retried(store, provider):
    with SERVERS[provider][0]() as server:
        server.push(Reply(status=429, body={"error": {"type": "rate_limit_error", "message": "slow down"}},
                          headers={"retry-after": "0"}),
                    Reply(status=503, body={"error": {"message": "overloaded"}}, headers={"retry-after": "0"}),
                    Reply("fine", usage=(10, 2)))
        client, run_id = client_for(server, provider, store, retry_delay=0)
        result = client.ask("strategy", None, ChatRequest("", [Message.user("plan")], 50))
    assert result.text == "fine" and len(server.requests) == 3
    rows = calls(store, run_id)
    assert [r["error"] is None for r in rows] == [False, False, True]
    assert "HTTP 429" in rows[0]["error"] and "slow down" in rows[0]["error"]
    assert "HTTP 503" in rows[1]["error"] and rows[2]["tokens_in"] == 10


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_invalid_json_body_is_a_clear_error(store, provider):
    with SERVERS[provider][0]() as server:
        server.push(Reply(status=200, body=b"<html>not json{"))
        client, run_id = client_for(server, provider, store)
        with pytest.raises(LLMError) as info:
            client.ask("strategy", None, ChatRequest("", [Message.user("plan")], 50))
    assert info.value.kind == "invalid-response" and len(server.requests) == 1
    message = str(info.value)
    assert message.startswith("The model call for strategy failed: ") and "not a valid" in message
    assert "check that --provider matches the server at --base-url" in message and message.endswith(".")
    assert "\n" not in message
    (row,) = calls(store, run_id)
    assert row["error"] and row["response"] is None


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_timeout_bounds_the_whole_call(store, provider):
    """PLAYCODER_LLM_TIMEOUT is the call's deadline, retries and waits included: a silent server ends it there."""
    with SERVERS[provider][0]() as server:
        server.responder = lambda rec: Reply("late", delay=3.0)
        client, run_id = client_for(server, provider, store, timeout=0.6, retry_budget=10.0, retry_delay=0.05)
        t0 = time.monotonic()
        with pytest.raises(LLMError) as info:
            client.ask("action_decision", 2, ChatRequest("", [Message.user("act")], 50))
        elapsed = time.monotonic() - t0
    assert info.value.kind == "timeout"
    assert len(server.requests) == 1 and 0.5 < elapsed < 1.6
    message = str(info.value)
    assert "action decision at step 2" in message and "did not answer within 0.6 s" in message
    assert len(calls(store, run_id)) == len(server.requests)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_failures_are_retried_within_the_deadline(store, provider):
    with SERVERS[provider][0]() as server:
        server.responder = lambda rec: Reply(status=503, body={"error": {"message": "busy"}}, delay=0.2)
        client, run_id = client_for(server, provider, store, timeout=1.0, retry_budget=10.0, retry_delay=0.05)
        t0 = time.monotonic()
        with pytest.raises(LLMError) as info:
            client.ask("action_decision", 2, ChatRequest("", [Message.user("act")], 50))
        elapsed = time.monotonic() - t0
    # the last try either failed too or was cut by the deadline: either way, within it
    assert info.value.kind in ("server", "timeout") and len(server.requests) >= 2 and elapsed < 1.6
    assert f"after {len(server.requests)} tries" in str(info.value)


def test_auth_errors_are_not_retried_and_never_echo_the_key(store):
    with OpenAIServer() as server:
        server.push(Reply(status=401, body={"error": {"message": f"Incorrect API key provided: {TEST_KEY}."}}))
        client, run_id = client_for(server, "openai", store)
        with pytest.raises(LLMError) as info:
            client.ask("gui_analysis", None, ChatRequest("", [Message.user("hi")], 50))
    assert info.value.kind == "auth" and len(server.requests) == 1
    assert TEST_KEY not in str(info.value) and "HTTP 401" in str(info.value)
    (row,) = calls(store, run_id)
    assert TEST_KEY not in row["error"]


def test_an_unreachable_server_fails_fast_with_one_sentence(store):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound but not listening: connection refused
        settings = resolve_settings({"provider": "compatible", "model": "llava", "base_url": f"http://127.0.0.1:{port}/v1"},
                                    env={}, keyring_lookup=lambda p: None)
        client = LLMClient(settings, prices=PRICES)
        t0 = time.monotonic()
        with pytest.raises(LLMError) as info:
            client.ask("gui_analysis", None, ChatRequest("", [Message.user("hi")], 50))
    assert time.monotonic() - t0 < 5
    assert info.value.kind == "connection"
    assert str(info.value).endswith(f"start the server at http://127.0.0.1:{port}/v1 or fix --base-url.")


def test_anthropic_base_url_with_v1_still_reaches_messages(store):
    with AnthropicServer() as server:
        settings = resolve_settings({"provider": "anthropic", "model": "claude-test", "base_url": server.root + "/v1"},
                                    env={"ANTHROPIC_API_KEY": TEST_KEY}, keyring_lookup=lambda p: None)
        assert settings.base_url == server.root
        result = LLMClient(settings, prices=PRICES).ask("strategy", None, ChatRequest("", [Message.user("x")], 50))
    assert result.text == "ok" and server.requests[0].path == "/v1/messages"


def test_compatible_server_without_key_gets_none(store):
    with OpenAIServer() as server:
        settings = resolve_settings({"provider": "compatible", "model": "llava", "base_url": server.base_url},
                                    env={"OPENAI_API_KEY": TEST_KEY}, keyring_lookup=lambda p: None)
        LLMClient(settings, prices=PRICES).ask("strategy", None, ChatRequest("", [Message.user("x")], 50))
    assert server.requests[0].headers["authorization"] == "Bearer none"
    assert server.requests[0].body["max_tokens"] == 50
