"""The refresh stage routes by level; with the render worker, a refresh ends in a status."""

from typing import Any

import pytest

from app.bus.consumer import ConsumerSettings
from app.bus.messages import REFRESH, RENDER, RefreshRequest, RenderRequest
from app.bus.publish import publish
from app.model.sync import RefreshLevel, SyncStatusCode
from app.runtime.runtime import Runtime
from tests.integration.workers.compare.conftest import (
    apply_live,
    compare_now,
    config_map,
    published,
    ref,
    register,
    resource_status,
    seed_manifests,
    stored,
)
from tests.support.gitrepo import GitRepo, manifests
from tests.support.waiting import eventually
from workers.compare.worker import CompareWorker
from workers.render.worker import RenderWorker


@pytest.mark.parametrize(
    "level", [RefreshLevel.LATEST, RefreshLevel.FORCE], ids=lambda level: level.name.lower()
)
async def test_latest_and_force_refreshes_ask_the_render_worker(
    runtime: Runtime, running_worker: CompareWorker, level: RefreshLevel
) -> None:
    app = await register(runtime)

    await publish(runtime.bus, REFRESH, RefreshRequest(ref(app), level, "webhook push"))

    async def render_requests() -> list[RenderRequest]:
        return await published(runtime.bus, RENDER, app)

    (request,) = await eventually(render_requests, what="a RenderRequest")
    assert request == RenderRequest(ref(app), level, "webhook push")


@pytest.mark.parametrize(
    "level", [RefreshLevel.NOTHING, RefreshLevel.RECENT], ids=lambda level: level.name.lower()
)
async def test_nothing_and_recent_refreshes_compare_at_the_last_revisions_without_git(
    runtime: Runtime, worker: CompareWorker, level: RefreshLevel
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [config_map("web")])
    await compare_now(worker, app)
    first = await stored(runtime, app)
    await apply_live(runtime, app, [config_map("web", drift="yes")])
    await worker.start()
    try:
        await publish(runtime.bus, REFRESH, RefreshRequest(ref(app), level, "web changed"))

        async def compared_again() -> bool:
            return (await stored(runtime, app)).seq > first.seq

        await eventually(compared_again, what="a second comparison")
    finally:
        await worker.stop()

    status = (await stored(runtime, app)).status
    assert status.sync.revision == first.status.sync.revision
    assert status.sync.status is SyncStatusCode.OUT_OF_SYNC
    assert await published(runtime.bus, RENDER, app) == []


async def test_a_refresh_through_the_render_worker_ends_in_a_status(
    runtime: Runtime, running_worker: CompareWorker, git_repo: GitRepo
) -> None:
    commit = git_repo.commit(
        {
            "deploy/web.yaml": manifests(config_map("web", colour="blue")),
            "deploy/db.yaml": manifests(config_map("db")),
        }
    )
    app = await register(runtime, repo_url=git_repo.url)
    await apply_live(runtime, app, [config_map("web", colour="blue")])
    render = RenderWorker(runtime, consumer=ConsumerSettings(concurrency=2, fetch_wait=0.2))
    await render.start()
    try:
        await publish(runtime.bus, REFRESH, RefreshRequest(ref(app), RefreshLevel.LATEST, "test"))

        async def written() -> dict[str, Any]:
            return await resource_status(runtime, app)

        status = await eventually(written, timeout=20, what="the Application's status")
    finally:
        await render.stop()
    assert status["sync"] == {
        "status": "OutOfSync",
        "revision": commit,
        "comparedTo": {
            "source": {"repoURL": git_repo.url, "path": "deploy", "targetRevision": "main"},
            "destination": {
                "server": "https://kubernetes.default.svc",
                "namespace": "default",
            },
        },
    }
    assert {r["name"]: r["status"] for r in status["resources"]} == {
        "web": "Synced",
        "db": "OutOfSync",
    }
