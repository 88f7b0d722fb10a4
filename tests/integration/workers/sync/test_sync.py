"""Sync operations end to end: planned from git, applied to the local cluster, finished.

Each test is one thing a user relies on: a new app's objects exist and the operation says
so everywhere (Redis, the Application resource, history, events, the refresh that
follows); a new commit is applied as an update; prune on and off; nothing is planned from
a cold live cache; one operation at a time.
"""

from typing import Any

import pytest

from app.bus import subjects
from app.bus.subjects import EventType
from app.cluster import NotFound
from app.engine.tracking import TrackingMethod, set_tracking
from app.model.operation import Operation, SyncOperation
from app.model.sync import OperationPhase, RefreshLevel
from tests.integration.workers.sync.conftest import (
    CONTROL,
    DESTINATION,
    Shop,
    config_map,
    deployment,
    last_refresh,
    service,
    stored_events,
)
from tests.support.waiting import eventually
from workers.operations import start_operation

TRACKING = "argocd.argoproj.io/tracking-id"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def results(state: Any) -> dict[str, tuple[str, str]]:
    """kind/name -> (status, message) of every resource in the sync result."""
    assert state.sync_result is not None
    return {f"{r.kind}/{r.name}": (r.status, r.message) for r in state.sync_result.resources}


async def test_a_new_app_syncs_to_succeeded_and_its_objects_exist(
    shop: Shop, sync_workers: None
) -> None:
    commit = await shop.deploy(
        config_map("settings", mode="fast"), deployment("web"), service("web")
    )
    state = await shop.sync()
    assert (state.phase, state.message) == (
        OperationPhase.SUCCEEDED,
        "successfully synced (all tasks run)",
    )
    assert state.sync_result is not None and state.sync_result.revision == commit
    assert results(state) == {
        "ConfigMap/settings": ("Synced", "configmap/settings created"),
        "Service/web": ("Synced", "service/web created"),
        "Deployment/web": ("Synced", "deployment.apps/web created"),
    }
    for kind, name, version in (
        ("ConfigMap", "settings", "v1"),
        ("Deployment", "web", "apps/v1"),
        ("Service", "web", "v1"),
    ):
        live = await shop.live(kind, name, version)
        group = version.rpartition("/")[0]
        annotations = live["metadata"]["annotations"]
        assert annotations[TRACKING] == f"shop:{group}/{kind}:shop/{name}"
        assert LAST_APPLIED in annotations
    history = await shop.rt.history.load(shop.ref)
    assert [(h.id, h.revision) for h in history] == [(0, commit)]
    resource = await shop.rt.control_plane.get(
        "argoproj.io/v1alpha1", "Application", "shop", CONTROL
    )
    assert resource["status"]["operationState"]["phase"] == "Succeeded"
    assert resource["status"]["operationState"]["syncResult"]["revision"] == commit
    assert [h["revision"] for h in resource["status"]["history"]] == [commit]
    kinds = [kind for kind, _ in await stored_events(shop.rt, shop.ref)]
    assert kinds == [EventType.OPERATION_STARTED, EventType.OPERATION_SUCCEEDED]
    refresh = await last_refresh(shop.rt, shop.ref)
    assert refresh.level is RefreshLevel.FORCE


async def test_a_new_commit_is_applied_as_an_update(shop: Shop, sync_workers: None) -> None:
    await shop.deploy(deployment("web", image="nginx:1.27"))
    await shop.sync()
    commit = await shop.deploy(deployment("web", image="nginx:1.28"))
    state = await shop.sync(revision=commit)
    assert results(state) == {"Deployment/web": ("Synced", "deployment.apps/web configured")}
    live = await shop.live("Deployment", "web", "apps/v1")
    assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.28"
    assert [h.id for h in await shop.rt.history.load(shop.ref)] == [0, 1]


async def _extra_tracked_config_map(shop: Shop) -> dict[str, Any]:
    """A ConfigMap the app tracks in the cluster but no longer has in git."""
    tracked = set_tracking(
        {**config_map("old", stale="yes"), "metadata": {"name": "old", "namespace": DESTINATION}},
        app="shop",
        method=TrackingMethod.ANNOTATION,
        default_namespace=DESTINATION,
    )
    return await shop.rt.control_plane.create(tracked)


@pytest.mark.parametrize(
    ("prune", "result", "remains"),
    [
        pytest.param(False, ("PruneSkipped", "ignored (requires pruning)"), True, id="prune-off"),
        pytest.param(True, ("Pruned", "pruned"), False, id="prune-on"),
    ],
)
async def test_an_object_removed_from_git_is_pruned_only_with_prune_on(
    shop: Shop, sync_workers: None, prune: bool, result: tuple[str, str], remains: bool
) -> None:
    await shop.deploy(config_map("keep"))
    old = await _extra_tracked_config_map(shop)
    await shop.rt.live.replace(shop.ref, [old])
    state = await shop.sync(prune=prune)
    assert state.phase is OperationPhase.SUCCEEDED
    assert results(state)["ConfigMap/old"] == result

    async def still_there() -> bool:
        try:
            await shop.live("ConfigMap", "old")
        except NotFound:
            return False
        return True

    if remains:
        assert await still_there()
    else:

        async def gone() -> bool:
            return not await still_there()

        await eventually(gone, timeout=5, what="old to be deleted")


async def test_nothing_is_planned_from_a_cold_live_cache(shop: Shop, sync_workers: None) -> None:
    await shop.deploy(config_map("keep"))
    old = await _extra_tracked_config_map(shop)
    await shop.rt.live.invalidate(shop.ref, reason="the watcher is relisting")
    operation = Operation(sync=SyncOperation(prune=True))
    started = await start_operation(shop.rt, shop.application(), operation, reason="test")
    assert started is not None

    async def retried() -> bool:
        info = await shop.rt.bus.js.consumer_info(subjects.WORK_STREAM, "sluice-sync")
        redelivered = int(info.num_redelivered or 0)
        return redelivered > 0 or int(info.delivered.consumer_seq or 0) > 1

    await eventually(retried, timeout=10, what="the first step to be tried and put back")
    record = await shop.rt.operations.load_sync(shop.ref)
    assert record is not None and record.sync is None
    assert (await shop.live("ConfigMap", "old"))["metadata"]["uid"] == old["metadata"]["uid"]
    await shop.rt.live.replace(shop.ref, [old])
    state = await shop.finished(started)
    assert results(state)["ConfigMap/old"] == ("Pruned", "pruned")


async def test_a_second_operation_is_refused_while_one_runs(shop: Shop) -> None:
    await shop.deploy(config_map("keep"))
    operation = Operation(sync=SyncOperation())
    first = await start_operation(shop.rt, shop.application(), operation, reason="first")
    assert first is not None
    assert await start_operation(shop.rt, shop.application(), operation, reason="second") is None
    stored = await shop.rt.operations.load(shop.ref)
    assert stored is not None and stored.id == first
