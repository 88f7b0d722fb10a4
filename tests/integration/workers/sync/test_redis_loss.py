"""Redis is a cache: losing it in the middle of an operation costs a rebuild, never a stuck
or repeated operation (issue 13, defect 1).

The whole pipeline runs an automated app with a PreSync hook, waves -1/0 and a PostSync
hook; Redis is flushed at a point of the operation (once the PreSync hook, the wave -1
ConfigMap or the PostSync hook exists). The operation resumes from the Application's
`status.operationState` and the cluster: it ends Succeeded, each hook Job is created
once, and auto-sync starts no second operation.
"""

import datetime as dt
from typing import Any

import pytest

from app.bus import subjects
from app.bus.messages import HOOK as HOOK_WORK
from app.bus.messages import SYNC, HookRequest, SyncStep
from app.bus.publish import publish
from app.bus.subjects import EventType, Work
from app.cluster import PatchType
from app.model import codec
from app.model.application import API_VERSION, KIND
from app.model.identity import AppRef
from app.model.operation import Operation, OperationInitiator, OperationState, SyncOperation
from app.model.sync import OperationPhase
from app.model.timestamps import format_time
from app.runtime.operations import new_operation_id
from app.runtime.runtime import Runtime
from app.runtime.worker import Worker
from tests.integration.workers.sync.conftest import (
    HOOK,
    WAVE,
    Recorder,
    Shop,
    config_map,
    deployment,
    job,
    stored_events,
)
from tests.support.gitrepo import GitRepo, manifests
from tests.support.waiting import eventually

CONTROL = "sluice"
REF = AppRef(CONTROL, "shop")


async def _create_app(rt: Runtime, repo_url: str) -> None:
    for name in (CONTROL, "shop"):
        await rt.control_plane.create(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        )
    await rt.control_plane.create(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": "shop", "namespace": CONTROL},
            "spec": {
                "project": "default",
                "source": {"repoURL": repo_url, "path": "deploy", "targetRevision": "main"},
                "destination": {"server": "https://kubernetes.default.svc", "namespace": "shop"},
                "syncPolicy": {"automated": {"prune": True}},
            },
        }
    )


async def _operation_state(rt: Runtime) -> dict[str, Any]:
    obj = await rt.control_plane.get("argoproj.io/v1alpha1", "Application", "shop", CONTROL)
    state: dict[str, Any] = (obj.get("status") or {}).get("operationState") or {}
    return state


async def _write_running(rt: Runtime, name: str, now: dt.datetime) -> OperationState:
    """The Application says an operation runs (what survives Redis losing it)."""
    written = OperationState(
        operation=Operation(
            sync=SyncOperation(prune=True), initiated_by=OperationInitiator(username="tester")
        ),
        phase=OperationPhase.RUNNING,
        message="waiting for healthy state of /ConfigMap/cfg",
        started_at=format_time(now),
    )
    await rt.control_plane.patch(
        API_VERSION,
        KIND,
        name,
        {"status": {"operationState": codec.encode(written)}},
        namespace=CONTROL,
        patch_type=PatchType.MERGE,
    )
    return written


async def _all_taken(rt: Runtime, kind: Work) -> bool:
    """Every message of `kind` was delivered and acknowledged."""
    info = await rt.bus.js.consumer_info(subjects.WORK_STREAM, subjects.consumer(kind))
    return bool(info.num_pending == 0 and info.num_ack_pending == 0)


@pytest.mark.slow
@pytest.mark.parametrize(
    "flush_once",
    [("jobs", "pre"), ("configmaps", "cfg"), ("jobs", "post")],
    ids=["presync-hook", "wave-minus-one", "postsync-hook"],
)
async def test_an_operation_survives_redis_losing_everything(
    runtime: Runtime,
    git_repo: GitRepo,
    recorder: Recorder,
    pipeline_workers: list[Worker],
    *,
    flush_once: tuple[str, str],
) -> None:
    commit = git_repo.commit(
        {
            "deploy/app.yaml": manifests(
                job("pre", {HOOK: "PreSync"}),
                config_map("cfg", {WAVE: "-1"}),
                deployment("web"),
                job("post", {HOOK: "PostSync"}),
            )
        }
    )
    await _create_app(runtime, git_repo.url)

    resource, name = flush_once

    async def created() -> bool:
        return any(added == name for _, added in recorder.added(resource))

    await eventually(created, timeout=60, what=f"{resource}/{name} to be created")
    await runtime.redis.flushdb()

    async def succeeded() -> dict[str, Any] | None:
        state = await _operation_state(runtime)
        return state if state.get("phase") == "Succeeded" else None

    state = await eventually(succeeded, timeout=90, what="the operation to succeed")
    assert state is not None
    assert state["syncResult"]["revision"] == commit
    assert sorted(name for _, name in recorder.added("jobs")) == ["post", "pre"]

    async def ended() -> list[EventType]:
        kinds = [kind for kind, _ in await stored_events(runtime, REF)]
        return kinds if EventType.OPERATION_SUCCEEDED in kinds else []

    kinds = await eventually(ended, timeout=30, what="the operation-succeeded event")
    assert kinds.count(EventType.OPERATION_STARTED) == 1
    assert kinds.count(EventType.OPERATION_SUCCEEDED) == 1
    assert EventType.OPERATION_FAILED not in kinds


@pytest.mark.usefixtures("sync_workers")
async def test_an_operation_restored_at_an_older_step_is_planned_by_a_later_message(
    runtime: Runtime, shop: Shop
) -> None:
    """Redis lost a running operation; a redelivered message of an older step restored it
    at that step, and the only message left for the sync worker names a later step (a
    timer armed before the loss; the restoring one coalesced away): it plans the
    operation, which resumes and ends."""
    await shop.deploy(config_map("cfg"))
    now = dt.datetime.now(dt.UTC)
    operation_id = new_operation_id(now)
    written = await _write_running(runtime, shop.name, now)
    assert await runtime.operations.restore(shop.ref, operation_id, 3, written)
    await publish(
        runtime.bus, SYNC, SyncStep(shop.ref, operation_id, 5, "delay between sync waves")
    )

    state = await shop.finished(operation_id)
    assert state.phase is OperationPhase.SUCCEEDED
    assert (await shop.live("ConfigMap", "cfg"))["metadata"]["name"] == "cfg"


@pytest.mark.usefixtures("sync_workers")
async def test_a_hook_worker_that_restored_an_operation_gets_it_planned_after_a_wake_up(
    runtime: Runtime, shop: Shop
) -> None:
    """The sync worker took a step message (the watcher's wake-up) before Redis lost the
    operation; the hook message of that step, redelivered, restores the operation and
    hands it to the sync worker with a message of the same step, which must not be
    dropped as a duplicate of the first: the operation is planned, resumes and ends."""
    await shop.deploy(config_map("cfg"))
    now = dt.datetime.now(dt.UTC)
    operation_id = new_operation_id(now)
    wake_up = SyncStep(shop.ref, operation_id, 3, "a hook changed")
    await publish(runtime.bus, SYNC, wake_up)
    await eventually(
        lambda: _all_taken(runtime, Work.SYNC), timeout=20, what="the wake-up to be taken"
    )
    await _write_running(runtime, shop.name, now)
    await publish(runtime.bus, HOOK_WORK, HookRequest(shop.ref, operation_id, 3, "redelivered"))

    state = await shop.finished(operation_id)
    assert state.phase is OperationPhase.SUCCEEDED
    assert (await shop.live("ConfigMap", "cfg"))["metadata"]["name"] == "cfg"
