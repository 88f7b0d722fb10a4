"""Health statuses, ordered so that aggregation is a fold with `worse_than`."""

import enum
from dataclasses import dataclass


class HealthStatusCode(enum.Enum):
    """Argo CD's health statuses, declared from best to worst.

    The order is Argo CD's aggregation order: Healthy < Suspended < Progressing <
    Missing < Degraded < Unknown. An app's health is the worst of its resources'.
    """

    HEALTHY = "Healthy"
    SUSPENDED = "Suspended"
    PROGRESSING = "Progressing"
    MISSING = "Missing"
    DEGRADED = "Degraded"
    UNKNOWN = "Unknown"

    @property
    def rank(self) -> int:
        return _RANK[self]

    def worse_than(self, other: "HealthStatusCode") -> bool:
        """True if this status outranks `other` when aggregating."""
        return self.rank > other.rank


_RANK = {code: i for i, code in enumerate(HealthStatusCode)}


@dataclass(frozen=True, slots=True)
class HealthStatus:
    """A health assessment: a status and the message that explains it."""

    status: HealthStatusCode
    message: str = ""
