"""Watcher tests: a watcher on the test's runtime (local cluster, NATS, Redis), and what it said.

- `watcher_settings`: short lease, window and intervals, so failover and throttling show
  within a second.
- `start_watcher()`: start a `Watcher` replica, by default waiting until it is synced
  (its first lists are in); every replica is stopped after the test.
- `watcher`: one started and synced replica.
- `published`: every RefreshRequest and SyncStep published on the bus, in order.
- `application(name, ...)`: an Application manifest as a user writes it (kubectl).
- `tracked(obj, app)`: an object carrying the app's tracking id, as sync would apply it.
- `config_map(name, ...)`, `deployment(name, replicas)`: objects in the destination.
"""

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import yaml

from app.bus.connection import Bus
from app.bus.messages import REFRESH, SYNC, RefreshRequest, SyncStep, decode
from app.bus.subjects import Work, parse_work, work_filter
from app.engine.tracking import TrackingMethod, set_tracking
from app.model.identity import AppRef
from app.runtime.runtime import Runtime
from tests.support import manifests
from tests.support.fixtures_cluster import Kubectl
from tests.support.waiting import eventually
from workers.watcher.settings import WatcherSettings
from workers.watcher.worker import Watcher

NAMESPACE = "sluice"
DESTINATION = "apps"
WEB = AppRef(NAMESPACE, "web")
"""The app most tests register (`application("web")`)."""


@pytest.fixture
def watcher_settings() -> WatcherSettings:
    return WatcherSettings(
        lease_ttl=1.5,
        refresh_window=0.1,
        operation_refresh_window=0.3,
        tree_interval=0.05,
        retry_delay=0.2,
    )


@pytest.fixture
async def namespaces(runtime: Runtime) -> None:
    for name in (NAMESPACE, DESTINATION):
        await runtime.control_plane.create(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        )


@dataclass
class Published:
    """Work messages seen on the bus (a core subscription beside the work stream)."""

    refreshes: list[RefreshRequest] = field(default_factory=list)
    steps: list[SyncStep] = field(default_factory=list)

    def refreshes_of(self, name: str, namespace: str = NAMESPACE) -> list[RefreshRequest]:
        return [r for r in self.refreshes if r.app == AppRef(namespace, name)]

    async def refresh(self, name: str, *, timeout: float = 5.0) -> RefreshRequest:
        """Wait for the next refresh of `name` not yet taken, and take it."""

        async def arrived() -> list[RefreshRequest]:
            return self.refreshes_of(name)

        message = (await eventually(arrived, timeout=timeout, what=f"a refresh of {name}"))[0]
        self.refreshes.remove(message)
        return message


@pytest.fixture
async def published(runtime: Runtime) -> AsyncIterator[Published]:
    seen = Published()
    bus: Bus = runtime.bus

    async def on_message(msg: Any) -> None:
        kind, _ = parse_work(msg.subject)
        if kind is Work.REFRESH:
            seen.refreshes.append(decode(REFRESH, msg.data))
        else:
            seen.steps.append(decode(SYNC, msg.data))

    subs = [
        await bus.client.subscribe(work_filter(kind), cb=on_message)
        for kind in (Work.REFRESH, Work.SYNC)
    ]
    await bus.client.flush()
    yield seen
    for sub in subs:
        await sub.unsubscribe()


Starter = Callable[..., Awaitable[Watcher]]


@pytest.fixture
async def start_watcher(
    runtime: Runtime, watcher_settings: WatcherSettings, namespaces: None
) -> AsyncIterator[Starter]:
    """Start a watcher replica (stopped after the test); by default, wait until it syncs."""
    started: list[Watcher] = []

    async def start(*, synced: bool = True, rt: Runtime | None = None) -> Watcher:
        replica = Watcher(rt or runtime, watcher_settings)
        started.append(replica)
        await replica.start()
        if synced:
            await eventually(lambda: _true(replica.synced), timeout=10, what="the watcher to sync")
        return replica

    yield start
    for replica in started:
        await replica.stop()


@pytest.fixture
async def watcher(start_watcher: Starter) -> Watcher:
    return await start_watcher()


async def _true(value: bool) -> bool:
    return value


def application(
    name: str,
    *,
    namespace: str = NAMESPACE,
    path: str = "app",
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    finalizers: list[str] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    for key, value in (
        ("labels", labels),
        ("annotations", annotations),
        ("finalizers", finalizers),
    ):
        if value is not None:
            metadata[key] = value
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": metadata,
        "spec": {
            "project": "default",
            "source": {"repoURL": "https://example.com/repo.git", "path": path},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": DESTINATION},
            **spec,
        },
    }


async def kubectl_apply(kubectl: Kubectl, *docs: dict[str, Any]) -> None:
    stdin = yaml.safe_dump_all(docs)
    await kubectl("apply", "-f", "-", stdin=stdin)


def tracked(obj: dict[str, Any], app: str = "web") -> dict[str, Any]:
    return set_tracking(
        obj, app=app, method=TrackingMethod.ANNOTATION, default_namespace=DESTINATION
    )


def config_map(name: str, **data: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": DESTINATION},
        "data": data,
    }


def deployment(name: str, replicas: int) -> dict[str, Any]:
    return manifests.deployment(name, DESTINATION, replicas)
