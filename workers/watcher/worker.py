"""The cluster watcher: Applications into the registry, destination clusters into the live
cache, and a refresh whenever something an app depends on changed.

One replica leads at a time: it holds the control-plane cluster's lease (a Redis lease
per cluster, `watcher:<cluster>`), and while it does it runs the control plane
(`watching.control_plane`), the watch of the control-plane cluster as a destination, and,
under their own leases (`watcher:<server>`), the watches of the destination clusters
registered by cluster Secrets. Those follow the registry (`app.runtime.clusters`): a cluster
registered while the watcher leads is watched at once, one unregistered stops being
watched (its apps' caches go COLD), and one whose Secret changed (rotated credentials) is
watched again through its new connection. The destination watches need the app directory
the control plane fills in memory (which app deploys where, which name its objects
carry), so they run in the replica that leads the control plane. Other replicas stand by
and take over when the leader stops (at once: it releases its leases) or dies (when its
lease expires, `WatcherSettings.lease_ttl`).

The parts are described in `workers/watcher/__init__.py`.
"""

import asyncio
import contextlib
import re
from collections.abc import Callable, Coroutine
from typing import Any

from app import log
from app.cluster import Cluster
from app.metrics.scrape import HOOKS
from app.model.application import Application
from app.runtime.clusters import ClusterChange
from app.runtime.runtime import Runtime
from app.store.leases import Lease
from workers.watcher.cluster_watch import ClusterWatch
from workers.watcher.control_plane import ControlPlane
from workers.watcher.deletion import Deleter
from workers.watcher.directory import AppDirectory
from workers.watcher.leadership import lead
from workers.watcher.metrics import InstallationMetrics
from workers.watcher.settings import WatcherSettings

logger = log.get("watcher", stage="watcher")

_LEASE_UNSAFE = re.compile(r"[^A-Za-z0-9._:/@-]")


def lease_name(cluster: Cluster, *, by_server: bool = False) -> str:
    """`watcher:<cluster name>` (`watcher:<server URL>` for a registered cluster, whose
    name may be anything), with characters a lease name may not hold replaced."""
    key = cluster.config.server if by_server else cluster.name
    return "watcher:" + _LEASE_UNSAFE.sub("-", key or "cluster")[:200]


class Watcher:
    name = "watcher"

    def __init__(self, rt: Runtime, settings: WatcherSettings | None = None) -> None:
        self._rt = rt
        self.settings = settings or WatcherSettings()
        self.directory = self._new_directory()
        self._watches: dict[int, ClusterWatch] = {}
        self._task: asyncio.Task[None] | None = None
        self._lease = Lease(rt.redis, lease_name(rt.control_plane), self.settings.lease_ttl)

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
        lease = self._lease
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
        deleter = Deleter(rt, self.watch_of, settings)
        metrics = InstallationMetrics(rt, lambda: [w.stats() for w in self._watches.values()])
        remove = HOOKS.add("watcher", metrics.refresh)
        try:
            async with asyncio.TaskGroup() as group:
                group.create_task(ControlPlane(rt, self.directory, deleter, settings).run())
                group.create_task(self._cluster_term(rt.control_plane, deleter, self._lease)())
                group.create_task(self._follow_registered(deleter))
        finally:
            remove()
            metrics.clear()

    async def _follow_registered(self, deleter: Deleter) -> None:
        """Watch every cluster registered by a Secret, each under its own lease, starting
        and stopping the watches as the registry changes."""
        rt = self._rt
        changed = asyncio.Event()

        async def heard(_change: ClusterChange) -> None:
            changed.set()

        unsubscribe = rt.clusters.subscribe(heard)
        leading: dict[Cluster, asyncio.Task[None]] = {}
        try:
            while True:
                changed.clear()
                wanted = {entry.cluster: entry for entry in rt.clusters.registered()}
                for cluster in [c for c in leading if c not in wanted]:
                    task = leading.pop(cluster)
                    task.cancel()
                    await asyncio.gather(task, return_exceptions=True)
                    logger.info("watcher.cluster_dropped", cluster=cluster.name)
                for cluster, entry in wanted.items():
                    if cluster in leading:
                        continue
                    lease = Lease(
                        rt.redis, lease_name(cluster, by_server=True), self.settings.lease_ttl
                    )
                    term = self._cluster_term(cluster, deleter, lease)
                    leading[cluster] = asyncio.create_task(
                        lead(lease, term, what=f"cluster {cluster.name}"),
                        name=f"watcher {cluster.name}",
                    )
                    logger.info(
                        "watcher.cluster_added",
                        cluster=cluster.name,
                        server=entry.record.server,
                        secret=entry.record.secret,
                        lease=lease.name,
                    )
                await changed.wait()
        finally:
            unsubscribe()
            for task in leading.values():
                task.cancel()
            await asyncio.gather(*leading.values(), return_exceptions=True)

    def _cluster_term(
        self, cluster: Cluster, deleter: Deleter, lease: Lease
    ) -> Callable[[], Coroutine[Any, Any, None]]:
        """The watch of `cluster` while `lease` is held."""

        async def term() -> None:
            watch = ClusterWatch(
                self._rt,
                cluster,
                self.directory,
                self.settings,
                lease=lease,
                on_tracked_change=deleter.nudge,
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
