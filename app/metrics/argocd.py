"""Argo CD's series, under Argo CD's names, types, labels and label values.

An Argo CD dashboard or alert queries these; Sluice exports them next to its `sluice_`
series, each from the process that does the work Argo CD's component does:

- `argocd_app_info` (gauge; namespace, name, project, autosync_enabled, repo,
  dest_server, dest_namespace, sync_status, health_status, operation), `argocd_app_labels`
  (`label_<key>` per `SLUICE_METRICS_APPLICATION_LABELS`), `argocd_app_condition`
  (condition, per `SLUICE_METRICS_APPLICATION_CONDITIONS`): the leading watcher.
- `argocd_cluster_info` (server, k8s_version, name), `argocd_cluster_api_resource_objects`,
  `argocd_cluster_api_resources`, `argocd_cluster_cache_age_seconds` (server),
  `argocd_cluster_connection_status` (server, k8s_version), `workqueue_depth` (name:
  `app_reconciliation_queue`, `app_operation_processing_queue`): the leading watcher.
- `argocd_cluster_events_total` (counter; server, group, kind): the watcher.
- `argocd_app_reconcile` (histogram; namespace, dest_server): the compare worker.
- `argocd_app_sync_total` (counter; namespace, name, project, dest_server, phase,
  dry_run): the sync and hook workers, when an operation ends.
- `argocd_git_request_total`, `argocd_git_request_duration_seconds` (repo, request_type:
  `ls-remote`, `fetch`): whoever runs git (render, poller, sync).
- `argocd_app_k8s_request_total` (namespace, name, project, server, response_code, verb,
  resource_kind, resource_namespace, dry_run) and `argocd_redis_request_total`
  (initiator, failed): every process.

The app and cluster gauges describe the whole installation, so exactly one process
exports them (the watcher replica that leads, as one Argo CD controller shard owns an
app): a dashboard's `sum(argocd_app_info)` counts every app once however many replicas
run. They are computed when the registry is scraped (`app.metrics.scrape`), from rows
the watcher hands to `APPS` and `CLUSTERS`.
"""

import contextlib
import contextvars
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from prometheus_client import Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from app.metrics import REGISTRY
from app.metrics.kube_requests import request_labels

APP_LABELS = ("namespace", "name", "project")
"""Argo CD's default labels of every per-app series."""

SYNC_TOTAL = Counter(
    "argocd_app_sync_total",
    "Number of application syncs (operations that ended), by phase.",
    [*APP_LABELS, "dest_server", "phase", "dry_run"],
    registry=REGISTRY,
)
APP_RECONCILE = Histogram(
    "argocd_app_reconcile",
    "Application reconciliation (one comparison) performance in seconds.",
    ["namespace", "dest_server"],
    buckets=(0.25, 0.5, 1, 2, 4, 8, 16),
    registry=REGISTRY,
)
K8S_REQUESTS = Counter(
    "argocd_app_k8s_request_total",
    "Number of Kubernetes requests executed during application reconciliation.",
    [
        *APP_LABELS,
        "server",
        "response_code",
        "verb",
        "resource_kind",
        "resource_namespace",
        "dry_run",
    ],
    registry=REGISTRY,
)
CLUSTER_EVENTS = Counter(
    "argocd_cluster_events_total",
    "Number of processed Kubernetes resource events.",
    ["server", "group", "kind"],
    registry=REGISTRY,
)
GIT_REQUESTS = Counter(
    "argocd_git_request_total",
    "Number of git requests performed (request_type: ls-remote, fetch).",
    ["repo", "request_type"],
    registry=REGISTRY,
)
GIT_REQUEST_DURATION = Histogram(
    "argocd_git_request_duration_seconds",
    "Git requests duration seconds.",
    ["repo", "request_type"],
    buckets=(0.1, 0.25, 0.5, 1, 2, 4, 10, 20),
    registry=REGISTRY,
)
REDIS_REQUESTS = Counter(
    "argocd_redis_request_total",
    "Number of Redis requests (a pipeline counts once), by the process making them.",
    ["initiator", "failed"],
    registry=REGISTRY,
)

_APP: contextvars.ContextVar[tuple[str, str, str]] = contextvars.ContextVar(
    "argocd_metrics_app", default=("", "", "")
)


@contextlib.contextmanager
def for_app(namespace: str, name: str, project: str = "") -> Iterator[None]:
    """Kubernetes requests made inside count for this app (Argo CD labels them so)."""
    token = _APP.set((namespace, name, project))
    try:
        yield
    finally:
        _APP.reset(token)


def count_k8s_request(
    server: str, method: str, path: str, query: Sequence[tuple[str, str]], status: int
) -> None:
    """One request to an API server; `status` 0 when no answer came."""
    labels = request_labels(method, path, query)
    dry_run = any(key == "dryRun" for key, _ in query)
    K8S_REQUESTS.labels(
        *_APP.get(),
        server,
        str(status),
        labels.verb,
        labels.resource_kind,
        labels.resource_namespace,
        str(dry_run).lower(),
    ).inc()


def count_sync(
    namespace: str, name: str, project: str, dest_server: str, phase: str, *, dry_run: bool
) -> None:
    SYNC_TOTAL.labels(namespace, name, project, dest_server, phase, str(dry_run).lower()).inc()


def count_redis_request(initiator: str, *, failed: bool) -> None:
    REDIS_REQUESTS.labels(initiator, str(failed).lower()).inc()


def observe_git_request(repo: str, request_type: str, seconds: float) -> None:
    GIT_REQUESTS.labels(repo, request_type).inc()
    GIT_REQUEST_DURATION.labels(repo, request_type).observe(seconds)


@dataclass(frozen=True, slots=True)
class AppRow:
    """One Application as `argocd_app_info` and its siblings show it."""

    namespace: str
    name: str
    project: str
    autosync_enabled: bool
    repo: str
    dest_server: str
    dest_namespace: str
    sync_status: str
    health_status: str
    operation: str
    labels: dict[str, str] = field(default_factory=dict)
    conditions: tuple[str, ...] = ()
    """The types of the app's status conditions (one entry per condition)."""


@dataclass(frozen=True, slots=True)
class ClusterRow:
    server: str
    name: str
    k8s_version: str
    objects: int
    api_resources: int
    cache_age_seconds: float
    """-1 when the cache was never synced."""
    connected: bool


@dataclass(frozen=True, slots=True)
class QueueRow:
    name: str
    depth: int


def label_name(key: str) -> str:
    """`label_<key>` with every character Prometheus refuses in a label name as `_`."""
    return "label_" + "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in key)


class AppCollector(Collector):
    """`argocd_app_info`, `argocd_app_labels`, `argocd_app_condition` from the rows set last."""

    def __init__(self) -> None:
        self._rows: list[AppRow] = []
        self._labels: tuple[str, ...] = ()
        self._conditions: frozenset[str] = frozenset()

    def set_rows(
        self, rows: Iterable[AppRow], *, labels: Sequence[str], conditions: Iterable[str]
    ) -> None:
        self._rows = list(rows)
        self._labels = tuple(labels)
        self._conditions = frozenset(conditions)

    def clear(self) -> None:
        self._rows = []

    def collect(self) -> Iterator[Metric]:
        info = GaugeMetricFamily(
            "argocd_app_info",
            "Information about application.",
            labels=[
                *APP_LABELS,
                "autosync_enabled",
                "repo",
                "dest_server",
                "dest_namespace",
                "sync_status",
                "health_status",
                "operation",
            ],
        )
        for r in self._rows:
            info.add_metric(
                [
                    r.namespace,
                    r.name,
                    r.project,
                    str(r.autosync_enabled).lower(),
                    r.repo,
                    r.dest_server,
                    r.dest_namespace,
                    r.sync_status,
                    r.health_status,
                    r.operation,
                ],
                1,
            )
        yield info
        if self._labels:
            labelled = GaugeMetricFamily(
                "argocd_app_labels",
                "Argo Application labels converted to Prometheus labels",
                labels=[*APP_LABELS, *(label_name(k) for k in self._labels)],
            )
            for r in self._rows:
                values = [r.labels.get(k, "") for k in self._labels]
                labelled.add_metric([r.namespace, r.name, r.project, *values], 1)
            yield labelled
        if self._conditions:
            conditions = GaugeMetricFamily(
                "argocd_app_condition",
                "Report application conditions.",
                labels=[*APP_LABELS, "condition"],
            )
            for r in self._rows:
                for kind in sorted(set(r.conditions) & self._conditions):
                    conditions.add_metric(
                        [r.namespace, r.name, r.project, kind], r.conditions.count(kind)
                    )
            yield conditions


class ClusterCollector(Collector):
    """The `argocd_cluster_*` gauges and `workqueue_depth` from the rows set last."""

    def __init__(self) -> None:
        self._clusters: list[ClusterRow] = []
        self._queues: list[QueueRow] = []

    def set_rows(self, clusters: Iterable[ClusterRow], queues: Iterable[QueueRow]) -> None:
        self._clusters = list(clusters)
        self._queues = list(queues)

    def clear(self) -> None:
        self._clusters, self._queues = [], []

    def collect(self) -> Iterator[Metric]:
        info = GaugeMetricFamily(
            "argocd_cluster_info",
            "Information about cluster.",
            labels=["server", "k8s_version", "name"],
        )
        objects = GaugeMetricFamily(
            "argocd_cluster_api_resource_objects",
            "Number of k8s resource objects in the cache.",
            labels=["server"],
        )
        apis = GaugeMetricFamily(
            "argocd_cluster_api_resources",
            "Number of monitored kubernetes API resources.",
            labels=["server"],
        )
        age = GaugeMetricFamily(
            "argocd_cluster_cache_age_seconds", "Cluster cache age in seconds.", labels=["server"]
        )
        connection = GaugeMetricFamily(
            "argocd_cluster_connection_status",
            "The k8s cluster current connection status.",
            labels=["server", "k8s_version"],
        )
        for c in self._clusters:
            info.add_metric([c.server, c.k8s_version, c.name], 1)
            objects.add_metric([c.server], c.objects)
            apis.add_metric([c.server], c.api_resources)
            age.add_metric([c.server], c.cache_age_seconds)
            connection.add_metric([c.server, c.k8s_version], 1 if c.connected else 0)
        depth = GaugeMetricFamily("workqueue_depth", "Current depth of workqueue", labels=["name"])
        for q in self._queues:
            depth.add_metric([q.name], q.depth)
        yield from (info, objects, apis, age, connection, depth)


APPS = AppCollector()
CLUSTERS = ClusterCollector()
REGISTRY.register(APPS)
REGISTRY.register(CLUSTERS)
