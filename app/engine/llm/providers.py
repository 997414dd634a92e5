"""Providers: one chat call through the official SDKs, one attempt, no retries.

``openai`` and ``compatible`` use the ``openai`` SDK (the latter with a
``base_url`` such as Ollama's or vLLM's ``/v1``); ``anthropic`` uses the
``anthropic`` SDK.  The SDKs' own retries are switched off
(``max_retries=0``): :mod:`app.engine.llm.retry` retries, so every attempt
is visible, recorded and cancellable.  Each SDK failure becomes a
:class:`ProviderError` whose text is scrubbed of secrets.

An attempt gets the time left of the call's deadline twice over: as the SDK's
timeout (which bounds each network read, so a server that trickles a byte now
and then never trips it) and as a wall-clock watchdog: the SDK call runs on a
worker thread, and when the time is up the attempt ends as a timeout and the
client's connections are closed, which ends the abandoned request at its
next read.

A request is rendered by :meth:`Provider.wire` with an image renderer: the
real call renders base64 PNG, the ``llm_calls`` record renders the stored
frame's hash.
"""

from __future__ import annotations

import email.utils
import re
import threading
import time
import warnings
from typing import Any, Callable, Protocol

from app.engine.llm.config import LLMSettings, public_url, scrub
from app.engine.llm.images import ANTHROPIC_RULES, OPENAI_RULES, ImageRules
from app.engine.llm.messages import ChatRequest, ChatResult, ImagePart, TextPart, estimate_text_tokens
from app.engine.llm.retry import ProviderError

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
MAX_ERROR_CHARS = 200
REASONING_MODELS = re.compile(r"^(o\d|gpt-5)")
REASONING_TOKEN_ALLOWANCE = 4096
"""OpenAI reasoning models spend completion tokens thinking before they answer: give them room."""

MAX_RESPONSE_CHARS = 256 * 1024
"""A model's answer is kept (recorded, and sent back as history) up to this many characters (a model that answers without end cannot fill the database)."""
MAX_USAGE_TOKENS = 100_000_000
"""Usage a server reports beyond this (or negative, or not a number) is not believed: the tokens are counted."""

ImageRenderer = Callable[[ImagePart], dict[str, Any]]


class Provider(Protocol):
    name: str
    model: str
    rules: ImageRules

    def chat(self, request: ChatRequest, timeout_s: float | None = None) -> ChatResult: ...

    def wire(self, request: ChatRequest, image: ImageRenderer | None = None) -> dict[str, Any]: ...

    def record_image(self, part: ImagePart) -> dict[str, Any]: ...


def make_provider(settings: LLMSettings) -> Provider:
    if settings.provider == "anthropic":
        return AnthropicProvider(settings)
    return OpenAIProvider(settings)


class _Base:
    name: str
    model: str
    rules: ImageRules

    def __init__(self, settings: LLMSettings) -> None:
        self.name = settings.provider
        self.model = settings.model
        self.settings = settings
        self.where = public_url(settings.base_url)
        self._reached = False
        """Set once the server answered anything: a later refused connection is worth retrying."""

    def _estimate(self, request: ChatRequest, text: str) -> tuple[int, int]:
        images = sum(self.rules.tokens(p.size, p.detail) for p in request.images())
        return estimate_text_tokens(request.text_chars()) + images, estimate_text_tokens(len(text))

    def record_image(self, part: ImagePart) -> dict[str, Any]:
        return {"type": "image", "image": part.sha256, "size": list(part.size), "detail": part.detail}

    def _timed(self, call: Callable[[float], Any], sdk: Any, timeout_s: float | None) -> tuple[Any, float]:
        """Run ``call(limit)`` (an SDK request given ``limit`` as its timeout) under a watchdog of ``limit`` s."""
        limit = self.settings.timeout_s if timeout_s is None else max(0.0, timeout_s)
        t0 = time.monotonic()
        outcome: dict[str, Any] = {}
        finished = threading.Event()

        def work() -> None:
            try:
                outcome["response"] = call(limit)
            except BaseException as exc:  # handed to the waiting thread
                outcome["error"] = exc
            finally:
                finished.set()

        threading.Thread(target=work, name=f"{self.name}-request", daemon=True).start()
        try:
            in_time = finished.wait(limit)
        finally:
            if not finished.is_set():  # the deadline, or Ctrl-C while waiting: end the request at its next read
                self._abandon()
        if not in_time:
            raise ProviderError("timeout", f"the {self.name} provider at {self.where} did not answer within "
                                f"{self.settings.timeout_s:g} s")
        error = outcome.get("error")
        if isinstance(error, Exception):  # every SDK failure becomes a ProviderError with a scrubbed message
            raise self._classify(error, sdk) from None
        if error is not None:
            raise error
        self._reached = True
        return outcome["response"], (time.monotonic() - t0) * 1000.0

    def _abandon(self) -> None:
        """Close the client under a request that ran out of time; later attempts get a fresh one."""
        old, self._client = self._client, self._make_client()
        try:
            old.close()
        except Exception:  # closing what is already broken
            pass

    _client: Any

    def _make_client(self) -> Any:
        raise NotImplementedError

    def _classify(self, exc: Exception, sdk: Any) -> ProviderError:
        who = f"the {self.name} provider at {self.where}"
        if isinstance(exc, sdk.APITimeoutError):
            return ProviderError("timeout", f"{who} did not answer within {self.settings.timeout_s:g} s",
                                 retryable=True)
        if isinstance(exc, sdk.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            detail = scrub(str(cause or exc))[:MAX_ERROR_CHARS]
            return ProviderError("connection", f"{who} could not be reached ({detail})", retryable=self._reached)
        if isinstance(exc, sdk.APIStatusError):
            self._reached = True
            status = int(exc.status_code)
            detail = scrub(_body_message(exc.body) or str(exc.message))[:MAX_ERROR_CHARS]
            kind = ("rate-limit" if status == 429 else "auth" if status in (401, 403) else "not-found"
                    if status == 404 else "server" if status >= 500 or status in RETRYABLE_STATUS else "bad-request")
            return ProviderError(kind, f"{who} answered HTTP {status} ({detail})", status=status,
                                 retryable=status in RETRYABLE_STATUS or status >= 500,
                                 retry_after=_retry_after(exc.response.headers))
        if isinstance(exc, (sdk.APIResponseValidationError, ValueError)):
            self._reached = True
            return ProviderError("invalid-response", f"{who} answered with a body that is not a valid "
                                 f"{self.name} response ({scrub(str(exc))[:MAX_ERROR_CHARS]})")
        return ProviderError("client", f"the {self.name} SDK failed: {type(exc).__name__}: "
                             f"{scrub(str(exc))[:MAX_ERROR_CHARS]}")


class OpenAIProvider(_Base):
    """OpenAI chat completions, also for OpenAI-compatible servers (``compatible``)."""

    rules = OPENAI_RULES

    def __init__(self, settings: LLMSettings) -> None:
        super().__init__(settings)
        import openai

        self._sdk = openai
        self._client = self._make_client()

    def _make_client(self) -> Any:
        s = self.settings
        return self._sdk.OpenAI(api_key=s.api_key.reveal(), base_url=s.base_url or None, timeout=s.timeout_s,
                                max_retries=0)

    def wire(self, request: ChatRequest, image: ImageRenderer | None = None) -> dict[str, Any]:
        render = image or _openai_image
        messages: list[dict[str, Any]] = [{"role": "system", "content": request.system}] if request.system else []
        messages += _wire_messages(request, render)
        # OpenAI's newer models take max_completion_tokens; compatible servers know max_tokens.
        if self.name == "compatible":
            return {"model": self.model, "messages": messages, "max_tokens": request.max_tokens}
        extra = REASONING_TOKEN_ALLOWANCE if REASONING_MODELS.match(self.model) else 0
        return {"model": self.model, "messages": messages, "max_completion_tokens": request.max_tokens + extra}

    def chat(self, request: ChatRequest, timeout_s: float | None = None) -> ChatResult:
        payload = self.wire(request)
        client = self._client
        resp, latency = self._timed(lambda limit: client.chat.completions.create(**payload, timeout=limit),
                                    self._sdk, timeout_s)
        choices = getattr(resp, "choices", None)
        if not choices:
            raise ProviderError("invalid-response", f"the {self.name} provider at {self.where} answered without "
                                "a choice")
        message = choices[0].message
        text = _capped(str(message.content or getattr(message, "refusal", None) or ""))
        usage = getattr(resp, "usage", None)
        counted = _tokens(getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None))
        if counted is not None:
            (tin, tout), estimated = counted, False
        else:
            (tin, tout), estimated = self._estimate(request, text), True
        return ChatResult(text, tin, tout, estimated, latency, _dump(resp))


class AnthropicProvider(_Base):
    """Anthropic messages API.  Its base URL has no ``/v1``: the SDK adds ``/v1/messages``."""

    rules = ANTHROPIC_RULES

    def __init__(self, settings: LLMSettings) -> None:
        super().__init__(settings)
        import anthropic

        self._sdk = anthropic
        self._client = self._make_client()

    def _make_client(self) -> Any:
        s = self.settings
        return self._sdk.Anthropic(api_key=s.api_key.reveal(), base_url=s.base_url or None, timeout=s.timeout_s,
                                   max_retries=0)

    def wire(self, request: ChatRequest, image: ImageRenderer | None = None) -> dict[str, Any]:
        render = image or _anthropic_image
        messages = _wire_messages(request, render)
        payload: dict[str, Any] = {"model": self.model, "max_tokens": request.max_tokens, "messages": messages}
        if request.system:
            payload["system"] = request.system
        return payload

    def chat(self, request: ChatRequest, timeout_s: float | None = None) -> ChatResult:
        payload = self.wire(request)
        client = self._client
        resp, latency = self._timed(lambda limit: client.messages.create(**payload, timeout=limit), self._sdk,
                                    timeout_s)
        blocks = getattr(resp, "content", None)
        if blocks is None:
            raise ProviderError("invalid-response", f"the anthropic provider at {self.where} answered without content")
        text = _capped("".join(getattr(b, "text", "") for b in blocks if getattr(b, "type", "") == "text"))
        usage = getattr(resp, "usage", None)
        counted = _tokens(getattr(usage, "input_tokens", None), getattr(usage, "output_tokens", None),
                          getattr(usage, "cache_creation_input_tokens", None) or 0,
                          getattr(usage, "cache_read_input_tokens", None) or 0)
        if counted is not None:
            tin, tout, estimated = counted[0] + counted[2] + counted[3], counted[1], False
        else:
            (tin, tout), estimated = self._estimate(request, text), True
        return ChatResult(text, tin, tout, estimated, latency, _dump(resp))


def _wire_messages(request: ChatRequest, render: ImageRenderer) -> list[dict[str, Any]]:
    """The conversation in the shape both chat APIs share: assistant turns as plain text,
    user turns as text parts and provider-rendered image parts."""
    messages: list[dict[str, Any]] = []
    for m in request.messages:
        if m.role == "assistant":
            messages.append({"role": "assistant", "content": "".join(
                p.text for p in m.parts if isinstance(p, TextPart))})
        else:
            messages.append({"role": "user", "content": [
                {"type": "text", "text": p.text} if isinstance(p, TextPart) else render(p) for p in m.parts]})
    return messages


def _openai_image(part: ImagePart) -> dict[str, Any]:
    return {"type": "image_url",
            "image_url": {"url": "data:image/png;base64," + part.png_b64(), "detail": part.detail}}


def _anthropic_image(part: ImagePart) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": part.png_b64()}}


def _body_message(body: object) -> str:
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return str(err["message"])
        if isinstance(body.get("message"), str):
            return str(body["message"])
    return ""


def _retry_after(headers: Any) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date); None when absent."""
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000.0)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


def _capped(text: str) -> str:
    """The answer up to MAX_RESPONSE_CHARS, saying so when it was longer."""
    if len(text) <= MAX_RESPONSE_CHARS:
        return text
    return (text[:MAX_RESPONSE_CHARS] + f"\n[playcoder: the model's answer was cut here: {len(text)} characters, "
            f"{MAX_RESPONSE_CHARS} kept]")


def _tokens(*values: object) -> tuple[int, ...] | None:
    """Usage counts as integers, or None when any is missing or absurd (a server's bug is not a cost)."""
    out: list[int] = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            return None
        try:
            number = int(value)
        except (ValueError, OverflowError):
            return None
        if not 0 <= number <= MAX_USAGE_TOKENS:
            return None
        out.append(number)
    return tuple(out)


def _dump(resp: Any) -> dict[str, Any]:
    dump = getattr(resp, "model_dump", None)
    try:
        with warnings.catch_warnings():  # a server's odd field types (1e300 tokens) are its own business
            warnings.simplefilter("ignore")
            return dict(dump(exclude_none=True)) if callable(dump) else {}
    except Exception:  # a partial or odd response object: the text and usage were read already
        return {}
