"""How long to wait before healing drift again, and before retrying a failed sync.

Self-heal (SEMANTICS §6): after n self-heal attempts of the same revision, the next waits
delay(n) = 0 for n = 0, else min(timeout·factor^(n-1), cap) seconds from the end of the
last operation: 0, 2, 6, 18, 54, 162, 300, 300... with Argo CD's defaults (timeout 2 s,
factor 3, cap 300 s). The first attempt is immediate.

Retry: retry number k (1 for the first) waits min(maxDuration, duration·factor^k): with
the defaults (5 s, factor 2, 3 m) the first retry comes after 10 s, not 5 s. A maxDuration
of 0 means no cap. limit -1 retries without end, 0 never.
"""

from dataclasses import dataclass
from datetime import datetime

from app.model.app_spec import Backoff, RetryStrategy

DEFAULT_AUTOSYNC_RETRY_LIMIT = 5
"""Retries of an automated sync whose app sets no `syncPolicy.retry`."""


@dataclass(frozen=True)
class SelfHealBackoff:
    """The self-heal backoff (Argo CD's --self-heal-backoff-* flags)."""

    timeout: float = 2.0
    """Seconds before the second attempt; default 2."""
    factor: float = 3.0
    """Growth per attempt after that; default 3."""
    cap: float = 300.0
    """Longest wait in seconds; default 300."""


DEFAULT_SELF_HEAL_BACKOFF = SelfHealBackoff()


def _grown(base: float, factor: float, steps: int, cap: float | None) -> float:
    """base·factor^steps, stopping early once it passes `cap` (no float overflow)."""
    value = base
    for _ in range(max(steps, 0)):
        if cap is not None and value >= cap:
            break
        value *= factor
    return min(value, cap) if cap is not None else value


def self_heal_delay(attempts: int, backoff: SelfHealBackoff = DEFAULT_SELF_HEAL_BACKOFF) -> float:
    """Seconds the next self-heal waits after `attempts` earlier self-heal attempts."""
    if attempts <= 0:
        return 0.0
    return _grown(backoff.timeout, backoff.factor, attempts - 1, backoff.cap)


def self_heal_remaining(
    attempts: int,
    finished_at: datetime | None,
    now: datetime,
    backoff: SelfHealBackoff = DEFAULT_SELF_HEAL_BACKOFF,
) -> float:
    """Seconds still to wait before self-heal attempt `attempts + 1`; ≤ 0 means go now.

    Measured from the last operation's finish; with no finish time, the whole delay.
    """
    delay = self_heal_delay(attempts, backoff)
    if finished_at is None:
        return delay
    return delay - (now - finished_at).total_seconds()


def retry_wait(retry_number: int, backoff: Backoff | None = None) -> float:
    """Seconds before retry `retry_number` (1 for the first) of a failed sync."""
    backoff = backoff or Backoff()
    cap = backoff.max_duration_seconds
    return _grown(
        backoff.duration_seconds, float(backoff.factor), retry_number, cap if cap > 0 else None
    )


def retry_allowed(strategy: RetryStrategy | None, retry_count: int) -> bool:
    """Whether a sync that failed after `retry_count` retries may be retried once more."""
    if strategy is None:
        return False
    return strategy.limit < 0 or retry_count < strategy.limit
