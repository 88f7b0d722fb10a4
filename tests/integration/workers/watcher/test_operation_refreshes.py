"""A sync's own writes are compared once, by the refresh its end publishes, not as they land."""

import pytest

from app.model.operation import Operation, OperationState, SyncOperation
from app.model.sync import OperationPhase
from app.runtime.runtime import Runtime
from tests.integration.workers.watcher.conftest import (
    WEB,
    Published,
    application,
    config_map,
    kubectl_apply,
    tracked,
)
from tests.support.fixtures_cluster import Kubectl
from tests.support.waiting import eventually
from workers.watcher.settings import WatcherSettings
from workers.watcher.worker import Watcher


@pytest.fixture
def watcher_settings() -> WatcherSettings:
    """No held change is sent for being old during these tests."""
    return WatcherSettings(
        lease_ttl=1.5,
        refresh_window=0.1,
        operation_refresh_window=120.0,
        finishing_wait=120.0,
        tree_interval=0.05,
        retry_delay=0.2,
    )


RUNNING = OperationState(
    operation=Operation(sync=SyncOperation(revision="abc")), phase=OperationPhase.RUNNING
)
ENDED = OperationState(operation=RUNNING.operation, phase=OperationPhase.SUCCEEDED)


async def operation_begun(runtime: Runtime, published: Published, kubectl: Kubectl) -> int:
    """The app registered and compared, then operation op-1 begun; its first step."""
    await kubectl_apply(kubectl, application("web"))
    await published.refresh("web")
    begun = await runtime.operations.begin(WEB, "op-1", RUNNING)
    assert begun is not None
    return begun.step


async def test_changes_during_an_operation_wake_it_and_are_left_to_its_end(
    runtime: Runtime, watcher: Watcher, published: Published, kubectl: Kubectl
) -> None:
    first = await operation_begun(runtime, published, kubectl)
    for step, name in enumerate(("applied", "applied-next")):
        assert await runtime.operations.advance(WEB, "op-1", first + step, RUNNING)
        await runtime.control_plane.create(tracked(config_map(name)))

        async def woken(count: int = step + 1) -> bool:
            return len(published.steps) >= count

        await eventually(woken, what=f"the wake-up for ConfigMap/{name}")
    assert published.refreshes_of("web") == [], "a change was compared while the sync ran"

    assert await runtime.operations.advance(WEB, "op-1", first + 2, ENDED)
    assert await runtime.operations.mark_finalized(WEB, "op-1")
    await runtime.control_plane.create(tracked(config_map("after")))
    refresh = await published.refresh("web")
    assert refresh.reason == "ConfigMap/after changed", "the sync's writes were asked for again"
    assert len(published.steps) == 2


async def test_changes_after_an_operation_ended_wait_for_its_finalized_refresh(
    runtime: Runtime, watcher: Watcher, published: Published, kubectl: Kubectl
) -> None:
    first = await operation_begun(runtime, published, kubectl)
    assert await runtime.operations.advance(WEB, "op-1", first, ENDED)
    await runtime.control_plane.create(tracked(config_map("last-write")))

    async def cached() -> bool:
        snapshot = await runtime.live.read(WEB)
        return any(key.name == "last-write" for key in snapshot.objects)

    await eventually(cached, what="ConfigMap/last-write in the live cache")
    assert await runtime.operations.mark_finalized(WEB, "op-1")
    await runtime.control_plane.create(tracked(config_map("after-end")))
    refresh = await published.refresh("web")
    assert refresh.reason == "ConfigMap/after-end changed", (
        "a change seen before the operation's end was finalized was compared again"
    )
