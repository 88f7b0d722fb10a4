"""The cluster watcher: Applications into the registry, destination clusters into the live
cache, and a refresh whenever something an app depends on changed.

One replica leads at a time: it holds the control-plane cluster's lease (a Redis lease
per cluster, `watcher:<cluster>`), and while it does it runs the control plane
(`watching.control_plane`), the watch of the control-plane cluster as a destination, and,
under their own leases, the watches of further destination clusters. The destination
watches need the app directory the control plane fills in memory (which app deploys
where, which name its objects carry), so they run in the replica that leads the control
plane. Other replicas stand by and take over when the leader stops (at once: it releases
its leases) or dies (when its lease expires, `WatcherSettings.lease_ttl`).

The parts are described in `workers/watching/__init__.py`.
"""

import asyncio
import contextlib
import re
from collections.abc import Callable, Coroutine
from typing import Any

from app import log
from app.cluster import Cluster
from app.model.application import Application
from app.store.leases import Lease
from workers.runtime import Runtime
from workers.watching.cluster_watch import ClusterWatch
from workers.watching.control_plane import ControlPlane
from workers.watching.deletion import Deleter
from workers.watching.directory import AppDirectory
from workers.watching.leadership import lead
from workers.watching.settings import WatcherSettings

logger = log.get("watcher", stage="watcher")

_LEASE_UNSAFE = re.compile(r"[^A-Za-z0-9._:/@-]")


def lease_name(cluster: Cluster) -> str:
    """`watcher:<cluster name>`, with characters a lease name may not hold replaced."""
    return "watcher:" + _LEASE_UNSAFE.sub("-", cluster.name or "cluster")[:200]


class Watcher:
    name = "watcher"

    def __init__(self, rt: Runtime, settings: WatcherSettings | None = None) -> None:
        self._rt = rt
        self.settings = settings or WatcherSettings()
        self.directory = self._new_directory()
        self._watches: dict[int, ClusterWatch] = {}
        self._task: asyncio.Task[None] | None = None

    def _new_directory(self) -> AppDirectory:
        return AppDirectory(
            self._rt.clusters,
            control_namespace=self._rt.settings.control_plane.namespace,
            method=self._rt.settings.tracking_method,
        )

    def watch_of(self, app: Application) -> ClusterWatch | None:
        """The running watch of the cluster `app` deploys to (None if not led here)."""
        cluster = self.directory.cluster_of(app)
        return self._watches.get(id(cluster)) if cluster is not None else None

    @property
    def synced(self) -> bool:
        """True while this replica leads and its control-plane cluster's first lists are in."""
        watch = self._watches.get(id(self._rt.control_plane))
        return watch is not None and watch.synced.is_set()

    async def start(self) -> None:
        lease = Lease(self._rt.redis, lease_name(self._rt.control_plane), self.settings.lease_ttl)
        self._task = asyncio.create_task(
            lead(lease, self._lead_control_plane, what="control plane"), name="watcher"
        )
        logger.info("watcher.started", lease=lease.name)

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        logger.info("watcher.stopped")

    async def _lead_control_plane(self) -> None:
        rt, settings = self._rt, self.settings
        self.directory = self._new_directory()
        deleter = Deleter(rt.control_plane, self.watch_of, settings)
        async with asyncio.TaskGroup() as group:
            group.create_task(ControlPlane(rt, self.directory, deleter, settings).run())
            for cluster in rt.clusters.all():
                term = self._cluster_term(cluster, deleter)
                if cluster is rt.control_plane:
                    group.create_task(term())
                else:
                    lease = Lease(rt.redis, lease_name(cluster), settings.lease_ttl)
                    group.create_task(lead(lease, term, what=f"cluster {cluster.name}"))

    def _cluster_term(
        self, cluster: Cluster, deleter: Deleter
    ) -> Callable[[], Coroutine[Any, Any, None]]:
        async def term() -> None:
            watch = ClusterWatch(
                self._rt, cluster, self.directory, self.settings, on_tracked_change=deleter.nudge
            )
            self._watches[id(cluster)] = watch
            try:
                await watch.run()
            finally:
                self._watches.pop(id(cluster), None)

        return term


def build(runtime: Runtime) -> Watcher:
    timing = runtime.settings.timing
    return Watcher(runtime, WatcherSettings(refresh_window=timing.drift_refresh_window))
