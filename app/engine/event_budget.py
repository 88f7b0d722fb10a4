"""How many Kubernetes Events a process may write: token buckets per app and in total.

Aggregation (`kube_events`) keeps repeats from creating objects, but each repeat is still
a write to the API server. Like client-go's spam filter, each Application has a bucket
(`per_app_burst` tokens, refilled at `per_app_rate` per second) and the whole process one
more (`total_burst`, `total_rate`), so an app flapping between two states, or a resync of
thousands of apps, cannot flood the API server. An Event over budget is dropped: the
caller logs it (the CloudEvent it came from stays on the event stream).

Time is passed in (monotonic seconds), so the budget is tested without waiting.
"""

from collections import OrderedDict
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EventBudgetSettings:
    per_app_burst: float = 25.0
    """Events one Application may have written at once (default 25, client-go's burst)."""
    per_app_rate: float = 0.1
    """Tokens per second an Application's bucket regains (default 0.1: one per 10 s)."""
    total_burst: float = 200.0
    """Events the process may write at once, all apps together (default 200)."""
    total_rate: float = 20.0
    """Tokens per second the process's bucket regains (default 20)."""
    max_apps: int = 10_000
    """Buckets kept; the least recently used is forgotten beyond this (it starts full)."""


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float

    def take(self, now: float, burst: float, rate: float) -> bool:
        self.tokens = min(burst, self.tokens + max(0.0, now - self.at) * rate)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True

    def give_back(self) -> None:
        self.tokens += 1.0


class EventBudget:
    """Token buckets; `allow(app, now)` spends one token of the app's and of the total."""

    def __init__(self, settings: EventBudgetSettings | None = None) -> None:
        self.settings = settings or EventBudgetSettings()
        self._apps: OrderedDict[str, _Bucket] = OrderedDict()
        self._total: _Bucket | None = None

    def allow(self, app: str, now: float) -> bool:
        s = self.settings
        if self._total is None:
            self._total = _Bucket(s.total_burst, now)
        bucket = self._apps.pop(app, None) or _Bucket(s.per_app_burst, now)
        self._apps[app] = bucket
        while len(self._apps) > s.max_apps:
            self._apps.popitem(last=False)
        if not bucket.take(now, s.per_app_burst, s.per_app_rate):
            return False
        if not self._total.take(now, s.total_burst, s.total_rate):
            bucket.give_back()
            return False
        return True
