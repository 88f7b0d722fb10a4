"""Compare-worker tests: apps registered in the cluster and the registry, renders and live
objects seeded where the render worker and the watcher would put them.

- `worker`: a CompareWorker on the test's runtime, not started: tests call its stage
  handlers (`compare_now`) so each comparison has finished when the call returns;
  `running_worker` is started (short pulls, so stopping it is quick).
- `register(rt, name, ...)`: an Application created in the control-plane namespace of
  the local cluster (so its status can be written back) and put in the app registry.
- `seed_manifests(rt, app, objects)`: a render of the app's source at `COMMIT` cached.
- `apply_live(rt, app, objects)`: the objects applied to the local cluster as a sync
  would (placed, tracked, client-side apply) and the app's live cache set to them (WARM).
- `config_map(name, ...)`, `deployment(name, image)`: targets as a repository holds them.
- `events_of(bus, app)`, `published(bus, channel, app)`: what was stored on the streams.
"""

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

import nats.js.errors
import pytest

from app.bus import subjects
from app.bus.connection import Bus
from app.bus.consumer import ConsumerSettings
from app.bus.events import CloudEvent
from app.bus.messages import Channel, M, ManifestsReady, decode
from app.cluster import ApplyMode, Conflict
from app.engine.tracking import place_target, set_tracking
from app.model.application import Application
from app.model.identity import AppRef
from app.model.resource import KubeObject
from app.model.sync import RefreshLevel
from app.repo.sourcehash import source_hash
from app.runtime.runtime import Runtime
from app.store.coalescing import Pending
from app.store.manifests import ManifestKey, RenderedManifests
from app.store.status import StoredStatus
from workers.compare.worker import CompareWorker

NAMESPACE = "sluice"
DESTINATION = "default"
REPO = "https://git.example/shop.git"
COMMIT = "c0ffee" + "0" * 34
COMMIT2 = "beef00" + "0" * 34


@pytest.fixture
def worker(runtime: Runtime) -> CompareWorker:
    return CompareWorker(runtime, consumer=ConsumerSettings(concurrency=4, fetch_wait=0.2))


@pytest.fixture
async def running_worker(worker: CompareWorker) -> AsyncIterator[CompareWorker]:
    await worker.start()
    yield worker
    await worker.stop()


def ref(app: Application) -> AppRef:
    return AppRef(app.namespace, app.name)


def config_map(name: str, **data: str) -> KubeObject:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def deployment(name: str, image: str = "nginx:1.25") -> KubeObject:
    """One replica of `image`, labelled and selected by `app: <name>`."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "web", "image": image}]},
            },
        },
    }


async def register(
    rt: Runtime,
    name: str = "shop",
    *,
    automated: dict[str, Any] | None = None,
    project: str = "default",
    destination: dict[str, str] | None = None,
    repo_url: str = REPO,
    paths: Sequence[str] = ("deploy",),
) -> Application:
    """Create the Application in the cluster and register it as the watcher would (one
    source per path; more than one path makes a multi-source app)."""
    sources = [{"repoURL": repo_url, "path": path, "targetRevision": "main"} for path in paths]
    spec: dict[str, Any] = {
        "project": project,
        "destination": destination
        or {"server": "https://kubernetes.default.svc", "namespace": DESTINATION},
    }
    if len(sources) == 1:
        spec["source"] = sources[0]
    else:
        spec["sources"] = sources
    if automated is not None:
        spec["syncPolicy"] = {"automated": automated}
    with contextlib.suppress(Conflict):
        await rt.control_plane.create(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
        )
    created = await rt.control_plane.create(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": spec,
        }
    )
    app = Application.from_dict(created)
    await rt.apps.put(app)
    return app


async def seed_manifests(
    rt: Runtime,
    app: Application,
    objects: Sequence[KubeObject],
    commit: str = COMMIT,
    *,
    source: int = 0,
) -> None:
    """Cache a render of the app's source number `source` at `commit`."""
    spec = app.spec.all_sources[source]
    key = ManifestKey(spec.repo_url, commit, source_hash(spec))
    await rt.manifests.put(key, RenderedManifests(list(objects), "Directory"))


async def apply_live(rt: Runtime, app: Application, objects: Sequence[KubeObject]) -> None:
    """Apply `objects` as the app's (what a sync does) and make them its WARM live cache."""
    live = []
    for obj in objects:
        placed = place_target(obj, DESTINATION, {})
        tracked = set_tracking(
            placed, app=app.name, method=rt.settings.tracking_method, default_namespace=DESTINATION
        )
        live.append(await rt.control_plane.apply(tracked, mode=ApplyMode.CLIENT_SIDE))
    await rt.live.replace(ref(app), live)


async def compare_now(
    worker: CompareWorker,
    app: Application,
    level: RefreshLevel = RefreshLevel.LATEST,
    revisions: tuple[str, ...] = (COMMIT,),
    error: str = "",
) -> None:
    """Run one comparison through the compare stage's handler, as a delivery would."""
    message = ManifestsReady(ref(app), level, revisions, error)
    await worker.compare(message, Pending(int(level), 1, b""))


async def stored(rt: Runtime, app: Application) -> StoredStatus:
    found = await rt.status.read_status(ref(app))
    assert found is not None, f"no status stored for {app.name}"
    return found


async def resource_status(rt: Runtime, app: Application) -> dict[str, Any]:
    """`status` of the Application resource in the cluster."""
    obj = await rt.control_plane.get("argoproj.io/v1alpha1", "Application", app.name, NAMESPACE)
    status: dict[str, Any] = obj.get("status") or {}
    return status


async def published(bus: Bus, channel: Channel[M], app: Application) -> list[M]:
    """The messages of `app` on `channel` still in the work stream, oldest first."""
    subject = subjects.work(channel.work, ref(app))
    return [decode(channel, data) for data in await _stored(bus, subjects.WORK_STREAM, subject)]


async def events_of(bus: Bus, app: Application) -> list[CloudEvent]:
    """Every event stored for `app`, oldest first."""
    subject = subjects.events_filter(ref(app))
    return [
        CloudEvent.from_json(data) for data in await _stored(bus, subjects.EVENTS_STREAM, subject)
    ]


async def _stored(bus: Bus, stream: str, subject: str) -> list[bytes]:
    found: list[bytes] = []
    seq = 1
    while True:
        try:
            msg = await bus.js.get_msg(stream, seq, subject=subject, next=True)
        except nats.js.errors.NotFoundError:
            return found
        assert msg.data is not None and msg.seq is not None
        found.append(msg.data)
        seq = msg.seq + 1


def event_types(found: Sequence[CloudEvent]) -> list[str]:
    return [e.type.removeprefix("dev.sluice.") for e in found]
