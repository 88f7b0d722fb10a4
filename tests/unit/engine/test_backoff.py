"""Self-heal and retry waits (SEMANTICS §6)."""

from datetime import UTC, datetime, timedelta

import pytest

from app.engine.backoff import (
    SelfHealBackoff,
    retry_allowed,
    retry_wait,
    self_heal_delay,
    self_heal_remaining,
)
from app.model.app_spec import Backoff, RetryStrategy

T = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)


def test_self_heal_delays_with_defaults() -> None:
    assert [self_heal_delay(n) for n in range(8)] == [0, 2, 6, 18, 54, 162, 300, 300]


def test_self_heal_delay_never_overflows() -> None:
    assert self_heal_delay(10_000) == 300


def test_self_heal_backoff_is_configurable() -> None:
    custom = SelfHealBackoff(timeout=1, factor=2, cap=5)
    assert [self_heal_delay(n, custom) for n in range(6)] == [0, 1, 2, 4, 5, 5]


REMAINING = [
    ("first-attempt-goes-now", 0, 0.0, T, 0.0),
    ("counted-from-the-finish", 2, 4.0, T, 2.0),
    ("elapsed-means-go", 2, 7.0, T, -1.0),
    ("no-finish-time-waits-the-whole-delay", 3, 100.0, None, 18.0),
]


@pytest.mark.parametrize(
    ("attempts", "elapsed", "finished", "remaining"),
    [c[1:] for c in REMAINING],
    ids=[c[0] for c in REMAINING],
)
def test_self_heal_remaining(
    attempts: int, elapsed: float, finished: datetime | None, remaining: float
) -> None:
    now = T + timedelta(seconds=elapsed)
    assert self_heal_remaining(attempts, finished, now) == pytest.approx(remaining)


RETRY = [
    ("first-retry-waits-10s-with-defaults", 1, Backoff(), 10.0),
    ("second-retry-20s", 2, Backoff(), 20.0),
    ("capped-at-max-duration", 6, Backoff(), 180.0),
    ("custom-backoff", 3, Backoff(duration="1s", factor=3, max_duration="1h"), 27.0),
    ("max-duration-caps-the-first-retry", 1, Backoff(duration="1m", max_duration="30s"), 30.0),
    ("zero-max-duration-means-no-cap", 4, Backoff(duration="1s", max_duration="0s"), 16.0),
]


@pytest.mark.parametrize(
    ("number", "backoff", "seconds"), [c[1:] for c in RETRY], ids=[c[0] for c in RETRY]
)
def test_retry_wait(number: int, backoff: Backoff, seconds: float) -> None:
    assert retry_wait(number, backoff) == seconds


def test_retry_wait_without_backoff_uses_the_defaults() -> None:
    assert retry_wait(1) == 10.0


LIMITS = [
    ("no-strategy-never-retries", None, 0, False),
    ("limit-0-never-retries", RetryStrategy(limit=0), 0, False),
    ("limit-minus-1-always-retries", RetryStrategy(limit=-1), 1000, True),
    ("limit-2-retries-twice", RetryStrategy(limit=2), 1, True),
    ("limit-2-stops-after-two", RetryStrategy(limit=2), 2, False),
]


@pytest.mark.parametrize(
    ("strategy", "count", "allowed"), [c[1:] for c in LIMITS], ids=[c[0] for c in LIMITS]
)
def test_retry_limit(strategy: RetryStrategy | None, count: int, allowed: bool) -> None:
    assert retry_allowed(strategy, count) is allowed
