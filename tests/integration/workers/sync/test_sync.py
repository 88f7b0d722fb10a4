"""Sync operations end to end: planned from git, applied to the local cluster, finished.

Each test is one thing a user relies on: a new app's objects exist and the operation says
so everywhere (Redis, the Application resource, history, events, the refresh that
follows); a new commit is applied as an update; prune on and off; nothing is planned from
a cold live cache; one operation at a time; messages delivered again repeat nothing;
ApplyOutOfSyncOnly; rollback.
"""

from typing import Any

import pytest

from app.bus import subjects
from app.bus.messages import SyncStep
from app.bus.subjects import EventType
from app.cluster import NotFound
from app.engine.history import rollback_operation
from app.engine.tracking import TrackingMethod, set_tracking
from app.model.operation import Operation, SyncOperation
from app.model.sync import OperationPhase, RefreshLevel
from app.runtime.operations import start_operation
from app.runtime.runtime import Runtime
from app.store.coalescing import Pending
from tests.integration.workers.sync.conftest import (
    CONTROL,
    DESTINATION,
    HOOK,
    Recorder,
    Shop,
    config_map,
    deployment,
    job,
    last_refresh,
    service,
    stored_events,
)
from tests.support.waiting import eventually
from workers.sync.sync_worker import SyncWorker

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


async def test_a_finished_operations_messages_delivered_again_repeat_nothing(
    shop: Shop, runtime: Runtime, sync_workers: None
) -> None:
    await shop.deploy(config_map("cfg"))
    operation_id = await shop.start()
    await shop.finished(operation_id)
    record = await shop.rt.operations.load_sync(shop.ref)
    assert record is not None
    before = await stored_events(shop.rt, shop.ref)
    worker = SyncWorker(runtime)
    for step in range(record.step + 1):
        message = SyncStep(shop.ref, operation_id, step, "delivered again")
        await worker.handle(message, Pending(step, 1, b""))
    assert await stored_events(shop.rt, shop.ref) == before
    assert len(await shop.rt.history.load(shop.ref)) == 1
    after = await shop.rt.operations.load_sync(shop.ref)
    assert after is not None and after.step == record.step


async def test_apply_out_of_sync_only_applies_just_what_differs(
    shop: Shop, sync_workers: None
) -> None:
    shop.policy = {"syncOptions": ["ApplyOutOfSyncOnly=true"]}
    await shop.deploy(config_map("same", v="1"), config_map("changed", v="1"))
    await shop.sync()
    commit = await shop.deploy(config_map("same", v="1"), config_map("changed", v="2"))
    state = await shop.sync(revision=commit)
    assert results(state) == {"ConfigMap/changed": ("Synced", "configmap/changed configured")}
    assert (await shop.live("ConfigMap", "changed"))["data"] == {"v": "2"}


async def test_a_rollback_syncs_the_recorded_revision_without_hooks(
    shop: Shop, sync_workers: None, recorder: Recorder
) -> None:
    first = await shop.deploy(config_map("cfg", v="1"), job("hook", {HOOK: "PreSync"}))
    await shop.sync(revision=first)
    second = await shop.deploy(config_map("cfg", v="2"), job("hook", {HOOK: "PreSync"}))
    await shop.sync(revision=second)
    assert len(recorder.added("jobs")) == 2
    app = shop.application()
    app.status.history = await shop.rt.history.load(shop.ref)
    operation = rollback_operation(app, 0, username="tester")
    state = await shop.finished(await shop.start(operation))
    assert state.phase is OperationPhase.SUCCEEDED
    assert state.sync_result is not None and state.sync_result.revision == first
    assert (await shop.live("ConfigMap", "cfg"))["data"] == {"v": "1"}
    assert [h.revision for h in await shop.rt.history.load(shop.ref)] == [first, second, first]
    assert len(recorder.added("jobs")) == 2


@pytest.mark.parametrize(
    ("server", "broken", "expected"),
    [
        pytest.param(
            "https://elsewhere.example:6443",
            None,
            "spec.destination.server: no cluster with server 'https://elsewhere.example:6443'",
            id="unknown-destination",
        ),
        pytest.param(
            "https://kubernetes.default.svc",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [unclosed\n",
            "bad.yaml",
            id="render-failure",
        ),
    ],
)
async def test_an_operation_that_cannot_be_planned_ends_in_error_saying_why(
    shop: Shop,
    sync_workers: None,
    server: str,
    broken: str | None,
    expected: str,
) -> None:
    shop.server = server
    commit = await shop.deploy(config_map("cfg"))
    if broken is not None:
        commit = shop.repo.commit({"deploy/bad.yaml": broken})
    state = await shop.sync(revision=commit)
    assert state.phase is OperationPhase.ERROR
    assert expected in state.message, state.message
    with pytest.raises(NotFound):
        await shop.live("ConfigMap", "cfg")
