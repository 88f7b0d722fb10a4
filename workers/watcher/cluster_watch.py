"""One destination cluster, watched: every listable type, the apps deploying there, kept current.

While this replica leads the cluster:

- Discovery lists the served types; every type that supports list and watch (less
  `settings.not_watched`) gets a resumable LIST+WATCH (`app.cluster.watching`: a dropped
  watch resumes from its resourceVersion, a 410 relists and delivers only differences),
  one task per type. A cluster whose Secret limits it to namespaces (`app.runtime.clusters.
  Scope`) gets one watch per type and namespace, and its cluster-scoped types are not
  watched unless the Secret sets `clusterResources`. Discovery is refreshed once the
  first lists are in, and whenever a CustomResourceDefinition appears or changes, so a
  new type is watched; a type no longer served is dropped with its objects.
- A watch that fails for good (permission refused) is logged with what to grant and
  started again after a growing pause (its objects kept meanwhile, the ones that vanished
  removed by its next first list); it does not hold up the apps' first warm-up.
- Every event updates the index; the app tracking the object (and the apps tracking its
  owners, for health) get their live cache, refresh and tree updated through the flusher.
- When the system settings change (new Lua health checks), every app's tree is written
  again, its health assessed under the checks now in force.
- Once the first list of every type is in, every app deploying here is warmed
  (`LiveCache.replace`, kept by this term's lease token), and apps registered later as
  they appear. Until then, and after this replica stops leading, their caches are COLD:
  nothing is pruned or judged Missing on a picture nobody keeps current. A replica that
  stops leading because another took the lease (Redis lost it: a flush, a restart) leaves
  the caches alone: the new leader cooled them when it began and warms them from its own
  lists, and its in-memory record of what it warmed must stay true.
"""

import asyncio
import contextlib
import time
from collections.abc import Callable

from app import log
from app.cluster import (
    Cluster,
    ClusterError,
    EventType,
    NotFound,
    ResourceType,
    Synced,
    WatchEvent,
)
from app.engine.orphans import orphans
from app.engine.refresh_triggers import object_change
from app.engine.resource_tree import ResourceTree, resource_tree, tree_node
from app.engine.system_settings import SystemSettings
from app.metrics.argocd import CLUSTER_EVENTS, ClusterRow
from app.model.application import Application
from app.model.cluster_secret import IN_CLUSTER_NAME, IN_CLUSTER_SERVER
from app.model.identity import AppRef
from app.model.resource import GroupKind, KubeObject, metadata
from app.runtime.runtime import Runtime
from app.store.leases import Lease
from workers.watcher.directory import AppDirectory
from workers.watcher.flusher import FAILURES, Flusher
from workers.watcher.index import Entry, ObjectIndex
from workers.watcher.settings import WatcherSettings

logger = log.get("watcher.cluster", stage="watcher")

CRD = GroupKind("apiextensions.k8s.io", "CustomResourceDefinition")
MAX_RETRY_DELAY = 60.0
"""Longest pause before a failed watch is started again."""


class ClusterWatch:
    """The watch of one destination cluster while this replica leads it."""

    def __init__(
        self,
        rt: Runtime,
        cluster: Cluster,
        directory: AppDirectory,
        settings: WatcherSettings,
        *,
        lease: Lease,
        on_tracked_change: Callable[[AppRef], None],
    ) -> None:
        self._rt = rt
        self.cluster = cluster
        self._lease = lease
        self._directory = directory
        self._settings = settings
        self._on_tracked_change = on_tracked_change
        self._log = logger.bind(cluster=cluster.name)
        self._index = ObjectIndex(rt.settings.tracking_method, lambda: rt.system.health)
        self._flusher = Flusher(rt, settings, self, cluster=cluster.name, keeper=lease.token)
        self._watches: dict[GroupKind, asyncio.Task[None]] = {}
        self._scope = rt.clusters.scope_of(cluster)
        self._unlisted: set[tuple[GroupKind, str]] = set()
        """(type, namespace) watches whose first list is not in yet ("" for all namespaces)."""
        self._mine: set[AppRef] = set()
        self._orphans_of: dict[AppRef, str] = {}
        """Apps whose project monitors orphans, and the namespace they are looked for in."""
        self._rediscover = asyncio.Event()
        self.synced = asyncio.Event()
        """Set once the first list of every watched type is in (the caches are warm)."""
        control = cluster is rt.control_plane
        self._server = IN_CLUSTER_SERVER if control else cluster.config.server
        self._name = IN_CLUSTER_NAME if control else cluster.name
        """As Argo CD names clusters: the control plane is `in-cluster`."""
        self._synced_at: float | None = None
        self._failing: set[tuple[GroupKind, str]] = set()
        """(type, namespace) watches failing now (the cluster refused or did not answer)."""

    def stats(self) -> ClusterRow:
        """This cluster as the `argocd_cluster_*` gauges show it."""
        age = -1.0 if self._synced_at is None else time.time() - self._synced_at
        return ClusterRow(
            server=self._server,
            name=self._name,
            k8s_version="",
            objects=len(self._index),
            api_resources=len(self._watches),
            cache_age_seconds=age,
            connected=self.synced.is_set() and not self._failing,
        )

    # What the flusher and the control plane read.

    def tracked(self, ref: AppRef) -> list[KubeObject] | None:
        """The objects the app tracks; None while the directory does not know the app yet
        (its tracking name is unknown, so "nothing" would be a guess)."""
        name = self._directory.name_of(ref)
        return self._index.tracked(name) if name is not None else None

    def tree(self, ref: AppRef) -> ResourceTree:
        tracked = self.tracked(ref) or []
        tree = resource_tree(tracked, self._index.children, self._index.health_of)
        app = self._directory.get(ref)
        policy = self._directory.orphan_policy(app.spec.project) if app is not None else None
        namespace = app.spec.destination.namespace if app is not None else ""
        if policy is None or not namespace:
            self._orphans_of.pop(ref, None)
            return tree
        self._orphans_of[ref] = namespace
        candidates = {e.key: e.obj for e in self._index.untracked_top_level(namespace)}
        found = orphans(candidates, policy)
        tree.orphaned.extend(tree_node(candidates[key], self._index.health_of) for key in found)
        return tree

    def deploys_here(self, app: Application) -> bool:
        return self._directory.cluster_of(app) is self.cluster

    # Directory listener.

    def app_upserted(self, ref: AppRef, app: Application) -> None:
        if not self.deploys_here(app):
            if ref in self._mine:
                self._mine.discard(ref)
                self._flusher.forget(ref)
            return
        self._mine.add(ref)
        if self.synced.is_set() and ref not in self._flusher.warmed:
            self._flusher.warm(ref)

    def app_removed(self, ref: AppRef) -> None:
        self._orphans_of.pop(ref, None)
        if ref in self._mine:
            self._mine.discard(ref)
            self._flusher.forget(ref)

    def project_changed(self, name: str) -> None:
        """A project's orphanedResources changed: its apps' trees are written again."""
        for ref in self._mine:
            app = self._directory.get(ref)
            if app is not None and app.spec.project == name:
                self._flusher.tree_changed(ref)

    # The job.

    async def run(self) -> None:
        """Watch until cancelled; the apps' caches are COLD before and after."""
        self._directory.listen(self)
        unsubscribe = self._rt.system.subscribe(self._settings_changed)
        tasks: list[asyncio.Task[None]] = []
        try:
            registered = [a for a in await self._rt.apps.all() if self.deploys_here(a)]
            self._mine.update(AppRef(a.namespace, a.name) for a in registered)
            self._mine.update(
                ref
                for ref in self._directory.refs()
                if (app := self._directory.get(ref)) is not None and self.deploys_here(app)
            )
            await self._flusher.cool(self._mine, "the cluster watcher is listing the cluster")
            tasks.append(asyncio.create_task(self._flusher.run(), name="watcher flusher"))
            await self._follow(await self._discover())
            self._log.info("watch.started", types=len(self._watches))
            tasks.append(asyncio.create_task(self._discovery_loop(), name="watcher discovery"))
            await asyncio.gather(*tasks)
        finally:
            unsubscribe()
            self._directory.unlisten(self)
            for task in [*tasks, *self._watches.values()]:
                task.cancel()
            await asyncio.gather(*tasks, *self._watches.values(), return_exceptions=True)
            self._watches.clear()
            with contextlib.suppress(*FAILURES):
                await self._step_down()

    async def _step_down(self) -> None:
        """Cool the caches this term warmed, unless another replica leads now."""
        if await self._lease.held_by_another():
            self._log.info(
                "live.handed_over",
                apps=len(self._mine),
                reason="another replica leads this cluster now and keeps its apps' caches",
            )
            return
        await self._flusher.cool_mine(
            self._mine, "the cluster watcher stopped leading this cluster"
        )

    async def _settings_changed(self, _settings: SystemSettings) -> None:
        """New health checks may judge every object differently: rewrite every tree."""
        for ref in self._mine:
            self._flusher.tree_changed(ref)
        self._log.info("watch.trees_reassessed", apps=len(self._mine), reason="settings changed")

    async def _discover(self) -> list[ResourceType]:
        self.cluster.invalidate()
        settings = self._settings
        return [
            rt
            for rt in await self.cluster.resource_types()
            if rt.can("list")
            and rt.can("watch")
            and rt.group not in settings.not_watched_groups
            and rt.group_kind not in settings.not_watched
            and (rt.namespaced or self._scope.cluster_resources)
        ]

    def _namespaces(self, rt: ResourceType) -> tuple[str, ...]:
        """Where a type is watched: every namespace (""), or the scope's namespaces."""
        return self._scope.namespaces if rt.namespaced and self._scope.namespaces else ("",)

    async def _discovery_loop(self) -> None:
        """Refresh discovery whenever a CRD changed; watch new types, drop removed ones."""
        while True:
            await self._rediscover.wait()
            self._rediscover.clear()
            try:
                types = await self._discover()
            except ClusterError as e:
                self._log.warning("discovery.failed", error=str(e), retry_in=1.0)
                await asyncio.sleep(self._settings.retry_delay)
                self._rediscover.set()
                continue
            await self._follow(types)

    async def _follow(self, types: list[ResourceType]) -> None:
        wanted = {rt.group_kind: rt for rt in types}
        for group_kind in [gk for gk in self._watches if gk not in wanted]:
            await self._unwatch(group_kind, "no longer served")
        for group_kind, rt in wanted.items():
            if group_kind not in self._watches:
                self._unlisted.update((group_kind, ns) for ns in self._namespaces(rt))
                self._watches[group_kind] = asyncio.create_task(
                    self._watch(rt), name=f"watch {rt.qualified}"
                )
                if self.synced.is_set():
                    self._log.info("watch.added", kind=str(group_kind), version=rt.version)

    async def _unwatch(self, group_kind: GroupKind, reason: str) -> None:
        task = self._watches.pop(group_kind, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        for entry in self._index.remove_kind(group_kind):
            self._changed(entry, None)
        self._failing = {key for key in self._failing if key[0] != group_kind}
        for key in [key for key in self._unlisted if key[0] == group_kind]:
            self._listed(*key)
        self._log.info("watch.removed", kind=str(group_kind), reason=reason)

    async def _watch(self, rt: ResourceType) -> None:
        """Follow one type, in every namespace it is watched in; a type no longer served
        is dropped."""
        reasons = await asyncio.gather(*(self._watch_in(rt, ns) for ns in self._namespaces(rt)))
        await self._unwatch(rt.group_kind, reasons[0])

    async def _watch_in(self, rt: ResourceType, namespace: str) -> str:
        """Follow one type in one namespace ("" for all) until it is no longer served
        (returns why). A watch that fails for good (permission refused...) is reported
        and started again after a growing pause, and its first list then removes what
        vanished meanwhile."""
        failures = 0
        while True:
            seen: set[str] | None = set() if failures else None
            try:
                async with self.cluster.watch(
                    rt.api_version, rt.kind, namespace=namespace
                ) as events:
                    async for event in events:
                        if isinstance(event, Synced):
                            if seen is not None:
                                self._forget_unseen(rt.group_kind, seen, namespace)
                                seen = None
                            failures = 0
                            self._failing.discard((rt.group_kind, namespace))
                            self._listed(rt.group_kind, namespace)
                            continue
                        if seen is not None:
                            seen.add(str(metadata(event.object).get("uid") or ""))
                        self._on_event(rt, event)
            except NotFound as e:
                return str(e)
            except ClusterError as e:
                failures += 1
                self._failing.add((rt.group_kind, namespace))
                delay = min(MAX_RETRY_DELAY, self._settings.retry_delay * 2 ** (failures - 1))
                self._log.warning(
                    "watch.failed",
                    kind=str(rt.group_kind),
                    namespace=namespace or None,
                    error=str(e),
                    retry_in=delay,
                    hint=f"grant list and watch on {rt.qualified} to Sluice's credentials",
                )
                self._listed(rt.group_kind, namespace)
                await asyncio.sleep(delay)

    def _forget_unseen(self, group_kind: GroupKind, seen: set[str], namespace: str) -> None:
        for entry in self._index.of_kind(group_kind):
            if entry.uid not in seen and (not namespace or entry.key.namespace == namespace):
                self._index.remove_uid(entry.uid)
                self._changed(entry, None)

    def _listed(self, group_kind: GroupKind, namespace: str) -> None:
        self._unlisted.discard((group_kind, namespace))
        if not self._unlisted and not self.synced.is_set():
            self.synced.set()
            self._synced_at = time.time()
            self._rediscover.set()
            for ref in self._mine:
                self._flusher.warm(ref)
            self._log.info("watch.synced", objects=len(self._index), apps=len(self._mine))
            for ref in self._mine:
                self._on_tracked_change(ref)

    def _on_event(self, rt: ResourceType, event: WatchEvent) -> None:
        CLUSTER_EVENTS.labels(self._server, rt.group, rt.kind).inc()
        if event.type is EventType.DELETED:
            entry = self._index.remove(event.object)
            if entry is not None:
                self._changed(entry, None)
        else:
            entry, previous = self._index.upsert(event.object)
            if previous is not None and previous.tracked_by not in (None, entry.tracked_by):
                self._changed(previous, None)
            self._changed(entry, entry.raw)
        if rt.group_kind == CRD and self.synced.is_set():
            self._rediscover.set()

    def _changed(self, entry: Entry, raw: bytes | None) -> None:
        """Route one object's change (its JSON, None if gone) to the apps it concerns."""
        if entry.tracked_by is not None:
            ref = self._directory.ref_for(entry.tracked_by)
            if ref is not None and ref in self._mine:
                self._note(ref, entry, managed=True)
                if ref in self._flusher.warmed:
                    self._flusher.object_changed(ref, entry.key, raw)
                elif self.synced.is_set():
                    self._flusher.warm(ref)
                self._on_tracked_change(ref)
        if not self.synced.is_set():
            return
        if entry.untracked_top_level:
            for ref, namespace in self._orphans_of.items():
                if namespace == entry.key.namespace:
                    self._flusher.tree_changed(ref)
        for name in self._index.owning_apps(entry):
            ref = self._directory.ref_for(name)
            if ref is not None and ref in self._mine:
                self._note(ref, entry, managed=False)

    def _note(self, ref: AppRef, entry: Entry, *, managed: bool) -> None:
        if self.synced.is_set():
            self._flusher.ask(ref, object_change(entry.key.kind, entry.key.name, managed=managed))
            self._flusher.tree_changed(ref)
