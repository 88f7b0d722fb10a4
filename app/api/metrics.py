"""The API's Prometheus metrics, on the registry `/metrics` serves (`app.metrics.REGISTRY`).

Counters the API itself increments (webhooks, requests) and gauges computed when
`/metrics` is scraped: apps by sync and health status and by operation phase (from the
status store), and per work consumer its queue depth, unacknowledged and redelivered
messages (from JetStream consumer info). A scrape-time snapshot is reused for
`metrics_min_interval` seconds so that frequent scrapes cost at most one read of every
app's status per interval. Label values come from fixed sets (provider ids, outcomes,
status codes, route ids), never from request data, so no request can grow the series.
"""

import asyncio
import time
from collections import Counter as Tally

import nats.errors
from prometheus_client import Counter, Gauge
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

from app import log
from app.bus import subjects
from app.bus.subjects import Work
from app.metrics import REGISTRY
from app.model.health import HealthStatusCode
from app.model.identity import AppRef
from app.model.sync import OperationPhase, SyncStatusCode
from app.runtime.runtime import Runtime

logger = log.get("api")

__all__ = ["REGISTRY"]

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
API_REQUESTS = Counter(
    "sluice_api_requests",
    "REST API requests by route (operation id), method and HTTP status code.",
    ["route", "method", "code"],
    registry=REGISTRY,
)
APPS = Gauge(
    "sluice_apps",
    "Applications by sync status and health status (Unknown when never compared).",
    ["sync_status", "health_status"],
    registry=REGISTRY,
)
OPERATIONS = Gauge(
    "sluice_app_operations",
    "Applications by the phase of their current or last sync operation.",
    ["phase"],
    registry=REGISTRY,
)
QUEUE_PENDING = Gauge(
    "sluice_queue_pending_messages",
    "Work messages waiting to be delivered, per consumer (queue depth).",
    ["consumer"],
    registry=REGISTRY,
)
QUEUE_ACK_PENDING = Gauge(
    "sluice_queue_ack_pending_messages",
    "Work messages delivered and not yet acknowledged, per consumer.",
    ["consumer"],
    registry=REGISTRY,
)
QUEUE_REDELIVERED = Gauge(
    "sluice_queue_redelivered_messages",
    "Work messages delivered more than once and not yet acknowledged, per consumer.",
    ["consumer"],
    registry=REGISTRY,
)

_READ_BATCH = 64
"""Status reads in flight at once while counting apps."""


class Snapshot:
    """Refreshes the scrape-time gauges at most once per interval."""

    def __init__(self, rt: Runtime, min_interval: float) -> None:
        self._rt = rt
        self._min_interval = min_interval
        self._taken = -float("inf")
        self._lock = asyncio.Lock()

    async def refresh(self) -> None:
        async with self._lock:
            if time.monotonic() - self._taken < self._min_interval:
                return
            await self._apps()
            await self._queues()
            self._taken = time.monotonic()

    async def _apps(self) -> None:
        names = await self._rt.apps.names()
        states: Tally[tuple[str, str]] = Tally()
        phases: Tally[str] = Tally()
        refs = [AppRef(ns, name) for ns, name in names]
        for start in range(0, len(refs), _READ_BATCH):
            batch = refs[start : start + _READ_BATCH]
            for stored in await asyncio.gather(*(self._rt.status.read_status(r) for r in batch)):
                if stored is None:
                    states[(SyncStatusCode.UNKNOWN.value, HealthStatusCode.UNKNOWN.value)] += 1
                    continue
                status = stored.status
                states[(status.sync.status.value, status.health.status.value)] += 1
                if status.operation_state is not None:
                    phases[status.operation_state.phase.value] += 1
        for sync in SyncStatusCode:
            for health in HealthStatusCode:
                APPS.labels(sync.value, health.value).set(states[(sync.value, health.value)])
        for phase in OperationPhase:
            OPERATIONS.labels(phase.value).set(phases[phase.value])

    async def _queues(self) -> None:
        for kind in Work:
            name = subjects.consumer(kind)
            try:
                info = await self._rt.bus.js.consumer_info(subjects.WORK_STREAM, name)
            except (nats.errors.Error, TimeoutError) as e:
                logger.warning("metrics.consumer_unreadable", consumer=name, error=str(e))
                continue
            QUEUE_PENDING.labels(name).set(info.num_pending or 0)
            QUEUE_ACK_PENDING.labels(name).set(info.num_ack_pending or 0)
            QUEUE_REDELIVERED.labels(name).set(info.num_redelivered or 0)


def exposition() -> tuple[bytes, str]:
    """The current metrics in Prometheus text format, and the content type to serve them as."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
