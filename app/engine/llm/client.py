"""LLMClient: one logical model call = retries + an ``llm_calls`` row per attempt.

Each attempt is recorded with its phase, provider, model, the request as
sent (images replaced by ``{"image": "<sha256>"}`` of the picture stored in
``frames``), the response text, usage tokens (``tokens_estimated=1`` when
the provider sent none and we counted), latency, cost and error.  When the
retries are spent the call ends in :class:`LLMError`, a :class:`UserError`
whose text is one sentence saying what failed and what to do.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable

from app.engine.play.control import RunControl
from app.engine.errors import UserError
from app.engine.llm.config import LLMSettings, public_url, scrub
from app.engine.llm.messages import ChatRequest, ChatResult, ImagePart
from app.engine.llm.pricing import PriceTable, load_prices
from app.engine.llm.providers import Provider, make_provider
from app.engine.llm.retry import ProviderError, RetryGaveUp, call_with_retry
from app.engine.trace.store import TrajectoryStore

_HINTS = {
    "timeout": "check that the server is running, or allow more time with PLAYCODER_LLM_TIMEOUT",
    "connection": "check the network connection",
    "rate-limit": "wait a minute and run again, or use a model with a higher rate limit",
    "server": "the provider is having trouble; run again later",
    "auth": "check the API key (the provider's *_API_KEY variable or the key saved in the workbench settings)",
    "not-found": "check --model and --base-url",
    "bad-request": "check --model; the provider refused the request",
    "invalid-response": "check that --provider matches the server at --base-url",
    "client": "check the provider settings with `playcoder llm check`",
}


class LLMError(UserError):
    """A model call failed for good; ``kind`` says how (timeout, auth, invalid-response...)."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class LLMClient:
    def __init__(self, settings: LLMSettings, provider: Provider | None = None,
                 prices: PriceTable | None = None) -> None:
        self.settings = settings
        self.provider = provider or make_provider(settings)
        self.prices = prices or load_prices()
        self.store: TrajectoryStore | None = None
        self.run_id: int | None = None
        self.control: RunControl | None = None
        self.sleep: Callable[[float], None] = time.sleep

    def attach(self, store: TrajectoryStore, run_id: int, control: RunControl | None) -> None:
        self.store, self.run_id, self.control = store, run_id, control
        if control is not None:
            self.sleep = control.sleep

    def ask(self, phase: str, step: int | None, request: ChatRequest) -> ChatResult:
        """Call the model with retries; every attempt is recorded.  Raises LLMError or RunStopped."""
        recorded = self._recorded_request(request)
        started = [time.monotonic()]
        deadline = started[0] + self.settings.timeout_s  # the whole call, retries and waits included

        def attempt() -> ChatResult:
            started[0] = time.monotonic()
            return self.provider.chat(request, timeout_s=deadline - started[0])

        def failed(n: int, exc: ProviderError) -> None:
            self._record(phase, step, recorded, None, error=f"attempt {n}: {exc}",
                         latency_ms=(time.monotonic() - started[0]) * 1000.0)

        control = self.control
        try:
            result = call_with_retry(attempt, self.settings.retry, sleep=self.sleep, on_failure=failed,
                                     stopped=(lambda: control.stopped) if control is not None else (lambda: False),
                                     deadline=deadline)
        except RetryGaveUp as gave_up:
            raise self._error(phase, step, gave_up) from None
        self._record(phase, step, recorded, result)
        return result

    # -- recording ---------------------------------------------------------------
    def _recorded_request(self, request: ChatRequest) -> str | None:
        if self.store is None:
            return None
        for part in request.images():
            if part.sha256 is None:
                part.sha256 = self._store_image(part)
        return json.dumps(self.provider.wire(request, self.provider.record_image), ensure_ascii=False)

    def _store_image(self, part: ImagePart) -> str:
        assert self.store is not None
        if part.source_bgrx is not None:  # the unscaled window frame: share the step's content address
            w, h = part.size
            with self.store.transaction():
                return self.store.put_frame(w, h, part.source_bgrx)
        return self.store.put_image(part.image)

    def _record(self, phase: str, step: int | None, request: str | None, result: ChatResult | None, *,
                error: str | None = None, latency_ms: float | None = None) -> None:
        if self.store is None or self.run_id is None:
            return
        tin = result.tokens_in if result else None
        tout = result.tokens_out if result else None
        row: dict[str, Any] = {
            "run_id": self.run_id, "step": step, "provider": self.provider.name, "model": self.provider.model,
            "phase": phase, "request": request, "response": result.text if result else None,
            "tokens_in": tin, "tokens_out": tout, "tokens_estimated": int(bool(result and result.estimated)),
            "latency_ms": round(result.latency_ms if result else (latency_ms or 0.0), 2),
            "cost": self.prices.cost(self.provider.model, tin, tout) if result else None,
            "error": scrub(error) if error else None, "at": time.time(),
        }
        self.store.llm.add(row)

    def _error(self, phase: str, step: int | None, gave_up: RetryGaveUp) -> LLMError:
        last = gave_up.last
        where = f"{phase.replace('_', ' ')}" + (f" at step {step}" if step is not None else "")
        tries = f"after {gave_up.attempts} tries in {gave_up.elapsed_s:.1f} s" if gave_up.attempts > 1 else ""
        if gave_up.why == "budget" and last.retry_after is not None:
            tries += f" (it asked to wait {last.retry_after:g} s more, past the retry budget)"
        elif gave_up.why == "deadline" and last.kind != "timeout":
            tries += f" (the next try would end past the {self.settings.timeout_s:g} s the call may take)"
        detail = f"{last}{' ' + tries if tries else ''}"
        hint = _HINTS.get(last.kind, _HINTS["client"])
        if last.kind == "connection" and self.settings.base_url:
            hint = f"start the server at {public_url(self.settings.base_url)} or fix --base-url"
        return LLMError(scrub(f"The model call for {where} failed: {detail}; {hint}."), last.kind)
