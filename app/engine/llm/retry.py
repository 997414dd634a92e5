"""Bounded retries with exponential backoff for provider calls.

Retried: rate limits (429), server errors (5xx, 408, 529), timeouts and
dropped connections — what :class:`ProviderError` marks ``retryable``.  A
``Retry-After`` the server sends is honoured as is; otherwise the delay
doubles from ``base_delay_s`` up to ``max_delay_s``.  The whole affair is
bounded by ``max_attempts`` and by ``budget_s`` of wall time: a wait that
would end past the budget is not started.  A ``deadline`` (the call's total
time, ``PLAYCODER_LLM_TIMEOUT``) is harder still: no attempt starts and no
wait begins that would end past it, and each attempt is given only the time
left (the provider enforces it, see :mod:`app.engine.llm.providers`).  Between tries the loop checks
``stopped()`` and sleeps with a sleep that wakes on stop (``RunControl.sleep``),
so a user's stop ends the wait at once with :class:`RunStopped`.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Callable, TypeVar

from app.engine.errors import RunStopped

T = TypeVar("T")
JITTER = 0.2
"""Backoff delays are shortened by up to this fraction so parallel runs do not retry in step."""


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 5
    base_delay_s: float = 1.0
    max_delay_s: float = 20.0
    budget_s: float = 120.0


class ProviderError(Exception):
    """One failed attempt.  ``str()`` is already free of secrets."""

    def __init__(self, kind: str, message: str, *, status: int | None = None, retryable: bool = False,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.kind = kind  # timeout | connection | rate-limit | server | auth | not-found | bad-request | invalid-response
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after


class RetryGaveUp(Exception):
    def __init__(self, last: ProviderError, attempts: int, elapsed_s: float, why: str) -> None:
        super().__init__(str(last))
        self.last = last
        self.attempts = attempts
        self.elapsed_s = elapsed_s
        self.why = why  # "not retryable" | "attempts" | "budget" | "deadline"


def backoff_delay(policy: RetryPolicy, attempt: int, rng: Callable[[], float] = random.random) -> float:
    """Delay before try ``attempt + 1`` when the server gave no Retry-After."""
    delay = min(policy.max_delay_s, policy.base_delay_s * 2.0 ** (attempt - 1))
    return delay * (1.0 - JITTER * rng())


def call_with_retry(fn: Callable[[], T], policy: RetryPolicy, *, sleep: Callable[[float], None] = time.sleep,
                    stopped: Callable[[], bool] = lambda: False,
                    on_failure: Callable[[int, ProviderError], None] | None = None,
                    clock: Callable[[], float] = time.monotonic, deadline: float | None = None) -> T:
    """Call ``fn`` until it returns, retrying ProviderErrors by the policy; raises RetryGaveUp or RunStopped.

    ``deadline``: a ``clock()`` time after which nothing more is tried or waited for."""
    start = clock()
    attempt = 0
    while True:
        if stopped():
            raise RunStopped()
        attempt += 1
        try:
            return fn()
        except ProviderError as exc:
            if on_failure is not None:
                on_failure(attempt, exc)
            elapsed = clock() - start
            if not exc.retryable:
                raise RetryGaveUp(exc, attempt, elapsed, "not retryable") from exc
            if attempt >= policy.max_attempts:
                raise RetryGaveUp(exc, attempt, elapsed, "attempts") from exc
            delay = exc.retry_after if exc.retry_after is not None else backoff_delay(policy, attempt)
            if deadline is not None and clock() + delay >= deadline:
                raise RetryGaveUp(exc, attempt, elapsed, "deadline") from exc
            if elapsed + delay >= policy.budget_s:
                raise RetryGaveUp(exc, attempt, elapsed, "budget") from exc
            if delay > 0:
                sleep(delay)
