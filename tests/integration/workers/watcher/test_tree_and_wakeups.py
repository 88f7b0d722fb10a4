"""The resource tree (Deployment → ReplicaSet → Pods, with health) and sync wake-ups."""

from app.model.operation import Operation, OperationState, SyncOperation
from app.model.sync import OperationPhase, RefreshLevel
from app.runtime.runtime import Runtime
from app.store.tree import TreeNode
from tests.integration.workers.watcher.conftest import (
    WEB,
    Published,
    application,
    config_map,
    deployment,
    kubectl_apply,
    tracked,
)
from tests.support.fixtures_cluster import Kubectl
from tests.support.waiting import eventually
from workers.watcher.worker import Watcher


def health(node: TreeNode) -> str:
    return node.get("health", {}).get("status", "")


async def test_the_tree_holds_the_deployment_replicaset_pods_chain_with_health(
    runtime: Runtime, watcher: Watcher, kubectl: Kubectl
) -> None:
    await kubectl_apply(kubectl, application("web"))
    await runtime.control_plane.create(tracked(deployment("site", replicas=2)))
    await runtime.control_plane.create(tracked(config_map("settings")))

    async def healthy_tree() -> list[TreeNode] | None:
        nodes = await runtime.tree.load(WEB) or []
        kinds = sorted(n["kind"] for n in nodes)
        if kinds != ["ConfigMap", "Deployment", "Pod", "Pod", "ReplicaSet"]:
            return None
        if any(health(n) != "Healthy" for n in nodes if n["kind"] != "ConfigMap"):
            return None
        return nodes

    nodes = await eventually(healthy_tree, timeout=10, what="a healthy Deployment tree") or []
    by_uid = {n["uid"]: n for n in nodes}
    pods = [n for n in nodes if n["kind"] == "Pod"]
    (replica_set,) = [n for n in nodes if n["kind"] == "ReplicaSet"]
    assert all(p["parentRefs"][0]["uid"] == replica_set["uid"] for p in pods)
    assert by_uid[replica_set["parentRefs"][0]["uid"]]["name"] == "site"
    assert all(p["images"] == ["nginx:1.27"] for p in pods)
    assert "health" not in by_uid[next(n["uid"] for n in nodes if n["kind"] == "ConfigMap")]


async def test_new_health_checks_in_the_settings_rewrite_the_tree(
    runtime: Runtime, watcher: Watcher, kubectl: Kubectl
) -> None:
    await kubectl_apply(kubectl, application("web"))
    await runtime.control_plane.create(tracked(config_map("settings")))

    async def config_map_health() -> str | None:
        nodes = await runtime.tree.load(WEB) or []
        found = [health(n) for n in nodes if n["kind"] == "ConfigMap"]
        return found[0] or "none" if found else None

    assert await eventually(config_map_health, timeout=10, what="the tree") == "none"
    lua = 'return {status = "Suspended", message = "parked"}'
    await runtime.control_plane.create(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "argocd-cm", "namespace": "sluice"},
            "data": {"resource.customizations.health.ConfigMap": lua},
        }
    )

    async def suspended() -> bool:
        return await config_map_health() == "Suspended"

    await eventually(suspended, timeout=10, what="the ConfigMap judged by the new check")


async def test_a_change_under_a_managed_object_asks_for_a_tree_refresh(
    runtime: Runtime, watcher: Watcher, published: Published, kubectl: Kubectl
) -> None:
    await kubectl_apply(kubectl, application("web"))
    await published.refresh("web")
    await runtime.control_plane.create(tracked(deployment("site", replicas=1)))

    async def child_refresh() -> bool:
        return any(
            r.reason.startswith(("Pod/", "ReplicaSet/")) or "more changes" in r.reason
            for r in published.refreshes_of("web")
        )

    await eventually(child_refresh, timeout=10, what="a refresh for a Pod or ReplicaSet")
    assert {r.level for r in published.refreshes_of("web")} <= {
        RefreshLevel.RECENT,
        RefreshLevel.NOTHING,
    }


async def test_a_change_wakes_the_running_operation_at_its_current_step_once(
    runtime: Runtime, watcher: Watcher, published: Published, kubectl: Kubectl
) -> None:
    await kubectl_apply(kubectl, application("web"))
    await published.refresh("web")
    state = OperationState(
        operation=Operation(sync=SyncOperation(revision="abc")), phase=OperationPhase.RUNNING
    )
    begun = await runtime.operations.begin(WEB, "op-1", state)
    assert begun is not None
    assert await runtime.operations.advance(WEB, "op-1", begun.step, state)
    await runtime.control_plane.create(tracked(config_map("cfg")))

    async def woken(count: int) -> bool:
        return len(published.steps) >= count

    await eventually(lambda: woken(1), what="a SyncStep wake-up")
    (step,) = published.steps
    assert (step.app, step.operation, step.step, step.reason) == (
        WEB,
        "op-1",
        begun.step + 1,
        "cluster changed",
    )
    await published.refresh("web")
    for name in ("same-step", "later", "last"):
        await runtime.control_plane.create(tracked(config_map(name)))
        assert (await published.refresh("web")).reason == f"ConfigMap/{name} changed"
    assert len(published.steps) == 1, "the same step was woken twice"

    assert await runtime.operations.advance(WEB, "op-1", begun.step + 1, state)
    await runtime.control_plane.create(tracked(config_map("next-step")))
    await eventually(lambda: woken(2), what="a wake-up of the next step")
    assert published.steps[1].step == begun.step + 2


async def test_no_wake_up_without_a_running_operation(
    runtime: Runtime, watcher: Watcher, published: Published, kubectl: Kubectl
) -> None:
    await kubectl_apply(kubectl, application("web"))
    await published.refresh("web")
    done = OperationState(operation=Operation(), phase=OperationPhase.SUCCEEDED)
    assert await runtime.operations.begin(WEB, "op-0", done)
    await runtime.control_plane.create(tracked(config_map("cfg")))
    refresh = await published.refresh("web")
    assert refresh.reason == "ConfigMap/cfg changed"
    await runtime.control_plane.create(tracked(config_map("later")))
    refresh = await published.refresh("web")
    assert refresh.reason == "ConfigMap/later changed", "the first flush is over"
    assert published.steps == []
