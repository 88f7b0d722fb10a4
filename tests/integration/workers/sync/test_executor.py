"""The executor against the local cluster: each engine action, as the API server sees it.

One test per rule of `workers/sync/executor.py`: dry runs store nothing and tolerate a
namespace this sync creates; client-side, server-side and replace applies; Force=true
re-creating an object the server refuses to update; CreateNamespace; prunes guarded by
uid; deletions and finalizer removals of objects that are already gone.
"""

import itertools
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.cluster import Cluster, NotFound, load_kubeconfig
from app.engine.sync import (
    Action,
    Apply,
    ApplyMode,
    CreateNamespace,
    DeleteHook,
    DryRun,
    Prune,
    RemoveHookFinalizer,
)
from app.localcluster import LocalCluster
from app.model.resource import KubeObject, ResourceKey
from app.model.sync import Propagation
from workers.sync.executor import Performed, perform

NS = "exec"
HOOK_FINALIZER = "argocd.argoproj.io/hook-finalizer"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_ids = itertools.count()


@pytest.fixture
async def cluster(local_cluster: LocalCluster) -> AsyncIterator[Cluster]:
    async with Cluster(await load_kubeconfig(local_cluster.kubeconfig_path)) as opened:
        await opened.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
        yield opened


def config_map(name: str, namespace: str = NS, **data: str) -> KubeObject:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace},
        "data": data,
    }


def deployment(name: str, label: str) -> KubeObject:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "selector": {"matchLabels": {"app": label}},
            "template": {
                "metadata": {"labels": {"app": label}},
                "spec": {"containers": [{"name": "main", "image": "nginx"}]},
            },
        },
    }


def common(obj: KubeObject, task_id: int = 0) -> dict[str, Any]:
    return {
        "id": f"1.{next(_ids)}",
        "task_id": task_id,
        "key": ResourceKey.of(obj),
        "api_version": obj["apiVersion"],
    }


def apply(obj: KubeObject, mode: ApplyMode = ApplyMode.APPLY, *, force: bool = False) -> Apply:
    return Apply(**common(obj), object=obj, mode=mode, force=force, validate=True)


async def run(cluster: Cluster, *actions: Action, existed: bool = False) -> Performed:
    return await perform(cluster, [list(actions)], {0: "uid" if existed else ""})


async def get(cluster: Cluster, obj: KubeObject) -> KubeObject | None:
    meta = obj["metadata"]
    try:
        return await cluster.get(
            obj["apiVersion"], obj["kind"], meta["name"], meta.get("namespace", "")
        )
    except NotFound:
        return None


async def test_a_dry_run_stores_nothing(cluster: Cluster) -> None:
    cm = config_map("dry")
    done = await run(cluster, DryRun(**common(cm), object=cm, replace=False, validate=True))
    assert [(r.ok, r.message) for r in done.results] == [(True, "configmap/dry created (dry run)")]
    assert await get(cluster, cm) is None


async def test_a_dry_run_in_a_namespace_this_sync_creates_passes(cluster: Cluster) -> None:
    cm = config_map("early", namespace="later")
    done = await run(cluster, DryRun(**common(cm), object=cm, replace=False, validate=True))
    assert [(r.ok, r.message) for r in done.results] == [
        (True, "configmap/early not validated: namespace later does not exist yet")
    ]


async def test_a_dry_run_of_an_invalid_object_fails_naming_the_field(cluster: Cluster) -> None:
    broken = deployment("broken", "a")
    broken["spec"]["template"]["metadata"]["labels"] = {"app": "b"}
    done = await run(cluster, DryRun(**common(broken), object=broken, replace=False, validate=True))
    (result,) = done.results
    assert not result.ok
    assert "Deployment exec/broken" in result.message and "selector" in result.message
    assert await get(cluster, broken) is None


async def test_client_side_apply_creates_then_configures_keeping_last_applied(
    cluster: Cluster,
) -> None:
    cm = config_map("cfg", a="1")
    created = await run(cluster, apply(cm))
    assert created.results[0].message == "configmap/cfg created"
    changed = await run(cluster, apply(config_map("cfg", b="2")), existed=True)
    assert changed.results[0].message == "configmap/cfg configured"
    live = await get(cluster, cm)
    assert live is not None and live["data"] == {"b": "2"}
    assert LAST_APPLIED in live["metadata"]["annotations"]
    assert changed.applied[0]["metadata"]["uid"] == live["metadata"]["uid"]


async def test_server_side_apply_writes_as_sluice(cluster: Cluster) -> None:
    cm = config_map("ssa", a="1")
    done = await run(cluster, apply(cm, ApplyMode.SERVER_SIDE))
    assert done.results[0].ok
    live = await get(cluster, cm)
    assert live is not None
    managers = {(m["manager"], m["operation"]) for m in live["metadata"]["managedFields"]}
    assert ("sluice", "Apply") in managers


async def test_replace_puts_the_whole_object(cluster: Cluster) -> None:
    await run(cluster, apply(config_map("rep", a="1", b="2")))
    done = await run(cluster, apply(config_map("rep", a="1"), ApplyMode.REPLACE), existed=True)
    assert done.results[0].ok
    live = await get(cluster, config_map("rep"))
    assert live is not None and live["data"] == {"a": "1"}


@pytest.mark.parametrize(
    ("force", "ok"),
    [pytest.param(False, False, id="refused"), pytest.param(True, True, id="force-recreates")],
)
async def test_an_immutable_change_is_refused_unless_forced(
    cluster: Cluster, force: bool, ok: bool
) -> None:
    await run(cluster, apply(deployment("web", "a")))
    before = await get(cluster, deployment("web", "a"))
    done = await run(cluster, apply(deployment("web", "b"), force=force), existed=True)
    (result,) = done.results
    assert result.ok is ok
    after = await get(cluster, deployment("web", "b"))
    assert after is not None and before is not None
    if force:
        assert result.message.startswith("deployment.apps/web replaced (Force=true: ")
        assert after["metadata"]["uid"] != before["metadata"]["uid"]
        assert after["spec"]["selector"] == {"matchLabels": {"app": "b"}}
    else:
        assert "immutable" in result.message
        assert after["metadata"]["uid"] == before["metadata"]["uid"]


@pytest.mark.parametrize(
    ("mode", "labels"),
    [
        pytest.param(ApplyMode.APPLY, {}, id="create"),
        pytest.param(ApplyMode.SERVER_SIDE, {"team": "shop"}, id="managed-namespace-metadata"),
    ],
)
async def test_create_namespace_is_idempotent(
    cluster: Cluster, mode: ApplyMode, labels: dict[str, str]
) -> None:
    namespace = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "fresh", "labels": labels},
    }
    for _ in range(2):
        done = await run(cluster, CreateNamespace(**common(namespace), object=namespace, mode=mode))
        assert done.results[0].ok, done.results[0].message
    live = await get(cluster, namespace)
    assert live is not None
    assert labels.items() <= (live["metadata"].get("labels") or {}).items()


async def test_prune_deletes_only_the_planned_object(cluster: Cluster) -> None:
    planned = await cluster.create(config_map("old"))
    uid = planned["metadata"]["uid"]
    await cluster.delete("v1", "ConfigMap", "old", NS)
    replacement = await cluster.create(config_map("old", owner="someone else"))
    cm = config_map("old")
    done = await run(cluster, Prune(**common(cm), propagation=Propagation.FOREGROUND, uid=uid))
    (result,) = done.results
    assert result.ok and "left alone" in result.message
    live = await get(cluster, cm)
    assert live is not None and live["metadata"]["uid"] == replacement["metadata"]["uid"]
    done = await run(
        cluster,
        Prune(**common(cm), propagation=Propagation.BACKGROUND, uid=live["metadata"]["uid"]),
    )
    assert [(r.ok, r.message) for r in done.results] == [(True, "pruned")]
    assert await get(cluster, cm) is None


async def test_deletions_and_finalizer_removals_of_missing_objects_succeed(
    cluster: Cluster,
) -> None:
    gone = config_map("gone")
    done = await run(
        cluster,
        Prune(**common(gone), propagation=Propagation.FOREGROUND),
        DeleteHook(**common(gone), propagation=Propagation.FOREGROUND),
        RemoveHookFinalizer(**common(gone)),
    )
    assert all(r.ok for r in done.results), done.results


async def test_only_the_hook_finalizer_is_removed(cluster: Cluster) -> None:
    hook = config_map("hook")
    hook["metadata"]["finalizers"] = ["example.com/keep", HOOK_FINALIZER]
    await cluster.create(hook)
    done = await run(cluster, RemoveHookFinalizer(**common(hook)))
    assert done.results[0].ok
    live = await get(cluster, hook)
    assert live is not None and live["metadata"]["finalizers"] == ["example.com/keep"]
