"""Hooks and waves on the real sequence, with the local cluster's Jobs and Deployments.

PreSync Job → wave -1 → wave 0 → wave 1 → PostSync Job, each started only after the one
before is done and the wave delay passed (asserted from the times the cluster stored
each object); a failing PreSync hook fails the operation and runs the SyncFail hook;
delete policies (HookSucceeded, HookFailed, BeforeHookCreation); retries with backoff;
termination.
"""

import itertools
import time
from pathlib import Path
from typing import Any

import yaml

from app.bus.subjects import EventType
from app.cluster import NotFound
from app.model.app_spec import Backoff, RetryStrategy
from app.model.operation import Operation, OperationInitiator, SyncOperation
from app.model.sync import OperationPhase
from app.runtime.operations import request_termination, start_operation
from app.runtime.settings import Settings
from tests.integration.workers.sync.conftest import (
    FAIL,
    HOOK,
    NEVER_READY,
    POLICY,
    WAVE,
    Recorder,
    Shop,
    config_map,
    deployment,
    job,
    service,
    stored_events,
)
from tests.support.waiting import eventually

HOOK_FINALIZER = "argocd.argoproj.io/hook-finalizer"
WAVES_EXAMPLE = Path(__file__).resolve().parents[4] / "app" / "examples" / "waves"


async def gone(shop: Shop, kind: str, name: str, api_version: str) -> bool:
    try:
        await shop.live(kind, name, api_version)
    except NotFound:
        return True
    return False


async def test_presync_then_waves_then_postsync_in_order_with_the_wave_delay(
    shop: Shop, sync_workers: None, recorder: Recorder, settings: Settings
) -> None:
    await shop.deploy(
        job("migrate", {HOOK: "PreSync"}),
        config_map("cfg", {WAVE: "-1"}),
        deployment("web"),
        service("web", {WAVE: "1"}),
        job("smoke", {HOOK: "PostSync", POLICY: "HookSucceeded"}),
    )
    state = await shop.sync()
    assert (state.phase, state.message) == (
        OperationPhase.SUCCEEDED,
        "successfully synced (no more tasks)",
    )
    sequence = [
        ("jobs", "migrate"),
        ("configmaps", "cfg"),
        ("deployments", "web"),
        ("services", "web"),
        ("jobs", "smoke"),
    ]
    created = [recorder.created_at(resource, name) for resource, name in sequence]
    assert created == sorted(created)
    gaps = [later - earlier for earlier, later in itertools.pairwise(created)]
    assert min(gaps) >= settings.timing.wave_delay, gaps
    available = next(
        t
        for t, _, obj in recorder.of("deployments", "web")
        if (obj.get("status") or {}).get("availableReplicas")
    )
    assert available < recorder.created_at("services", "web")
    assert state.sync_result is not None
    assert [(r.hook_type, r.kind, r.name, r.hook_phase) for r in state.sync_result.resources] == [
        ("PreSync", "Job", "migrate", "Succeeded"),
        ("", "ConfigMap", "cfg", "Succeeded"),
        ("", "Deployment", "web", "Succeeded"),
        ("", "Service", "web", "Succeeded"),
        ("PostSync", "Job", "smoke", "Succeeded"),
    ]
    await eventually(lambda: gone(shop, "Job", "smoke", "batch/v1"), what="smoke to be deleted")
    migrate = await shop.live("Job", "migrate", "batch/v1")
    assert HOOK_FINALIZER not in (migrate["metadata"].get("finalizers") or [])
    phases = [
        (data["name"], data["phase"])
        for kind, data in await stored_events(shop.rt, shop.ref)
        if kind is EventType.HOOK_PHASE_CHANGED
    ]
    assert phases == [
        ("migrate", "Running"),
        ("migrate", "Succeeded"),
        ("smoke", "Running"),
        ("smoke", "Succeeded"),
    ]


async def test_a_failing_presync_hook_fails_the_operation_and_runs_the_syncfail_hook(
    shop: Shop, sync_workers: None, recorder: Recorder
) -> None:
    await shop.deploy(
        job("migrate", {HOOK: "PreSync", POLICY: "HookFailed"}, **{FAIL: "true"}),
        deployment("web"),
        job("alert", {HOOK: "SyncFail"}),
    )
    state = await shop.sync()
    assert state.phase is OperationPhase.FAILED
    assert state.message.startswith(
        "one or more synchronization tasks completed unsuccessfully, reason: "
    ), state.message
    assert [name for _, name in recorder.added("jobs")] == ["migrate", "alert"]
    assert recorder.added("deployments") == []
    assert state.sync_result is not None
    phases = {(r.hook_type, r.name): r.hook_phase for r in state.sync_result.resources}
    assert phases == {("PreSync", "migrate"): "Failed", ("SyncFail", "alert"): "Succeeded"}
    await eventually(
        lambda: gone(shop, "Job", "migrate", "batch/v1"), what="the HookFailed hook to go"
    )
    assert not await gone(shop, "Job", "alert", "batch/v1")
    kinds = [kind for kind, _ in await stored_events(shop.rt, shop.ref)]
    assert kinds[0] is EventType.OPERATION_STARTED
    assert kinds[-1] is EventType.OPERATION_FAILED


async def test_a_before_hook_creation_hook_is_deleted_and_created_anew(
    shop: Shop, sync_workers: None, recorder: Recorder
) -> None:
    commit = await shop.deploy(job("seed", {HOOK: "PreSync"}), config_map("cfg"))
    await shop.sync()
    first = await shop.live("Job", "seed", "batch/v1")
    state = await shop.sync(revision=commit)
    assert state.phase is OperationPhase.SUCCEEDED
    second = await shop.live("Job", "seed", "batch/v1")
    assert second["metadata"]["uid"] != first["metadata"]["uid"]
    kinds = [kind for _, kind, _ in recorder.of("jobs", "seed") if kind != "MODIFIED"]
    assert kinds == ["ADDED", "DELETED", "ADDED"]


async def test_a_failing_sync_is_retried_with_backoff_then_fails_saying_how_often(
    shop: Shop, sync_workers: None, recorder: Recorder
) -> None:
    await shop.deploy(deployment("web", {FAIL: "true"}), service("web", {WAVE: "1"}))
    retry = RetryStrategy(limit=2, backoff=Backoff(duration="1s", factor=1, max_duration="1s"))
    started = time.monotonic()
    state = await shop.sync(retry=retry, timeout=30)
    elapsed = time.monotonic() - started
    assert state.phase is OperationPhase.FAILED
    assert state.message.startswith("one or more synchronization tasks completed unsuccessfully")
    assert state.message.endswith(" (retried 2 times)."), state.message
    assert state.retry_count == 2
    assert elapsed >= 2.0
    assert recorder.added("services") == []


async def test_terminate_deletes_the_running_hook_and_fails_the_operation(
    shop: Shop, sync_workers: None, recorder: Recorder
) -> None:
    await shop.deploy(job("wait", {HOOK: "PreSync"}, **{NEVER_READY: "true"}), config_map("cfg"))
    operation = Operation(sync=SyncOperation(), initiated_by=OperationInitiator(username="me"))
    started = await start_operation(shop.rt, shop.application(), operation, reason="test")
    assert started is not None

    async def hook_running() -> bool:
        return any(name == "wait" for _, name in recorder.added("jobs"))

    await eventually(hook_running, what="the PreSync hook to be created")
    assert await request_termination(shop.rt, shop.application())
    state = await shop.finished(started)
    assert (state.phase, state.message) == (OperationPhase.FAILED, "Operation terminated")
    await eventually(lambda: gone(shop, "Job", "wait", "batch/v1"), what="the hook to go")
    assert recorder.added("configmaps") == []
    assert not await request_termination(shop.rt, shop.application())


def waves_example(migrate_image: str) -> list[dict[str, Any]]:
    """Sluice's own `waves` example (app/examples/waves), its migrate Job's image set."""
    docs = [
        doc
        for path in sorted(WAVES_EXAMPLE.glob("*.yaml"))
        for doc in yaml.safe_load_all(path.read_text())
        if doc
    ]
    for doc in docs:
        if doc["metadata"].get("name") == "migrate":
            doc["spec"]["template"]["spec"]["containers"][0]["image"] = migrate_image
    return docs


async def test_a_before_hook_creation_hook_whose_template_changed_syncs_again(
    shop: Shop, sync_workers: None
) -> None:
    await shop.deploy(*waves_example("busybox:1.36"))
    assert (await shop.sync()).phase is OperationPhase.SUCCEEDED
    first = await shop.live("Job", "migrate", "batch/v1")
    await shop.deploy(*waves_example("busybox:1.37"))
    state = await shop.sync()
    assert (state.phase, state.message) == (
        OperationPhase.SUCCEEDED,
        "successfully synced (no more tasks)",
    )
    second = await shop.live("Job", "migrate", "batch/v1")
    assert second["metadata"]["uid"] != first["metadata"]["uid"]
    assert second["spec"]["template"]["spec"]["containers"][0]["image"] == "busybox:1.37"
