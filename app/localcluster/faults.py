"""Fault injection for reliability tests: some requests fail the way busy servers fail.

A configurable fraction of API requests is answered 500 InternalError, 429
TooManyRequests (with Retry-After), held for `timeout_seconds` and then answered 504
Timeout, or held for `slow_seconds` and then answered as usual (a loaded server). Rates
are changed at run time, from tests (`cluster.faults.configure(...)`) or through the
admin endpoint; a seed makes the sequence of failures repeatable.
"""

import random
from dataclasses import dataclass
from typing import Any

from app.localcluster.errors import ApiError

ERROR = "error"
THROTTLE = "throttle"
TIMEOUT = "timeout"
SLOW = "slow"
_RATES = ("error_rate", "throttle_rate", "timeout_rate", "slow_rate")


@dataclass(slots=True)
class FaultRates:
    error_rate: float = 0.0
    """Fraction of requests answered 500 InternalError."""
    throttle_rate: float = 0.0
    """Fraction of requests answered 429 TooManyRequests."""
    timeout_rate: float = 0.0
    """Fraction of requests held for timeout_seconds, then answered 504."""
    timeout_seconds: float = 30.0
    """How long a timed-out request is held before its 504."""
    slow_rate: float = 0.0
    """Fraction of requests held for slow_seconds, then answered normally."""
    slow_seconds: float = 1.0
    """How long a slow request is held before it is served."""


class Faults:
    """The current fault rates and the random source that applies them."""

    def __init__(self, rates: FaultRates | None = None, seed: int | None = None) -> None:
        self.rates = rates or FaultRates()
        self._random = random.Random(seed)

    def configure(self, **changes: Any) -> FaultRates:
        """Change some rates; unknown names or values outside their range are refused."""
        updated = FaultRates(**{**self.as_dict(), **changes})
        for name in _RATES:
            value = getattr(updated, name)
            if not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be a number between 0 and 1, got {value!r}")
        total = sum(getattr(updated, name) for name in _RATES)
        if total > 1.0:
            raise ValueError(f"the fault rates add up to {total:g}, more than 1")
        for name in ("timeout_seconds", "slow_seconds"):
            value = getattr(updated, name)
            if not isinstance(value, int | float) or value < 0:
                raise ValueError(f"{name} must be a non-negative number, got {value!r}")
        self.rates = updated
        return updated

    def clear(self) -> None:
        self.rates = FaultRates(
            timeout_seconds=self.rates.timeout_seconds, slow_seconds=self.rates.slow_seconds
        )

    def as_dict(self) -> dict[str, float]:
        r = self.rates
        return {
            "error_rate": r.error_rate,
            "throttle_rate": r.throttle_rate,
            "timeout_rate": r.timeout_rate,
            "timeout_seconds": r.timeout_seconds,
            "slow_rate": r.slow_rate,
            "slow_seconds": r.slow_seconds,
        }

    def pick(self) -> str | None:
        """Which fault (if any) this request gets."""
        r = self.rates
        if not (r.error_rate or r.throttle_rate or r.timeout_rate or r.slow_rate):
            return None
        roll = self._random.random()
        for kind, rate in (
            (ERROR, r.error_rate),
            (THROTTLE, r.throttle_rate),
            (TIMEOUT, r.timeout_rate),
            (SLOW, r.slow_rate),
        ):
            if roll < rate:
                return kind
            roll -= rate
        return None


def fault_error(kind: str) -> ApiError:
    if kind == THROTTLE:
        return ApiError(
            429,
            "TooManyRequests",
            "injected fault: the server has received too many requests, try again later",
            retry_after=1,
        )
    if kind == TIMEOUT:
        return ApiError(
            504,
            "Timeout",
            "injected fault: the server was unable to return a response in the time allotted, "
            "try again",
        )
    return ApiError(
        500,
        "InternalError",
        "injected fault: an error on the server has prevented the request from succeeding",
    )
