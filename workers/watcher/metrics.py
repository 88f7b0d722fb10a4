"""The installation-wide Argo CD gauges, computed by the watcher replica that leads.

`argocd_app_info` (and `argocd_app_labels`, `argocd_app_condition` when configured) from
the app registry and the status store, the `argocd_cluster_*` gauges from the cluster
watches this replica runs, and `workqueue_depth` from the work consumers. Only the leader
exports them, so a dashboard's sums count every app and cluster once; a replica that stops
leading clears them. A scrape reuses the rows of the previous one for
`MetricsSettings.min_interval` seconds, so frequent scrapes cost at most one read of every
app's status per interval.
"""

import asyncio
import time
from collections.abc import Callable, Iterable

import nats.errors

from app import log
from app.bus import subjects
from app.bus.subjects import Work
from app.metrics.argocd import APPS, CLUSTERS, AppRow, ClusterRow, QueueRow
from app.model.application import Application
from app.model.health import HealthStatusCode
from app.model.sync import SyncStatusCode
from app.repo.errors import RepoURLError
from app.repo.urls import parse_repo_url
from app.runtime.runtime import Runtime
from app.store.status import StoredStatus

logger = log.get("watcher.metrics", stage="watcher")

_READ_BATCH = 64
"""Status reads in flight at once."""

QUEUES = {
    Work.REFRESH: "app_reconciliation_queue",
    Work.RENDER: "app_reconciliation_queue",
    Work.COMPARE: "app_reconciliation_queue",
    Work.SYNC: "app_operation_processing_queue",
    Work.HOOK: "app_operation_processing_queue",
}
"""Each work consumer under the name of the Argo CD controller queue doing that work."""


def repo_label(url: str) -> str:
    """The repository as Argo CD's `repo` label writes it: normalized, no credentials."""
    try:
        display = parse_repo_url(url).display
    except RepoURLError:
        return ""
    trimmed = display.rstrip("/")
    return (trimmed[: -len(".git")] if trimmed.endswith(".git") else trimmed).lower()


def app_row(app: Application, stored: StoredStatus | None, dest_server: str) -> AppRow:
    """One app's `argocd_app_info` labels (Unknown status when never compared)."""
    status = stored.status if stored is not None else None
    sources = app.spec.all_sources
    if app.metadata.deletion_timestamp:
        operation = "delete"
    elif app.operation is not None and app.operation.sync is not None:
        operation = "sync"
    else:
        operation = ""
    return AppRow(
        namespace=app.namespace,
        name=app.name,
        project=app.spec.project,
        autosync_enabled=app.spec.automated is not None,
        repo=repo_label(sources[0].repo_url) if sources else "",
        dest_server=dest_server,
        dest_namespace=app.spec.destination.namespace,
        sync_status=(status.sync.status if status else SyncStatusCode.UNKNOWN).value,
        health_status=(status.health.status if status else HealthStatusCode.UNKNOWN).value,
        operation=operation,
        labels=dict(app.metadata.labels),
        conditions=tuple(c.type for c in status.conditions) if status else (),
    )


class InstallationMetrics:
    """The scrape hook of the leading watcher (see the module docstring)."""

    def __init__(self, rt: Runtime, clusters: Callable[[], Iterable[ClusterRow]]) -> None:
        self._rt = rt
        self._clusters = clusters
        self._taken = -float("inf")
        self._lock = asyncio.Lock()

    async def refresh(self) -> None:
        async with self._lock:
            if time.monotonic() - self._taken < self._rt.settings.metrics.min_interval:
                return
            settings = self._rt.settings.metrics
            APPS.set_rows(
                await self._apps(), labels=settings.app_labels, conditions=settings.app_conditions
            )
            CLUSTERS.set_rows(list(self._clusters()), await self._queues())
            self._taken = time.monotonic()

    def clear(self) -> None:
        APPS.clear()
        CLUSTERS.clear()

    async def _apps(self) -> list[AppRow]:
        rt = self._rt
        apps = await rt.apps.all()
        rows: list[AppRow] = []
        for start in range(0, len(apps), _READ_BATCH):
            batch = apps[start : start + _READ_BATCH]
            found = await asyncio.gather(*(rt.status.read_status(app.ref) for app in batch))
            for app, stored in zip(batch, found, strict=True):
                rows.append(app_row(app, stored, rt.clusters.server_of(app.spec.destination)))
        return rows

    async def _queues(self) -> list[QueueRow]:
        depth: dict[str, int] = {}
        for kind, queue in QUEUES.items():
            name = subjects.consumer(kind)
            try:
                info = await self._rt.bus.js.consumer_info(subjects.WORK_STREAM, name)
            except (nats.errors.Error, TimeoutError) as e:
                logger.warning("metrics.consumer_unreadable", consumer=name, error=str(e))
                continue
            depth[queue] = depth.get(queue, 0) + (info.num_pending or 0)
        return [QueueRow(name, value) for name, value in depth.items()]
