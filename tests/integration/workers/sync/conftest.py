"""Sync and hook workers on real NATS, Redis, git and the local cluster.

- `sync_workers`: a started SyncWorker and HookWorker on the test's runtime (short pulls,
  so stopping them takes a fraction of a second), stopped after the test.
- `recorder`: every change the local cluster stores, with the time it happened, in order.
- `settings`: the pipeline settings with a short health re-check (no watcher wakes the
  sync worker in these tests, so the fallback timer paces health waits).
- `stored_events(rt, ref)`: the app's events on SLUICE_EVENTS, oldest first.
- `Shop`: one Application whose manifests live in the test's git repository: `deploy()`
  commits them, registers the app (registry, live cache warm, the resource in the
  cluster), `sync()` starts an operation and waits until it is finished and finalized.
"""

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from app.bus import events, subjects
from app.bus.consumer import ConsumerSettings
from app.bus.messages import REFRESH, RefreshRequest, decode
from app.bus.subjects import EventType, Work
from app.cluster import Conflict
from app.localcluster import LocalCluster
from app.localcluster.eventlog import Change
from app.model.app_spec import RetryStrategy
from app.model.application import Application
from app.model.identity import AppRef
from app.model.operation import (
    Operation,
    OperationInitiator,
    OperationState,
    SyncOperation,
)
from app.model.resource import KubeObject
from app.runtime.operations import start_operation
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from app.runtime.worker import Worker
from tests.support.gitrepo import GitRepo, manifests
from tests.support.waiting import eventually
from workers.sync.hook_worker import HookWorker
from workers.sync.sync_worker import SyncWorker

CONTROL = "sluice"
DESTINATION = "shop"
HOOK = "argocd.argoproj.io/hook"
POLICY = "argocd.argoproj.io/hook-delete-policy"
WAVE = "argocd.argoproj.io/sync-wave"
FAIL = "localcluster.sluice.dev/fail"
NEVER_READY = "localcluster.sluice.dev/never-ready"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return replace(settings, timing=replace(settings.timing, health_wait_fallback=0.2))


async def stored_events(rt: Runtime, ref: AppRef) -> list[tuple[EventType, dict[str, Any]]]:
    """Every event of `ref` kept in SLUICE_EVENTS, in order."""
    info = await rt.bus.js.stream_info(
        subjects.EVENTS_STREAM, subjects_filter=subjects.events_filter(ref)
    )
    count = sum((info.state.subjects or {}).values())
    found: list[tuple[EventType, dict[str, Any]]] = []
    if not count:
        return found
    async with events.follow(rt.bus, after=0, app=ref) as feed:
        async with asyncio.timeout(5):
            async for stored in feed:
                found.append((stored.type, stored.event.data))
                if len(found) == count:
                    break
    return found


async def last_refresh(rt: Runtime, ref: AppRef) -> RefreshRequest:
    """The newest RefreshRequest waiting for the app (nothing consumes them here)."""
    message = await rt.bus.js.get_last_msg(subjects.WORK_STREAM, subjects.work(Work.REFRESH, ref))
    return decode(REFRESH, message.data or b"")


@pytest.fixture
async def sync_workers(runtime: Runtime) -> AsyncIterator[None]:
    consumer = ConsumerSettings(concurrency=runtime.settings.concurrency, fetch_wait=0.2)
    workers: list[Worker] = [
        SyncWorker(runtime, consumer=consumer),
        HookWorker(runtime, consumer=consumer),
    ]
    for worker in workers:
        await worker.start()
    yield
    for worker in workers:
        await worker.stop()


@dataclass
class Recorder:
    """Changes stored by the local cluster: (monotonic time, type, resource, name, object)."""

    changes: list[tuple[float, str, str, str, KubeObject]] = field(default_factory=list)

    def __call__(self, change: Change) -> None:
        meta = change.obj.get("metadata") or {}
        name = str(meta.get("name") or "")
        self.changes.append(
            (time.monotonic(), change.type, change.resource.resource, name, change.obj)
        )

    def of(self, resource: str, name: str) -> list[tuple[float, str, KubeObject]]:
        """(time, change type, object) of every change of one object, in order."""
        return [(t, kind, o) for t, kind, res, n, o in self.changes if (res, n) == (resource, name)]

    def added(self, resource: str) -> list[tuple[float, str]]:
        """(time, name) of every creation of `resource` (`jobs`, `configmaps` ...), in order."""
        return [
            (t, n) for t, kind, res, n, _ in self.changes if kind == "ADDED" and res == resource
        ]

    def created_at(self, resource: str, name: str) -> float:
        times = [t for t, n in self.added(resource) if n == name]
        assert len(times) == 1, f"{resource}/{name} was created {len(times)} times"
        return times[0]


@pytest.fixture
def recorder(local_cluster: LocalCluster) -> Iterator[Recorder]:
    recording = Recorder()
    stop = local_cluster.events.listen(None, recording)
    yield recording
    stop()


def obj(
    kind: str,
    name: str,
    *,
    api_version: str = "v1",
    annotations: Mapping[str, str] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if annotations:
        meta["annotations"] = dict(annotations)
    return {"apiVersion": api_version, "kind": kind, "metadata": meta, **fields}


def config_map(
    name: str, annotations: Mapping[str, str] | None = None, **data: str
) -> dict[str, Any]:
    return obj("ConfigMap", name, annotations=annotations, data=data)


def deployment(
    name: str, annotations: Mapping[str, str] | None = None, image: str = "nginx:1.27"
) -> dict[str, Any]:
    labels = {"app": name}
    return obj(
        "Deployment",
        name,
        api_version="apps/v1",
        annotations=annotations,
        spec={
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "main", "image": image}]},
            },
        },
    )


def service(name: str, annotations: Mapping[str, str] | None = None) -> dict[str, Any]:
    return obj(
        "Service",
        name,
        annotations=annotations,
        spec={"selector": {"app": name}, "ports": [{"port": 80, "targetPort": 8080}]},
    )


def job(name: str, annotations: Mapping[str, str] | None = None, **template: str) -> dict[str, Any]:
    pod_meta = {"annotations": dict(template)} if template else {}
    return obj(
        "Job",
        name,
        api_version="batch/v1",
        annotations=annotations,
        spec={
            "backoffLimit": 0,
            "template": {
                "metadata": pod_meta,
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox", "command": ["true"]}],
                },
            },
        },
    )


@dataclass
class Shop:
    """One Application (`sluice/shop` deploying to namespace `shop`) and its repository."""

    rt: Runtime
    repo: GitRepo
    name: str = "shop"
    policy: dict[str, Any] = field(default_factory=dict)
    server: str = "https://kubernetes.default.svc"
    destination_name: str = ""
    """`spec.destination.name`; when set, the app is addressed by it instead of `server`."""
    ignore_differences: list[dict[str, Any]] = field(default_factory=list)
    """The Application's `spec.ignoreDifferences`."""

    @property
    def ref(self) -> AppRef:
        return AppRef(CONTROL, self.name)

    def application(self) -> Application:
        return Application.from_dict(
            {
                "apiVersion": "argoproj.io/v1alpha1",
                "kind": "Application",
                "metadata": {"name": self.name, "namespace": CONTROL},
                "spec": {
                    "project": "default",
                    "source": {
                        "repoURL": self.repo.url,
                        "path": "deploy",
                        "targetRevision": "main",
                    },
                    "destination": {
                        **(
                            {"name": self.destination_name}
                            if self.destination_name
                            else {"server": self.server}
                        ),
                        "namespace": DESTINATION,
                    },
                    "syncPolicy": self.policy,
                    "ignoreDifferences": self.ignore_differences,
                },
            }
        )

    async def deploy(
        self, *objects: Mapping[str, Any], live: list[KubeObject] | None = None
    ) -> str:
        """Commit `objects` as deploy/app.yaml and register the app; the new commit.

        The live cache is set to `live` (warm); without it, a warm cache is kept as it is
        (the sync worker puts what it applies there, as the watcher would) and a cold one
        starts empty and warm."""
        commit = self.repo.commit({"deploy/app.yaml": manifests(*objects)})
        app = self.application()
        await self.rt.apps.put(app)
        cluster = self.rt.control_plane
        for namespace in (CONTROL, DESTINATION):
            with contextlib.suppress(Conflict):
                await cluster.create(
                    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
                )
        with contextlib.suppress(Conflict):
            await cluster.create(app.to_dict())
        if live is not None or not (await self.rt.live.read(self.ref)).warm:
            await self.rt.live.replace(self.ref, live or [])
        return commit

    async def sync(
        self,
        *,
        prune: bool = True,
        retry: RetryStrategy | None = None,
        revision: str = "",
        timeout: float = 20.0,
        **sync: Any,
    ) -> OperationState:
        """Start a sync and wait until it finished and its follow-up is done."""
        operation = Operation(
            sync=SyncOperation(revision=revision, prune=prune, **sync),
            initiated_by=OperationInitiator(username="tester"),
            retry=retry,
        )
        started = await self.start(operation)
        return await self.finished(started, timeout=timeout)

    async def start(self, operation: Operation | None = None) -> str:
        """Start an operation (a plain sync by default); its id."""
        chosen = operation or Operation(
            sync=SyncOperation(prune=True), initiated_by=OperationInitiator(username="tester")
        )
        started = await start_operation(self.rt, self.application(), chosen, reason="test sync")
        assert started is not None
        return started

    async def finished(self, operation_id: str, *, timeout: float = 20.0) -> OperationState:
        async def done() -> OperationState | None:
            record = await self.rt.operations.load_sync(self.ref)
            stored = await self.rt.operations.load(self.ref)
            if record is None or stored is None or record.id != operation_id:
                return None
            return stored.state if record.finalized else None

        found = await eventually(done, timeout=timeout, what=f"operation {operation_id} to finish")
        assert found is not None
        return found

    async def live(self, kind: str, name: str, api_version: str = "v1") -> KubeObject:
        return await self.rt.control_plane.get(api_version, kind, name, DESTINATION)


@pytest.fixture
def shop(runtime: Runtime, git_repo: GitRepo) -> Shop:
    return Shop(runtime, git_repo)
