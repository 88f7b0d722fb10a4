"""A comparison writes its result to Redis and to the Application, and tells what changed."""

from typing import Any

import pytest

from app.bus.errors import Retry
from app.bus.messages import RENDER
from app.localcluster import LocalCluster
from app.model.health import HealthStatusCode
from app.model.sync import RefreshLevel, SyncStatusCode
from app.runtime.runtime import Runtime
from tests.integration.workers.compare.conftest import (
    COMMIT,
    COMMIT2,
    DESTINATION,
    NAMESPACE,
    apply_live,
    compare_now,
    config_map,
    deployment,
    event_types,
    events_of,
    published,
    ref,
    register,
    resource_status,
    seed_manifests,
    stored,
)
from tests.support.waiting import eventually
from workers.compare.worker import CompareWorker


async def test_a_comparison_writes_sync_health_and_resources_to_redis_and_the_application(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("web", colour="blue"), config_map("db")])
    await apply_live(runtime, app, [config_map("web", colour="blue")])

    await compare_now(worker, app)

    status = (await stored(runtime, app)).status
    assert status.sync.status is SyncStatusCode.OUT_OF_SYNC
    assert status.sync.revision == COMMIT
    assert status.health.status is HealthStatusCode.HEALTHY
    assert {(r.name, r.status) for r in status.resources} == {
        ("web", SyncStatusCode.SYNCED),
        ("db", SyncStatusCode.OUT_OF_SYNC),
    }
    written = await resource_status(runtime, app)
    assert written["sync"]["status"] == "OutOfSync"
    assert written["sync"]["revision"] == COMMIT
    assert written["sync"]["comparedTo"]["source"]["repoURL"] == app.spec.source.repo_url  # type: ignore[union-attr]
    assert written["health"]["status"] == "Healthy"
    assert written["reconciledAt"] == status.reconciled_at
    assert written["sourceType"] == "Directory"
    assert {r["name"]: r["status"] for r in written["resources"]} == {
        "web": "Synced",
        "db": "OutOfSync",
    }

    await apply_live(runtime, app, [config_map("web", colour="blue"), config_map("db")])
    await compare_now(worker, app)

    assert (await stored(runtime, app)).status.sync.status is SyncStatusCode.SYNCED
    assert (await resource_status(runtime, app))["sync"]["status"] == "Synced"


async def test_events_are_emitted_once_per_transition(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("web", colour="blue")])
    await apply_live(runtime, app, [config_map("web", colour="green")])

    await compare_now(worker, app)
    await compare_now(worker, app)
    assert event_types(await events_of(runtime.bus, app)) == ["out-of-sync", "health-changed"]

    await apply_live(runtime, app, [config_map("web", colour="blue")])
    await compare_now(worker, app)
    await compare_now(worker, app)
    found = await events_of(runtime.bus, app)
    assert event_types(found)[2:] == ["synced"]
    out_of_sync, synced = found[0], found[2]
    assert out_of_sync.subject == f"{NAMESPACE}/{app.name}"
    assert out_of_sync.data["revision"] == COMMIT
    assert out_of_sync.data["message"] == (
        f"Application is OutOfSync at revision {COMMIT}: 1 of 1 resources differ"
    )
    assert synced.data["message"] == f"Application is Synced at revision {COMMIT}"


async def test_the_status_write_keeps_the_sync_workers_fields(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [config_map("web")])
    operation_state = {"phase": "Succeeded", "message": "successfully synced (all tasks run)"}
    await runtime.control_plane.patch(
        "argoproj.io/v1alpha1",
        "Application",
        app.name,
        {"status": {"operationState": operation_state, "history": [{"id": 0}]}},
        namespace=NAMESPACE,
    )

    await compare_now(worker, app)

    written = await resource_status(runtime, app)
    assert written["operationState"] == operation_state
    assert written["history"] == [{"id": 0}]
    assert written["sync"]["status"] == "Synced"


async def test_a_cold_live_cache_is_never_compared(runtime: Runtime, worker: CompareWorker) -> None:
    app = await register(runtime, automated={"prune": True})
    await seed_manifests(runtime, app, [config_map("web")])
    await runtime.live.replace(ref(app), [])
    await runtime.live.invalidate(ref(app), reason="watch lost")

    with pytest.raises(Retry, match="cold") as raised:
        await compare_now(worker, app)

    assert raised.value.delay == pytest.approx(1.0)
    assert await runtime.status.read_status(ref(app)) is None
    assert await events_of(runtime.bus, app) == []
    assert await runtime.operations.load(ref(app)) is None
    assert "status" not in await runtime.control_plane.get(
        "argoproj.io/v1alpha1", "Application", app.name, NAMESPACE
    )


async def test_an_app_that_is_gone_is_not_compared(runtime: Runtime, worker: CompareWorker) -> None:
    app = await register(runtime)
    await runtime.apps.delete(ref(app))

    await compare_now(worker, app)

    assert await runtime.status.read_status(ref(app)) is None
    assert await published(runtime.bus, RENDER, app) == []


async def test_a_recent_comparison_uses_the_last_compared_revisions(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [config_map("web")])
    await compare_now(worker, app)
    await apply_live(runtime, app, [config_map("web", drift="yes")])

    await compare_now(worker, app, RefreshLevel.RECENT, revisions=())

    status = (await stored(runtime, app)).status
    assert status.sync.revision == COMMIT
    assert status.sync.status is SyncStatusCode.OUT_OF_SYNC
    assert await published(runtime.bus, RENDER, app) == []


@pytest.mark.parametrize(
    ("level", "revisions", "render_level", "reason"),
    [
        pytest.param(
            RefreshLevel.RECENT,
            (),
            RefreshLevel.LATEST,
            "no comparison is stored yet",
            id="recent-before-any-comparison",
        ),
        pytest.param(
            RefreshLevel.LATEST,
            (COMMIT,),
            RefreshLevel.FORCE,
            f"the render of source 1 (https://git.example/shop.git) at {COMMIT[:12]} "
            "is not in the manifest cache",
            id="render-missing-renders-again-without-cache",
        ),
    ],
)
async def test_missing_manifests_ask_for_a_render_instead_of_comparing(
    runtime: Runtime,
    worker: CompareWorker,
    *,
    level: RefreshLevel,
    revisions: tuple[str, ...],
    render_level: RefreshLevel,
    reason: str,
) -> None:
    app = await register(runtime)
    await apply_live(runtime, app, [config_map("web")])

    await compare_now(worker, app, level, revisions=revisions)

    assert await runtime.status.read_status(ref(app)) is None
    (request,) = await published(runtime.bus, RENDER, app)
    assert (request.level, request.reason) == (render_level, reason)


async def test_a_render_missing_even_after_a_forced_render_is_a_comparison_error(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    await apply_live(runtime, app, [config_map("web")])

    await compare_now(worker, app, RefreshLevel.FORCE)

    status = (await stored(runtime, app)).status
    assert status.sync.status is SyncStatusCode.UNKNOWN
    assert [c.type for c in status.conditions] == ["ComparisonError"]
    assert "not in the manifest cache even after a forced render" in status.conditions[0].message
    assert await published(runtime.bus, RENDER, app) == []


async def test_an_unknown_destination_is_a_comparison_error_naming_the_field(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime, destination={"name": "prod-eu", "namespace": "shop"})
    await seed_manifests(runtime, app, [config_map("web")])

    await compare_now(worker, app)  # nothing watches that cluster: its cache never warms

    status = (await stored(runtime, app)).status
    assert status.sync.status is SyncStatusCode.UNKNOWN
    (condition,) = status.conditions
    assert condition.type == "ComparisonError"
    assert condition.message.startswith(
        "spec.destination.name: no cluster named 'prod-eu' is registered"
    )


async def test_a_missing_project_makes_the_app_unknown_with_an_invalid_spec_error(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime, project="payments")
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [config_map("web")])

    await compare_now(worker, app)

    status = (await stored(runtime, app)).status
    assert status.sync.status is SyncStatusCode.UNKNOWN
    assert [(c.type, c.message) for c in status.conditions] == [
        ("InvalidSpecError", "Application referencing project payments which does not exist")
    ]
    assert {(r.name, r.status) for r in status.resources} == {("web", SyncStatusCode.UNKNOWN)}


async def test_a_multi_source_app_is_compared_against_every_source(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime, paths=("web", "db"))
    await seed_manifests(runtime, app, [config_map("web")], COMMIT, source=0)
    await seed_manifests(runtime, app, [config_map("db")], COMMIT2, source=1)
    await apply_live(runtime, app, [config_map("web")])

    await compare_now(worker, app, revisions=(COMMIT, COMMIT2))

    status = (await stored(runtime, app)).status
    assert status.sync.revisions == [COMMIT, COMMIT2] and status.sync.revision == ""
    assert status.source_types == ["Directory", "Directory"]
    assert {(r.name, r.status) for r in status.resources} == {
        ("web", SyncStatusCode.SYNCED),
        ("db", SyncStatusCode.OUT_OF_SYNC),
    }
    written = await resource_status(runtime, app)
    assert written["sync"]["revisions"] == [COMMIT, COMMIT2]
    assert [s["path"] for s in written["sync"]["comparedTo"]["sources"]] == ["web", "db"]


async def test_health_changes_are_reported_as_the_workload_becomes_ready(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    web = deployment("web")
    await seed_manifests(runtime, app, [web])
    await apply_live(runtime, app, [web])
    await compare_now(worker, app)
    assert (await stored(runtime, app)).status.health.status is HealthStatusCode.PROGRESSING

    async def available() -> dict[str, Any] | None:
        live = await runtime.control_plane.get("apps/v1", "Deployment", "web", DESTINATION)
        return live if (live.get("status") or {}).get("availableReplicas") == 1 else None

    ready = await eventually(available, what="the Deployment to become available")
    assert ready is not None
    await runtime.live.replace(ref(app), [ready])
    await compare_now(worker, app)

    status = (await stored(runtime, app)).status
    assert status.health.status is HealthStatusCode.HEALTHY
    assert (await resource_status(runtime, app))["health"]["status"] == "Healthy"
    health = [
        e.data for e in await events_of(runtime.bus, app) if e.type.endswith("health-changed")
    ]
    assert [(h["from"], h["to"]) for h in health] == [
        (None, "Progressing"),
        ("Progressing", "Healthy"),
    ]


async def test_an_application_gone_from_the_cluster_still_gets_its_status_in_redis(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [config_map("web")])
    await runtime.control_plane.delete("argoproj.io/v1alpha1", "Application", app.name, NAMESPACE)

    await compare_now(worker, app)

    assert (await stored(runtime, app)).status.sync.status is SyncStatusCode.SYNCED


async def test_a_destination_that_cannot_answer_discovery_is_retried_not_reported(
    runtime: Runtime, worker: CompareWorker, local_cluster: LocalCluster
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [config_map("web")])
    runtime.control_plane.invalidate()
    local_cluster.faults.configure(error_rate=1.0)
    try:
        with pytest.raises(Retry, match="unavailable") as raised:
            await compare_now(worker, app)
    finally:
        local_cluster.faults.clear()

    assert raised.value.delay == pytest.approx(5.0)
    assert await runtime.status.read_status(ref(app)) is None
    await compare_now(worker, app)
    assert (await stored(runtime, app)).status.sync.status is SyncStatusCode.SYNCED


async def test_an_application_gone_invalid_is_unknown_and_never_auto_synced(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime, automated={"prune": True})
    await seed_manifests(runtime, app, [config_map("web")])
    await runtime.live.replace(ref(app), [])
    problem = "spec.destination: needs a server URL or a cluster name"
    assert await runtime.apps.mark_invalid(ref(app), problem)

    await compare_now(worker, app)

    status = (await stored(runtime, app)).status
    assert status.sync.status is SyncStatusCode.UNKNOWN
    assert [(c.type, c.message) for c in status.conditions] == [("InvalidSpecError", problem)]
    assert await runtime.operations.load(ref(app)) is None, "the last valid spec was synced"


async def test_an_application_deleted_and_created_again_gets_its_status_at_once(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("web", colour="blue")])
    await apply_live(runtime, app, [config_map("web", colour="blue")])
    await compare_now(worker, app)
    assert (await resource_status(runtime, app))["sync"]["status"] == "Synced"
    before = [e.type for e in await events_of(runtime.bus, app)]

    await runtime.control_plane.delete("argoproj.io/v1alpha1", "Application", app.name, NAMESPACE)
    again = await register(runtime)
    assert again.metadata.uid != app.metadata.uid
    await compare_now(worker, again)

    written = await resource_status(runtime, again)
    assert written["sync"]["status"] == "Synced"
    assert written["health"]["status"] == "Healthy"
    assert [r["name"] for r in written["resources"]] == ["web"]
    after = [e.type for e in await events_of(runtime.bus, again)][len(before) :]
    assert after == before, "the new object's transitions are announced as a new app's"
