"""LLM tester settings and API-key handling.

Where things come from, first match wins:

* provider: the ``provider`` option (``--provider``), ``$PLAYCODER_PROVIDER``,
  ``compatible`` when a base URL is given, ``openai`` / ``anthropic`` when
  that provider's key is set, else ``openai``;
* model: ``--model``, ``$PLAYCODER_MODEL``, the provider's default
  (``compatible`` has none: a local server's model must be named);
* base URL: ``--base-url``, ``$PLAYCODER_BASE_URL``, the SDK's default;
* key: ``$OPENAI_API_KEY`` / ``$ANTHROPIC_API_KEY`` (``$PLAYCODER_API_KEY``
  for ``compatible``, so an OpenAI key is never sent to a third-party
  server), else the system keyring (service ``playcoder``, user = provider).

A key lives only in a :class:`Secret`, whose ``repr``/``str`` hide it and
which refuses to be pickled or JSON-encoded.  It is never written to the
database, events, logs, exports or settings files; :func:`scrub` removes it
(and anything key-shaped) from every error text before that text goes anywhere.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit, urlunsplit

from app.engine.errors import UserError
from app.engine.llm.retry import RetryPolicy

PROVIDERS = ("openai", "anthropic", "compatible")
KEYRING_SERVICE = "playcoder"
KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "compatible": "PLAYCODER_API_KEY"}
DEFAULT_MODELS = {"openai": "gpt-4o", "anthropic": "claude-sonnet-4-5"}
COMPATIBLE_NO_KEY = "none"
"""What the OpenAI SDK is given for a local server that wants no key."""
DEFAULT_TIMEOUT_S = 120.0
"""The most one model call may take, every retry and wait included (``timeout``, ``$PLAYCODER_LLM_TIMEOUT``)."""
TIMEOUT_ENV = "PLAYCODER_LLM_TIMEOUT"
OPTION_NAMES = ("provider", "model", "base_url", "timeout", "retries", "retry_budget", "retry_delay",
                "detail", "crop")
_KEY_SHAPED = re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_\-*.]{6,}")
_MIN_SECRET_LEN = 4


class Secret:
    """A string that does not show itself; call :meth:`reveal` at the one place it is sent."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return bool(self._value)

    def __reduce__(self) -> Any:
        raise TypeError("a Secret cannot be pickled")


_known_secrets: set[str] = set()


def scrub(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` with every key we loaded, and anything shaped like an API key, replaced by ***."""
    for value in sorted(_known_secrets | set(secrets), key=len, reverse=True):
        if len(value) >= _MIN_SECRET_LEN:
            text = text.replace(value, "***")
    return _KEY_SHAPED.sub(lambda m: m.group(1) + "-***", text)


def public_url(url: str | None) -> str:
    """A base URL safe to show: no user:password, no query string."""
    if not url:
        return "the provider's default address"
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
    except ValueError:  # a port that is not a number: show nothing of it rather than fail
        return "an unreadable address"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


# -- keyring ------------------------------------------------------------------
def _keyring() -> Any:
    try:
        import keyring
    except ImportError:
        return None
    return keyring


def saved_key(provider: str) -> Secret | None:
    """The key saved in the system keyring, or None (also when no keyring backend works)."""
    kr = _keyring()
    if kr is None:
        return None
    try:
        value = kr.get_password(KEYRING_SERVICE, provider)
    except Exception:  # no backend, locked keyring, D-Bus trouble: behave as 'not saved'
        return None
    return Secret(value) if value else None


def save_key(provider: str, key: str) -> None:
    """Store a key in the system keyring; raises UserError when there is no usable keyring."""
    kr = _keyring()
    if kr is None:
        raise UserError("The keyring package is not installed; install it or set the key in the environment.")
    try:
        kr.set_password(KEYRING_SERVICE, provider, key)
    except Exception as exc:
        raise UserError(f"The system keyring refused the key ({type(exc).__name__}); "
                        f"set {KEY_ENV[provider]} in the environment instead.") from None


def forget_key(provider: str) -> bool:
    kr = _keyring()
    if kr is None:
        return False
    try:
        kr.delete_password(KEYRING_SERVICE, provider)
    except Exception:
        return False
    return True


# -- settings -------------------------------------------------------------------
@dataclass(frozen=True)
class LLMSettings:
    provider: str
    model: str
    base_url: str | None
    api_key: Secret = field(repr=False)
    key_source: str
    timeout_s: float = DEFAULT_TIMEOUT_S
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    detail: str = "auto"
    crop: bool = True

    def describe(self) -> dict[str, Any]:
        """What may be shown or stored about these settings: never the key itself."""
        return {"provider": self.provider, "model": self.model, "base_url": public_url(self.base_url),
                "key": self.key_source, "timeout_s": self.timeout_s}


def _missing_key(provider: str) -> UserError:
    return UserError(
        f"The {provider} provider needs an API key: set {KEY_ENV[provider]} or save one in the workbench "
        "settings, or use --provider compatible --base-url URL for a local server.")


def resolve_settings(options: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None,
                     keyring_lookup: Callable[[str], Secret | None] | None = None) -> LLMSettings:
    """Settings from tester options, the environment and the keyring; one clear UserError when incomplete."""
    opts = dict(options or {})
    env = os.environ if env is None else env
    unknown = sorted(set(opts) - set(OPTION_NAMES))
    if unknown:
        raise UserError(f"unknown llm tester option(s) {', '.join(unknown)}; known are {', '.join(OPTION_NAMES)}.")
    base_url = _text(opts.get("base_url")) or _text(env.get("PLAYCODER_BASE_URL"))
    provider = (_text(opts.get("provider")) or _text(env.get("PLAYCODER_PROVIDER")) or "").lower()
    if not provider:
        if base_url:
            provider = "compatible"
        elif env.get(KEY_ENV["openai"]):
            provider = "openai"
        elif env.get(KEY_ENV["anthropic"]):
            provider = "anthropic"
        else:
            provider = "openai"
    if provider not in PROVIDERS:
        raise UserError(f"unknown provider {provider!r}; choose one of: {', '.join(PROVIDERS)}.")
    if provider == "compatible" and not base_url:
        raise UserError("The compatible provider needs a server address: pass --base-url URL "
                        "(for example http://127.0.0.1:11434/v1 for Ollama) or set PLAYCODER_BASE_URL.")
    model = _text(opts.get("model")) or _text(env.get("PLAYCODER_MODEL")) or DEFAULT_MODELS.get(provider)
    if not model:
        raise UserError("The compatible provider needs a model name: pass --model NAME or set PLAYCODER_MODEL.")
    key_env = KEY_ENV[provider]
    key: Secret | None = None
    source = "none"
    if env.get(key_env):
        key, source = Secret(env[key_env]), f"from {key_env}"
    else:
        key = (keyring_lookup or saved_key)(provider)
        if key is not None:
            source = "from the system keyring"
    if key is None:
        if provider != "compatible":
            raise _missing_key(provider)
        key = Secret(COMPATIBLE_NO_KEY)
    elif key.reveal():
        _known_secrets.add(key.reveal())
    timeout = _number(opts.get("timeout", env.get(TIMEOUT_ENV) or DEFAULT_TIMEOUT_S), "timeout", 0.05, 600)
    defaults = RetryPolicy()
    retry = RetryPolicy(
        max_attempts=int(_number(opts.get("retries", defaults.max_attempts - 1), "retries", 0, 20)) + 1,
        base_delay_s=_number(opts.get("retry_delay", defaults.base_delay_s), "retry_delay", 0, 60),
        max_delay_s=defaults.max_delay_s,
        budget_s=_number(opts.get("retry_budget", defaults.budget_s), "retry_budget", 0.1, 3600),
    )
    detail = str(opts.get("detail", "auto"))
    if detail not in ("auto", "high", "low"):
        raise UserError("the detail option must be auto, high or low.")
    if provider == "anthropic" and base_url:
        base_url = re.sub(r"/v1/?$", "", base_url.rstrip("/"))  # the SDK adds /v1/messages itself
    return LLMSettings(provider, model, base_url, key, source, timeout, retry, detail, bool(opts.get("crop", True)))


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _number(value: Any, name: str, low: float, high: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise UserError(f"the {name} option must be a number.") from None
    if not low <= number <= high:
        raise UserError(f"the {name} option must be between {low:g} and {high:g}.")
    return number
