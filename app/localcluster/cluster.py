"""`LocalCluster`: the server, its state, its reconcilers, started and stopped as one.

    async with LocalCluster(LocalClusterSettings(...)) as cluster:
        cluster.kubeconfig_path, cluster.url      # for kubectl / kubernetes-asyncio
        cluster.faults.configure(error_rate=0.1)  # levers for reliability tests
        cluster.drop_watches()
        cluster.timing.delay_seconds = 2          # simulated workloads take 2 s from now

`start()` and `stop()` are plain async methods so `sluice up` can own the lifecycle.
"""

import asyncio
import shutil
import tempfile
from pathlib import Path

from aiohttp import web

from app import log
from app.localcluster import argocd, controllers, kubeconfig, snapshot, system
from app.localcluster.api import writes
from app.localcluster.api.options import WriteOptions
from app.localcluster.api.server import NAMESPACES, ApiServer
from app.localcluster.builtin import BUILTIN_TYPES
from app.localcluster.controllers.common import Timing
from app.localcluster.crds import CRDS
from app.localcluster.eventlog import ADDED, Change, EventLog
from app.localcluster.faults import Faults
from app.localcluster.resources import GroupResource, Registry
from app.localcluster.runtime import Runtime
from app.localcluster.settings import LocalClusterSettings
from app.localcluster.store import Store
from app.localcluster.web import app as webapp
from app.localcluster.web.context import Context
from app.localcluster.web.discovery import Discovery
from app.localcluster.web.openapi import OpenApi
from app.localcluster.web.watch import WatchLimits
from app.model.resource import KubeObject

logger = log.get("localcluster")

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
MANAGER = "localcluster"


class LocalCluster:
    """An in-process Kubernetes-API-compatible server with simulated controllers."""

    def __init__(self, settings: LocalClusterSettings | None = None) -> None:
        self.settings = settings or LocalClusterSettings()
        self.registry = Registry()
        for rt in BUILTIN_TYPES:
            self.registry.add(rt)
        self.events = EventLog(self.settings.watch.history)
        self.store = Store(self.events)
        self.api = ApiServer(self.registry, self.store)
        self.runtime = Runtime(self.events)
        system.register(self.runtime, self.api, self.settings.event_ttl_seconds)
        self.timing = Timing(self.settings.controllers.delay_seconds)
        """Lever: `cluster.timing.delay_seconds = 2` slows every simulated workload from now."""
        if self.settings.controllers.enabled:
            controllers.register(self.runtime, self.api, self.timing)
        self.faults = Faults(self.settings.faults, self.settings.fault_seed)
        watch = self.settings.watch
        self.context = Context(
            api=self.api,
            registry=self.registry,
            events=self.events,
            discovery=Discovery(self.registry),
            openapi=OpenApi(self.registry, self.api.crd_schema),
            faults=self.faults,
            max_body_bytes=self.settings.max_body_bytes,
            watch_limits=WatchLimits(
                watch.bookmark_interval, watch.max_seconds, watch.buffer_limit
            ),
        )
        self.url = ""
        self.kubeconfig_path = self.settings.kubeconfig_path or Path()
        self._tmpdir: str | None = None
        self._runner: web.AppRunner | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._saved = 0
        self._started = False

    def _bootstrap(self) -> None:
        """The objects a fresh cluster starts with: system namespaces, Argo CD's CRDs."""
        opts = WriteOptions(field_manager=MANAGER)
        ns_type = self.api.type_of(NAMESPACES)
        for name in SYSTEM_NAMESPACES:
            if self.store.get(NAMESPACES, "", name) is None:
                writes.create(
                    self.api, ns_type, {"metadata": {"name": name}}, namespace="", opts=opts
                )
        if self.settings.install_argocd_crds:
            crd_type = self.api.type_of(CRDS)
            for crd in argocd.crds():
                if self.store.get(CRDS, "", crd["metadata"]["name"]) is None:
                    writes.create(self.api, crd_type, crd, namespace="", opts=opts)

    async def start(self) -> None:
        """Load the snapshot, listen, write the kubeconfig, start the reconcilers.

        Raises SnapshotError (naming the file and the problem) for an unusable snapshot and
        OSError when the port cannot be bound; nothing is left running then.
        """
        try:
            await self._start()
        except BaseException:
            await self.stop()
            raise

    async def _start(self) -> None:
        path = self.settings.snapshot_path
        if path is not None and path.exists():
            revision = snapshot.load(path, self.store, self.registry)
            for resource in self.store.resources():
                for obj in self.store.items(resource):
                    rv = int(obj["metadata"]["resourceVersion"])
                    self.runtime.replay(Change(rv, ADDED, resource, obj))
            self._saved = revision
            logger.info("snapshot loaded", path=str(path), resource_version=revision)
        self._bootstrap()
        self._tasks.append(asyncio.create_task(self.runtime.run(), name="localcluster-runtime"))
        if path is not None and self.settings.snapshot_interval > 0:
            self._tasks.append(
                asyncio.create_task(self._save_periodically(path), name="localcluster-snapshot")
            )
        self._runner = web.AppRunner(
            webapp.build(self.context), access_log=None, handler_cancellation=True
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.settings.host, self.settings.port)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        self.context.server_address = f"{host}:{port}"
        if self.settings.kubeconfig_path is None:
            self._tmpdir = tempfile.mkdtemp(prefix="sluice-localcluster-")
            self.kubeconfig_path = Path(self._tmpdir) / "kubeconfig"
        kubeconfig.write(self.kubeconfig_path, self.url)
        self._started = True
        logger.info("local cluster started", url=self.url, kubeconfig=str(self.kubeconfig_path))

    async def stop(self) -> None:
        """Close watches, stop serving, stop the reconcilers, save the snapshot, clean up."""
        self.context.drop_watches("the local cluster is stopping")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        if self.settings.snapshot_path is not None and self._started:
            await self.save_snapshot(self.settings.snapshot_path)
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None
        self._started = False
        logger.info("local cluster stopped", url=self.url)

    async def save_snapshot(self, path: Path) -> None:
        """Write every object to `path` (serialized off the event loop)."""
        taken = snapshot.capture(self.store)
        await asyncio.to_thread(snapshot.write, path, taken)
        self._saved = taken.revision
        logger.info(
            "snapshot saved",
            path=str(path),
            resource_version=taken.revision,
            objects=len(taken.objects),
        )

    async def _save_periodically(self, path: Path) -> None:
        while True:
            await asyncio.sleep(self.settings.snapshot_interval)
            if self.store.revision != self._saved:
                try:
                    await self.save_snapshot(path)
                except OSError as e:
                    logger.error("snapshot not saved", path=str(path), error=str(e))

    async def __aenter__(self) -> "LocalCluster":
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def drop_watches(self) -> int:
        """Close every open watch now; returns how many were open."""
        return self.context.drop_watches("dropped by a test lever")

    def objects(self, resource: str, namespace: str | None = None) -> list[KubeObject]:
        """Stored objects of `resource` (`deployments.apps`, `pods`), for test assertions."""
        plural, _, group = resource.partition(".")
        return list(self.store.items(GroupResource(group, plural), namespace))
