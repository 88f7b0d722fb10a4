"""Many apps for the web UI, without the pipeline: the embedded stack (NATS, Redis, the
local cluster, the API) with apps written straight into the registry and status store.

    async with ui_fleet(state_dir, 1000) as fleet:
        fleet.url, fleet.token; await fleet.burst()   # every app OutOfSync, with its event

The apps vary (ten teams' repositories and labels, 25 destination namespaces, mixed sync
and health; one project and one cluster), so the UI's filters have work to do.
No worker runs: nothing reconciles them, and what the UI shows is exactly what is written.
"""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from app.bus import events
from app.bus.subjects import EventType
from app.cli.stack import Stack, StackOptions
from app.model.application import Application
from app.model.health import HealthStatusCode
from app.model.identity import AppRef
from app.model.status import AppHealthStatus, ApplicationStatus, SyncStatus
from app.model.sync import SyncStatusCode
from app.runtime.runtime import Runtime

NAMESPACE = "sluice"
BATCH = 50
REVISION = "0123456789abcdef0123456789abcdef01234567"
_SYNC = (SyncStatusCode.SYNCED, SyncStatusCode.SYNCED, SyncStatusCode.OUT_OF_SYNC)
_HEALTH = (
    HealthStatusCode.HEALTHY,
    HealthStatusCode.HEALTHY,
    HealthStatusCode.HEALTHY,
    HealthStatusCode.PROGRESSING,
    HealthStatusCode.DEGRADED,
)


def name_of(i: int) -> str:
    return f"app-{i:04d}"


def application(i: int) -> Application:
    return Application.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {
                "name": name_of(i),
                "namespace": NAMESPACE,
                "labels": {"team": f"team-{i % 10}", "tier": ("web", "api", "db")[i % 3]},
            },
            "spec": {
                "project": "default",
                "source": {
                    "repoURL": f"https://git.example.com/team-{i % 10}/apps.git",
                    "path": f"apps/{name_of(i)}",
                    "targetRevision": "HEAD",
                },
                "destination": {
                    "server": "https://kubernetes.default.svc",
                    "namespace": f"ns-{i % 25}",
                },
                "syncPolicy": {"automated": {"prune": True}} if i % 2 else {},
            },
        }
    )


def status(i: int, sync: SyncStatusCode | None = None) -> ApplicationStatus:
    return ApplicationStatus(
        sync=SyncStatus(status=sync or _SYNC[i % len(_SYNC)], revision=REVISION),
        health=AppHealthStatus(status=_HEALTH[i % len(_HEALTH)]),
    )


async def _write_status(rt: Runtime, ref: AppRef, value: ApplicationStatus) -> None:
    seq = await rt.status.begin_comparison(ref)
    await rt.status.write_comparison(ref, seq, value)


async def _batched(count: int, one: Callable[[int], Awaitable[None]]) -> None:
    for start in range(0, count, BATCH):
        await asyncio.gather(*(one(i) for i in range(start, min(count, start + BATCH))))


@dataclass
class UiFleet:
    rt: Runtime
    url: str
    token: str
    count: int

    def ref(self, i: int) -> AppRef:
        return AppRef(NAMESPACE, name_of(i))

    async def seed(self, start: int = 0) -> None:
        async def one(i: int) -> None:
            await self.rt.apps.put(application(start + i))
            await _write_status(self.rt, self.ref(start + i), status(start + i))

        await _batched(self.count - start, one)

    async def grow(self, count: int) -> None:
        """Seed more apps, up to `count` in all."""
        start, self.count = self.count, count
        await self.seed(start)

    async def burst(self, sync: SyncStatusCode = SyncStatusCode.OUT_OF_SYNC) -> None:
        """Every app's status changes to `sync`, each with the event the compare stage emits."""
        event = EventType.OUT_OF_SYNC if sync is SyncStatusCode.OUT_OF_SYNC else EventType.SYNCED

        async def one(i: int) -> None:
            await _write_status(self.rt, self.ref(i), status(i, sync))
            data = {"revision": REVISION, "message": f"{name_of(i)} is {sync.value}"}
            await events.emit(self.rt.bus, self.ref(i), event, data, component="compare")

        await _batched(self.count, one)


@contextlib.asynccontextmanager
async def ui_fleet(state_dir: Path, count: int) -> AsyncIterator[UiFleet]:
    """The stack without workers, `count` apps seeded, the API on a free port."""
    async with Stack(StackOptions(state_dir=state_dir, workers=(), api_port=0)) as stack:
        assert stack.runtime is not None and stack.api is not None
        await stack.runtime.control_plane.apply(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
        )
        fleet = UiFleet(stack.runtime, stack.api.url, stack.token, count)
        await fleet.seed()
        yield fleet
