"""The Application's `status.operationState` tells the truth about one operation (issue 13,
defect 2): each write replaces it whole, so nothing of the previous operation survives;
the last write of an operation is repeated until it lands, and the operation is
finalized only then."""

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app.bus.consumer import ConsumerSettings
from app.localcluster import LocalCluster
from app.model.sync import OperationPhase
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from tests.integration.workers.sync.conftest import (
    CONTROL,
    NEVER_READY,
    WAVE,
    Shop,
    config_map,
    deployment,
)
from tests.integration.workers.watcher.forbidding_proxy import ForbiddingProxy
from tests.support.gitrepo import GitRepo
from tests.support.waiting import eventually
from workers.sync.hook_worker import HookWorker
from workers.sync.settings import SyncWorkerSettings
from workers.sync.sync_worker import SyncWorker

API = "argoproj.io/v1alpha1"


async def operation_state(rt: Runtime, name: str = "shop") -> dict[str, Any]:
    obj = await rt.control_plane.get(API, "Application", name, CONTROL)
    state: dict[str, Any] = (obj.get("status") or {}).get("operationState") or {}
    return state


async def test_a_new_operation_leaves_nothing_of_the_previous_ones_state(
    shop: Shop, sync_workers: None
) -> None:
    await shop.deploy(config_map("settings", mode="fast"))
    await shop.sync()
    first = await operation_state(shop.rt)
    assert first["phase"] == "Succeeded" and first["finishedAt"]
    assert [r["name"] for r in first["syncResult"]["resources"]] == ["settings"]
    # A never-ready Deployment in wave 0 holds the operation Running before wave 1 (the
    # last wave is not waited on: alone, it would finish before the test could look).
    commit = await shop.deploy(
        deployment("web", annotations={NEVER_READY: "true", WAVE: "0"}),
        config_map("after", {WAVE: "1"}),
    )
    await shop.start()

    async def running() -> dict[str, Any] | None:
        state = await operation_state(shop.rt)
        return state if state.get("phase") == "Running" else None

    second = await eventually(running, timeout=30, what="the second operation's Running state")
    assert "finishedAt" not in second
    assert second.get("message", "") != first["message"]
    assert second["startedAt"] >= first["finishedAt"]
    result = second.get("syncResult") or {}
    assert result.get("revision", commit) == commit
    assert "settings" not in [r["name"] for r in result.get("resources") or []]


@pytest.fixture
async def proxy(local_cluster: LocalCluster) -> AsyncIterator[ForbiddingProxy]:
    started = await ForbiddingProxy(local_cluster.url).start()
    yield started
    await started.close()


@pytest.fixture
async def proxied(
    settings: Settings, proxy: ForbiddingProxy, tmp_path: Path
) -> AsyncIterator[Runtime]:
    kubeconfig = proxy.kubeconfig(tmp_path / "proxy-kubeconfig")
    control = replace(settings.control_plane, kubeconfig=str(kubeconfig))
    async with Runtime.open(replace(settings, control_plane=control)) as rt:
        yield rt


async def test_the_last_write_of_an_operation_is_repeated_until_it_lands(
    runtime: Runtime, proxied: Runtime, proxy: ForbiddingProxy, git_repo: GitRepo
) -> None:
    shop = Shop(proxied, git_repo)
    await shop.deploy(config_map("settings", mode="fast"))
    consumer = ConsumerSettings(concurrency=4, fetch_wait=0.2)
    settings = SyncWorkerSettings(status_retry=0.2)
    workers = [
        SyncWorker(proxied, settings=settings, consumer=consumer),
        HookWorker(proxied, settings=settings, consumer=consumer),
    ]
    for worker in workers:
        await worker.start()
    try:
        proxy.forbid(f"/namespaces/{CONTROL}/applications/shop")
        operation = await shop.start()

        async def ended_but_not_written() -> bool:
            stored = await proxied.operations.load(shop.ref)
            ended = stored is not None and stored.state.phase is OperationPhase.SUCCEEDED
            return ended and proxy.refused >= 3

        await eventually(ended_but_not_written, timeout=30, what="refused final writes")
        record = await proxied.operations.load_sync(shop.ref)
        assert record is not None and not record.finalized
        assert (await operation_state(runtime)).get("phase") != "Succeeded"
        proxy.forbid(None)
        state = await shop.finished(operation, timeout=30)
        assert state.phase is OperationPhase.SUCCEEDED
        written = await operation_state(runtime)
        assert (written["phase"], written["finishedAt"]) == ("Succeeded", state.finished_at)
    finally:
        proxy.forbid(None)
        for worker in workers:
            await worker.stop()
