"""Bounded retries: backoff, Retry-After, the total budget, cancellation between tries."""

from __future__ import annotations

import threading

import pytest

from app.engine.play.control import RunControl
from app.engine.errors import RunStopped
from app.engine.llm.retry import ProviderError, RetryGaveUp, RetryPolicy, backoff_delay, call_with_retry


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.sleeps.append(s)
        self.now += s


def failing(errors, result="ok", clock=None, cost=0.0):
    calls = {"n": 0}

    def fn():
        calls["n"] += 1
        if clock is not None:
            clock.now += cost
        if calls["n"] <= len(errors):
            raise errors[calls["n"] - 1]
        return result

    return fn, calls


def test_retry_after_is_honoured_then_success():
    clock = FakeClock()
    fn, calls = failing([ProviderError("rate-limit", "429", status=429, retryable=True, retry_after=3.0)], clock=clock)
    seen = []
    assert call_with_retry(fn, RetryPolicy(), sleep=clock.sleep, clock=clock,
                           on_failure=lambda n, e: seen.append((n, e.kind))) == "ok"
    assert calls["n"] == 2 and clock.sleeps == [3.0] and seen == [(1, "rate-limit")]


def test_exponential_backoff_and_attempt_limit():
    clock = FakeClock()
    err = ProviderError("server", "503", status=503, retryable=True)
    fn, calls = failing([err] * 10, clock=clock)
    policy = RetryPolicy(max_attempts=4, base_delay_s=1.0, max_delay_s=3.0, budget_s=100)
    with pytest.raises(RetryGaveUp) as info:
        call_with_retry(fn, policy, sleep=clock.sleep, clock=clock)
    assert calls["n"] == 4 and info.value.why == "attempts" and info.value.attempts == 4
    assert len(clock.sleeps) == 3
    for got, nominal in zip(clock.sleeps, [1.0, 2.0, 3.0]):  # doubling, capped, shortened by jitter only
        assert 0.8 * nominal <= got <= nominal
    assert backoff_delay(policy, 1, rng=lambda: 0.0) == 1.0


def test_budget_bounds_the_total_time():
    clock = FakeClock()
    err = ProviderError("timeout", "slow", retryable=True)
    fn, calls = failing([err] * 50, clock=clock, cost=2.0)  # every try takes 2 s
    policy = RetryPolicy(max_attempts=50, base_delay_s=1.0, max_delay_s=1.0, budget_s=10.0)
    with pytest.raises(RetryGaveUp) as info:
        call_with_retry(fn, policy, sleep=clock.sleep, clock=clock)
    assert info.value.why == "budget"
    assert clock.now <= 10.0 + 2.0  # no wait started past the budget; at most one try runs over
    assert calls["n"] < 50


def test_a_retry_after_beyond_the_budget_gives_up_at_once():
    clock = FakeClock()
    fn, calls = failing([ProviderError("rate-limit", "429", retryable=True, retry_after=600)], clock=clock)
    with pytest.raises(RetryGaveUp) as info:
        call_with_retry(fn, RetryPolicy(budget_s=60), sleep=clock.sleep, clock=clock)
    assert info.value.why == "budget" and clock.sleeps == [] and calls["n"] == 1


def test_errors_that_are_not_retryable_end_at_once():
    fn, calls = failing([ProviderError("auth", "401", status=401)])
    with pytest.raises(RetryGaveUp) as info:
        call_with_retry(fn, RetryPolicy(), sleep=lambda s: None)
    assert calls["n"] == 1 and info.value.why == "not retryable"


def test_stop_cancels_the_wait_between_tries():
    control = RunControl()
    fn, calls = failing([ProviderError("rate-limit", "429", retryable=True, retry_after=30)] * 3)
    timer = threading.Timer(0.2, control.stop)
    timer.start()
    with pytest.raises(RunStopped):
        call_with_retry(fn, RetryPolicy(budget_s=100), sleep=control.sleep, stopped=lambda: control.stopped)
    timer.join()
    assert calls["n"] == 1


def test_a_stopped_run_makes_no_call():
    fn, calls = failing([])
    with pytest.raises(RunStopped):
        call_with_retry(fn, RetryPolicy(), stopped=lambda: True)
    assert calls["n"] == 0
