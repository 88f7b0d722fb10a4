"""The API's Prometheus metrics, on one registry that `/metrics` exposes.

Every metric the API serves is declared here, so the whole set can be read on one screen;
names follow Prometheus conventions (`sluice_` prefix, `_total` for counters, base units).
Label values come from fixed sets (provider ids, outcome names), never from request data,
so no request can grow the number of series.
"""

from prometheus_client import CollectorRegistry, Counter
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

REGISTRY = CollectorRegistry()
"""The registry `/metrics` serves (not prometheus_client's global one, so tests and
embedded mode can hold several servers in one process without duplicate metrics)."""

WEBHOOK_REQUESTS = Counter(
    "sluice_webhook_requests",
    "Git host webhook requests by provider and outcome (refreshed, no_match, ignored, "
    "unauthorized, bad_payload, unknown_event, too_large, timeout, method_not_allowed, "
    "unavailable).",
    ["provider", "outcome"],
    registry=REGISTRY,
)
WEBHOOK_REFRESHES = Counter(
    "sluice_webhook_refreshes",
    "Refresh requests published for Applications matched by a webhook, by provider.",
    ["provider"],
    registry=REGISTRY,
)


def exposition() -> tuple[bytes, str]:
    """The current metrics in Prometheus text format, and the content type to serve them as."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
