"""Render and poller tests: registered apps, a running render worker, the work stream read back.

- `settings`: the pipeline settings with a refs cache that outlives any test (60 s), so
  "the cached listing was used" never depends on timing; tests about expiry override it.
- `render_worker`: a started RenderWorker on the test's runtime, stopped after (short pulls,
  so stopping it takes a fraction of a second).
- `register(rt, name, *sources, multi=False)`: an Application in the app registry.
- `ask_render(rt, app, level)`: publish a RenderRequest and wait for its ManifestsReady.
- `published(bus, channel, app)`: every message of one app waiting on the work stream.
"""

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import nats.js.errors
import pytest

from app.bus import subjects
from app.bus.connection import Bus
from app.bus.consumer import ConsumerSettings
from app.bus.messages import COMPARE, RENDER, Channel, M, ManifestsReady, RenderRequest, decode
from app.bus.publish import publish
from app.model.application import Application
from app.model.identity import AppRef
from app.model.sync import RefreshLevel
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from tests.support.gitrepo import manifests
from tests.support.waiting import eventually
from workers.render.worker import RenderWorker

NAMESPACE = "sluice"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return replace(settings, timing=replace(settings.timing, refs_cache_ttl=60.0))


@pytest.fixture
async def render_worker(runtime: Runtime) -> AsyncIterator[RenderWorker]:
    worker = RenderWorker(
        runtime, consumer=ConsumerSettings(concurrency=runtime.settings.concurrency, fetch_wait=0.2)
    )
    await worker.start()
    yield worker
    await worker.stop()


def config_map(name: str, **data: str) -> str:
    return manifests(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}
    )


def source(repo_url: str, path: str, revision: str = "main", **extra: Any) -> dict[str, Any]:
    return {"repoURL": repo_url, "path": path, "targetRevision": revision, **extra}


async def register(
    rt: Runtime, name: str, *sources: dict[str, Any], multi: bool = False
) -> Application:
    spec: dict[str, Any] = {
        "project": "default",
        "destination": {"server": "https://kubernetes.default.svc", "namespace": "default"},
    }
    if multi:
        spec["sources"] = list(sources)
    else:
        (spec["source"],) = sources
    app = Application.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": spec,
        }
    )
    await rt.apps.put(app)
    return app


def ref(app: Application) -> AppRef:
    return AppRef(app.namespace, app.name)


async def published(bus: Bus, channel: Channel[M], app: AppRef) -> list[M]:
    """The messages of `app` on `channel` still in the work stream, oldest first."""
    subject = subjects.work(channel.work, app)
    found: list[M] = []
    seq = 1
    while True:
        try:
            msg = await bus.js.get_msg(subjects.WORK_STREAM, seq, subject=subject, next=True)
        except nats.js.errors.NotFoundError:
            return found
        assert msg.data is not None and msg.seq is not None
        found.append(decode(channel, msg.data))
        seq = msg.seq + 1


async def ask_render(
    rt: Runtime, app: Application, level: RefreshLevel = RefreshLevel.LATEST
) -> ManifestsReady:
    """Publish a RenderRequest for `app` and return the ManifestsReady that answers it."""
    before = len(await published(rt.bus, COMPARE, ref(app)))
    await publish(rt.bus, RENDER, RenderRequest(ref(app), level, "test"))

    async def answered() -> list[ManifestsReady]:
        ready = await published(rt.bus, COMPARE, ref(app))
        return ready[before:]

    (ready,) = await eventually(answered, timeout=15, what=f"ManifestsReady for {app.name}")
    return ready
