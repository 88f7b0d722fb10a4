"""Metrics every Sluice component records, on the one registry `/metrics` serves.

Workers observe into these (the API server adds its own in `app.api.metrics`); names follow
Prometheus conventions (`sluice_` prefix, base units, `_total` for counters). Label values
come from fixed sets, never from request or user data, so nothing can grow the number of
series. In `sluice up` every worker shares the API's process, so `/metrics` shows them all;
a worker running in its own process records into its own copy of this registry.

Next to them, `app.metrics.argocd` exports the series Argo CD's components export, under
Argo CD's names and labels, so an existing Argo CD dashboard reads Sluice unchanged;
`app.metrics.scrape` holds the gauges computed when the registry is scraped. The
registry also carries the process collector (`process_cpu_seconds_total`,
`process_start_time_seconds`, ...) that dashboards read for every component.

    from app.metrics import RECONCILE_DURATION
    with RECONCILE_DURATION.labels("compare").time():
        ...
"""

from prometheus_client import CollectorRegistry, Histogram, PlatformCollector, ProcessCollector

REGISTRY = CollectorRegistry()
"""The registry `/metrics` serves (not prometheus_client's global one, so a process can hold
several API servers, as tests do, without duplicate registrations)."""
ProcessCollector(registry=REGISTRY)
PlatformCollector(registry=REGISTRY)

STAGES = ("refresh", "render", "compare", "sync", "hook", "watch", "poll")
"""The `stage` label values of RECONCILE_DURATION: one per kind of work."""

RECONCILE_DURATION = Histogram(
    "sluice_reconcile_duration_seconds",
    "Seconds one handler run of a pipeline stage took (stage: " + ", ".join(STAGES) + ").",
    ["stage"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
    registry=REGISTRY,
)
GIT_FETCH_DURATION = Histogram(
    "sluice_git_fetch_duration_seconds",
    "Seconds one Git fetch (or ls-remote, op=ls_remote) took.",
    ["op"],
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120),
    registry=REGISTRY,
)
RENDER_DURATION = Histogram(
    "sluice_render_duration_seconds",
    "Seconds rendering one source at one commit took (cache misses only).",
    ["source_type"],
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
    registry=REGISTRY,
)
