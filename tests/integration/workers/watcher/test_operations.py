"""The `operation` field (what `argocd app sync` writes): started, then removed; while
another operation runs it waits, and starts when that one's end reaches the status."""

from typing import Any

from app.model.operation import Operation, OperationState
from app.model.sync import OperationPhase
from app.runtime.runtime import Runtime
from tests.integration.workers.watcher.conftest import (
    NAMESPACE,
    WEB,
    Published,
    application,
    kubectl_apply,
)
from tests.support.fixtures_cluster import Kubectl
from tests.support.waiting import eventually
from workers.watcher.worker import Watcher

SYNC_REQUEST = {
    "sync": {"revision": "abc1234", "prune": True},
    "initiatedBy": {"username": "alice"},
}


async def resource(rt: Runtime) -> dict[str, Any]:
    return await rt.control_plane.get("argoproj.io/v1alpha1", "Application", "web", NAMESPACE)


async def field_removed(rt: Runtime) -> bool:
    return "operation" not in await resource(rt)


async def test_an_operation_field_starts_the_operation_and_is_removed(
    runtime: Runtime, watcher: Watcher, published: Published, kubectl: Kubectl
) -> None:
    await kubectl_apply(kubectl, {**application("web"), "operation": SYNC_REQUEST})
    await eventually(lambda: field_removed(runtime), what="the operation field to be removed")
    stored = await runtime.operations.load(WEB)
    assert stored is not None and stored.state.phase is OperationPhase.RUNNING
    sync = stored.state.operation.sync
    assert sync is not None and (sync.revision, sync.prune) == ("abc1234", True)
    assert stored.state.operation.initiated_by.username == "alice"
    assert "alice" in stored.state.message

    async def first_step() -> bool:
        return any(s.operation == stored.id for s in published.steps)

    await eventually(first_step, what="the operation's first SyncStep")


async def test_an_operation_field_waits_while_another_operation_runs(
    runtime: Runtime, watcher: Watcher, published: Published, kubectl: Kubectl
) -> None:
    await kubectl_apply(kubectl, application("web"))
    await published.refresh("web")
    running = OperationState(operation=Operation(), phase=OperationPhase.RUNNING)
    begun = await runtime.operations.begin(WEB, "running-1", running)
    assert begun is not None
    await kubectl_apply(kubectl, {**application("web"), "operation": SYNC_REQUEST})
    labelled = application("web", labels={"next": "event"})
    await kubectl_apply(kubectl, {**labelled, "operation": SYNC_REQUEST})

    async def next_event_handled() -> bool:
        app = await runtime.apps.get(WEB)
        return app is not None and app.metadata.labels == {"next": "event"}

    await eventually(next_event_handled, what="the event after the operation request")
    assert "operation" in await resource(runtime), "the field went while it could not start"
    stored = await runtime.operations.load(WEB)
    assert stored is not None and stored.id == "running-1"

    finished = OperationState(operation=Operation(), phase=OperationPhase.SUCCEEDED)
    assert await runtime.operations.advance(WEB, "running-1", begun.step, finished)
    await runtime.control_plane.patch(
        "argoproj.io/v1alpha1",
        "Application",
        "web",
        {"status": {"operationState": {"phase": "Succeeded", "operation": {}}}},
        namespace=NAMESPACE,
    )
    await eventually(lambda: field_removed(runtime), what="the deferred operation to start")
    stored = await runtime.operations.load(WEB)
    assert stored is not None and stored.id != "running-1"
    assert stored.state.phase is OperationPhase.RUNNING
