"""Provider settings, key sources (environment, keyring) and the sentences for what is missing."""

from __future__ import annotations

import json
import pickle

import keyring
import keyring.backend
import pytest

from app.engine.errors import UserError
from app.engine.llm import config
from app.engine.llm.config import Secret, forget_key, resolve_settings, save_key, saved_key, scrub
from memory_keyring import MemoryKeyring

KEY = "sk-test-SECRET123"


def no_keyring(provider):
    return None


def test_openai_without_key_says_exactly_what_is_missing():
    with pytest.raises(UserError) as info:
        resolve_settings({"provider": "openai"}, env={}, keyring_lookup=no_keyring)
    assert str(info.value) == (
        "The openai provider needs an API key: set OPENAI_API_KEY or save one in the workbench settings, "
        "or use --provider compatible --base-url URL for a local server.")


def test_anthropic_without_key():
    with pytest.raises(UserError, match="The anthropic provider needs an API key: set ANTHROPIC_API_KEY"):
        resolve_settings({"provider": "anthropic"}, env={}, keyring_lookup=no_keyring)


def test_compatible_needs_a_server_and_a_model_but_no_key():
    with pytest.raises(UserError, match="needs a server address: pass --base-url URL"):
        resolve_settings({"provider": "compatible", "model": "llava"}, env={}, keyring_lookup=no_keyring)
    with pytest.raises(UserError, match="needs a model name: pass --model NAME or set PLAYCODER_MODEL"):
        resolve_settings({"provider": "compatible", "base_url": "http://127.0.0.1:11434/v1"}, env={},
                         keyring_lookup=no_keyring)
    s = resolve_settings({"base_url": "http://127.0.0.1:11434/v1", "model": "llava"},
                         env={"OPENAI_API_KEY": KEY}, keyring_lookup=no_keyring)
    assert s.provider == "compatible"  # a base URL alone means a local server
    assert s.api_key.reveal() == "none"  # never the OpenAI key sent to a third-party server


def test_provider_model_and_url_from_the_environment():
    env = {"ANTHROPIC_API_KEY": KEY, "PLAYCODER_MODEL": "claude-test"}
    s = resolve_settings({}, env=env, keyring_lookup=no_keyring)
    assert (s.provider, s.model, s.key_source) == ("anthropic", "claude-test", "from ANTHROPIC_API_KEY")
    s = resolve_settings({"model": "m2"}, env={"PLAYCODER_PROVIDER": "openai", "OPENAI_API_KEY": KEY,
                                               "PLAYCODER_BASE_URL": "http://127.0.0.1:9/v1"},
                         keyring_lookup=no_keyring)
    assert (s.provider, s.model, s.base_url) == ("openai", "m2", "http://127.0.0.1:9/v1")
    assert resolve_settings({}, env={"OPENAI_API_KEY": KEY}, keyring_lookup=no_keyring).model == "gpt-4o"


def test_anthropic_base_url_loses_a_v1_suffix():
    env = {"ANTHROPIC_API_KEY": KEY}
    for url in ("http://127.0.0.1:8/v1", "http://127.0.0.1:8/v1/", "http://127.0.0.1:8"):
        s = resolve_settings({"provider": "anthropic", "base_url": url}, env=env, keyring_lookup=no_keyring)
        assert s.base_url == "http://127.0.0.1:8"


def test_options_are_checked():
    env = {"OPENAI_API_KEY": KEY}
    with pytest.raises(UserError, match="unknown llm tester option"):
        resolve_settings({"temperature": 2}, env=env)
    with pytest.raises(UserError, match="unknown provider"):
        resolve_settings({"provider": "gemini"}, env=env)
    with pytest.raises(UserError, match="timeout option must be between"):
        resolve_settings({"timeout": -1}, env=env)
    s = resolve_settings({"timeout": 0.5, "retries": 2, "retry_budget": 3, "retry_delay": 0}, env=env)
    assert (s.timeout_s, s.retry.max_attempts, s.retry.budget_s, s.retry.base_delay_s) == (0.5, 3, 3.0, 0.0)


def test_secret_hides_itself():
    s = Secret(KEY)
    assert KEY not in repr(s) and KEY not in str(s) and KEY not in f"{s}"
    with pytest.raises(TypeError):
        json.dumps({"k": s})
    with pytest.raises(TypeError):
        pickle.dumps(s)
    settings = resolve_settings({}, env={"OPENAI_API_KEY": KEY}, keyring_lookup=no_keyring)
    assert KEY not in repr(settings) and KEY not in json.dumps(settings.describe())


def test_scrub_removes_loaded_keys_and_key_shaped_text():
    resolve_settings({}, env={"OPENAI_API_KEY": "plain-secret-value-42"}, keyring_lookup=no_keyring)
    assert "plain-secret-value-42" not in scrub("bad key plain-secret-value-42 given")
    assert KEY not in scrub(f"Incorrect API key provided: {KEY}.")
    assert "sk-proj-abc123def456" not in scrub("key sk-proj-abc123def456")
    assert config.public_url("http://user:pw@host:8080/v1?key=x") == "http://host:8080/v1"


@pytest.fixture
def memory_keyring():
    previous = keyring.get_keyring()
    ring = MemoryKeyring()
    keyring.set_keyring(ring)
    yield ring
    keyring.set_keyring(previous)


def test_keyring_is_the_fallback_after_the_environment(memory_keyring):
    assert saved_key("anthropic") is None
    save_key("anthropic", "sk-ant-from-keyring-1")
    assert memory_keyring.data[("playcoder", "anthropic")] == "sk-ant-from-keyring-1"
    s = resolve_settings({"provider": "anthropic"}, env={})
    assert s.api_key.reveal() == "sk-ant-from-keyring-1" and s.key_source == "from the system keyring"
    s = resolve_settings({"provider": "anthropic"}, env={"ANTHROPIC_API_KEY": KEY})
    assert s.api_key.reveal() == KEY  # the environment wins
    assert forget_key("anthropic") and saved_key("anthropic") is None


def test_a_broken_keyring_counts_as_no_key():
    class Broken(MemoryKeyring):
        def get_password(self, service, username):
            raise RuntimeError("no D-Bus")

    previous = keyring.get_keyring()
    keyring.set_keyring(Broken())
    try:
        assert saved_key("openai") is None
        with pytest.raises(UserError, match="needs an API key"):
            resolve_settings({"provider": "openai"}, env={})
    finally:
        keyring.set_keyring(previous)
