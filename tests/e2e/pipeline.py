"""The whole pipeline in this process, seen the way a user sees it.

`Pipeline` starts every worker of `workers.registry` on the test's Runtime (real NATS,
Redis, git and local cluster), applies Applications with the real kubectl, and reads
what `kubectl get application -o yaml` shows: the status the workers wrote back to the
Application resource. `Changes` records every write the local cluster stores, with the
time it happened, for assertions about when something was done.
"""

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from app.bus import events, subjects
from app.bus.subjects import EventType
from app.cluster import NotFound
from app.localcluster.eventlog import Change
from app.model.identity import AppRef
from app.model.resource import KubeObject
from app.runtime.runtime import Runtime
from app.runtime.worker import Worker
from tests.e2e.manifests import CONTROL
from tests.support.fixtures_cluster import Kubectl
from tests.support.waiting import eventually
from workers import registry

APPLICATION = "argoproj.io/v1alpha1"

StatusProbe = Callable[[dict[str, Any]], bool]


@dataclass
class Pipeline:
    """Every worker on one Runtime, plus the user's tools: kubectl and a status reader."""

    rt: Runtime
    kubectl: Kubectl
    manifests_dir: Path
    workers: list[Worker] = field(default_factory=list)

    async def start(self) -> None:
        await self.rt.control_plane.apply(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": CONTROL}}
        )
        for name in registry.WORKERS:
            worker = registry.build(name, self.rt)
            await worker.start()
            self.workers.append(worker)

    async def stop(self) -> None:
        """Stop every worker at once (each waits out at most one pull)."""
        await asyncio.gather(*(worker.stop() for worker in reversed(self.workers)))
        self.workers.clear()

    async def apply(self, *documents: Mapping[str, Any]) -> None:
        """`kubectl apply -f` a file holding `documents`, as a user would."""
        path = self.manifests_dir / f"apply-{time.monotonic_ns()}.yaml"
        path.write_text(yaml.safe_dump_all([dict(d) for d in documents], sort_keys=False))
        await self.kubectl("apply", "-f", str(path))

    async def application(self, name: str) -> KubeObject:
        """The Application resource as the cluster holds it."""
        return await self.rt.control_plane.get(APPLICATION, "Application", name, CONTROL)

    async def status(self, name: str) -> dict[str, Any]:
        found: dict[str, Any] = (await self.application(name)).get("status") or {}
        return found

    async def wait_status(
        self, name: str, probe: StatusProbe, *, what: str, timeout: float = 30.0
    ) -> dict[str, Any]:
        """The Application's status once `probe` accepts it."""

        async def check() -> dict[str, Any] | None:
            status = await self.status(name)
            return status if probe(status) else None

        found = await eventually(check, timeout=timeout, interval=0.05, what=f"{name}: {what}")
        assert found is not None
        return found

    async def wait_synced(
        self, name: str, revision: str, *, timeout: float = 30.0
    ) -> dict[str, Any]:
        """Status once the app is Synced + Healthy at `revision` and its operation is done."""
        return await self.wait_status(
            name,
            lambda s: synced_healthy(s, revision) and operation_done(s),
            what=f"Synced + Healthy at {revision[:7]}",
            timeout=timeout,
        )

    async def live(
        self, api_version: str, kind: str, name: str, namespace: str
    ) -> KubeObject | None:
        try:
            return await self.rt.control_plane.get(api_version, kind, name, namespace)
        except NotFound:
            return None

    async def events(self, name: str) -> list[tuple[EventType, dict[str, Any]]]:
        """Every event of the app kept on SLUICE_EVENTS, oldest first."""
        ref = AppRef(CONTROL, name)
        info = await self.rt.bus.js.stream_info(
            subjects.EVENTS_STREAM, subjects_filter=subjects.events_filter(ref)
        )
        count = sum((info.state.subjects or {}).values())
        found: list[tuple[EventType, dict[str, Any]]] = []
        if not count:
            return found
        async with events.follow(self.rt.bus, after=0, app=ref) as feed:
            async with asyncio.timeout(5):
                async for stored in feed:
                    found.append((stored.type, stored.event.data))
                    if len(found) == count:
                        break
        return found


def synced_healthy(status: Mapping[str, Any], revision: str) -> bool:
    sync = status.get("sync") or {}
    health = status.get("health") or {}
    return (
        sync.get("status") == "Synced"
        and sync.get("revision") == revision
        and health.get("status") == "Healthy"
    )


def operation_done(status: Mapping[str, Any]) -> bool:
    """No operation, or the last one has finished."""
    state = status.get("operationState")
    return state is None or state.get("phase") in ("Succeeded", "Failed", "Error")


def resource(status: Mapping[str, Any], kind: str, name: str) -> dict[str, Any] | None:
    """The status entry of one resource, if the app lists it."""
    for entry in status.get("resources") or []:
        if entry.get("kind") == kind and entry.get("name") == name:
            found: dict[str, Any] = entry
            return found
    return None


@dataclass
class Changes:
    """Writes the local cluster stored: (monotonic time, change type, resource, name, object)."""

    seen: list[tuple[float, str, str, str, KubeObject]] = field(default_factory=list)

    def __call__(self, change: Change) -> None:
        name = str((change.obj.get("metadata") or {}).get("name") or "")
        self.seen.append(
            (time.monotonic(), change.type, change.resource.resource, name, change.obj)
        )

    def of(self, resource: str, name: str) -> list[tuple[float, str, KubeObject]]:
        """(time, change type, object) of every change of one object, oldest first."""
        return [(t, kind, o) for t, kind, res, n, o in self.seen if (res, n) == (resource, name)]
