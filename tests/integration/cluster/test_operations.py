"""Reads and writes through `Cluster` against the real local cluster over HTTP."""

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from app.cluster import (
    ApplyMode,
    Cluster,
    ClusterSettings,
    Conflict,
    FieldValidation,
    Invalid,
    NotFound,
    PatchType,
    Preconditions,
)
from app.model.annotations import LAST_APPLIED
from app.model.resource import KubeObject
from app.model.sync import Propagation
from tests.integration.cluster.conftest import configmap, open_cluster
from tests.support.manifests import deployment
from tests.support.waiting import eventually


async def test_get_returns_the_live_object(cluster: Cluster, namespace: str) -> None:
    await cluster.create(configmap("cfg", namespace, {"k": "v"}))
    live = await cluster.get("v1", "ConfigMap", "cfg", namespace)
    assert live["data"] == {"k": "v"}
    assert live["metadata"]["uid"] and live["metadata"]["resourceVersion"]


async def test_list_filters_by_label_and_field_selectors(cluster: Cluster, namespace: str) -> None:
    for name, tier in (("a", "web"), ("b", "web"), ("c", "db")):
        await cluster.create(configmap(name, namespace, labels={"tier": tier}))
    web = await cluster.list("v1", "ConfigMap", namespace=namespace, label_selector="tier=web")
    assert sorted(o["metadata"]["name"] for o in web.items) == ["a", "b"]
    assert all(o["apiVersion"] == "v1" and o["kind"] == "ConfigMap" for o in web.items)
    assert web.resource_version
    not_web = await cluster.list(
        "v1", "ConfigMap", namespace=namespace, label_selector="tier notin (web)"
    )
    assert [o["metadata"]["name"] for o in not_web.items] == ["c"]
    by_name = await cluster.list(
        "v1", "ConfigMap", namespace=namespace, field_selector="metadata.name=b"
    )
    assert [o["metadata"]["name"] for o in by_name.items] == ["b"]


async def test_list_joins_pages(local_cluster: Any, namespace: str) -> None:
    async with await open_cluster(local_cluster, ClusterSettings(list_page_size=2)) as small:
        for i in range(5):
            await small.create(configmap(f"p{i}", namespace))
        listed = await small.list("v1", "ConfigMap", namespace=namespace)
    assert sorted(o["metadata"]["name"] for o in listed.items) == [f"p{i}" for i in range(5)]


def managers(obj: dict[str, Any]) -> dict[str, str]:
    return {e["manager"]: e["operation"] for e in obj["metadata"].get("managedFields", [])}


async def test_server_side_apply_creates_then_updates_as_sluice(
    cluster: Cluster, namespace: str
) -> None:
    created = await cluster.apply(deployment("web", namespace, replicas=2))
    assert created["spec"]["replicas"] == 2
    assert managers(created).get("sluice") == "Apply"
    updated = await cluster.apply(deployment("web", namespace, replicas=3))
    assert updated["spec"]["replicas"] == 3
    assert updated["metadata"]["uid"] == created["metadata"]["uid"]


async def test_server_side_apply_conflict_and_force(cluster: Cluster, namespace: str) -> None:
    await cluster.apply(deployment("web", namespace, replicas=2))
    with pytest.raises(Conflict) as caught:
        await cluster.apply(
            deployment("web", namespace, replicas=5), field_manager="other", force=False
        )
    assert any("replicas" in c.field or "replicas" in c.message for c in caught.value.causes)
    assert "sluice" in str(caught.value)
    taken = await cluster.apply(
        deployment("web", namespace, replicas=5), field_manager="other", force=True
    )
    assert taken["spec"]["replicas"] == 5
    with pytest.raises(Conflict):
        await cluster.apply(deployment("web", namespace, replicas=2), force=False)
    back = await cluster.apply(deployment("web", namespace, replicas=2))
    assert back["spec"]["replicas"] == 2


async def test_client_side_apply_removes_a_field_dropped_from_the_manifest(
    cluster: Cluster, namespace: str
) -> None:
    first = await cluster.apply(
        configmap("cfg", namespace, {"a": "1", "b": "2"}), mode=ApplyMode.CLIENT_SIDE
    )
    assert LAST_APPLIED in first["metadata"]["annotations"]
    await cluster.patch(
        "v1",
        "ConfigMap",
        "cfg",
        {"metadata": {"labels": {"added-by": "someone-else"}}},
        namespace=namespace,
    )
    second = await cluster.apply(
        configmap("cfg", namespace, {"a": "1"}), mode=ApplyMode.CLIENT_SIDE
    )
    assert second["data"] == {"a": "1"}
    assert second["metadata"]["labels"] == {"added-by": "someone-else"}
    assert '"b"' not in second["metadata"]["annotations"][LAST_APPLIED]


async def test_client_side_apply_of_an_unchanged_manifest_writes_nothing(
    cluster: Cluster, namespace: str
) -> None:
    manifest = configmap("cfg", namespace, {"a": "1"})
    first = await cluster.apply(manifest, mode=ApplyMode.CLIENT_SIDE)
    again = await cluster.apply(manifest, mode=ApplyMode.CLIENT_SIDE)
    assert again["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]


async def test_replace_puts_the_whole_object_and_creates_when_absent(
    cluster: Cluster, namespace: str
) -> None:
    created = await cluster.replace(configmap("cfg", namespace, {"a": "1", "b": "2"}))
    assert created["data"] == {"a": "1", "b": "2"}
    replaced = await cluster.replace(configmap("cfg", namespace, {"c": "3"}))
    assert replaced["data"] == {"c": "3"}
    assert replaced["metadata"]["uid"] == created["metadata"]["uid"]
    stale = configmap("cfg", namespace, {"d": "4"})
    stale["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
    with pytest.raises(Conflict):
        await cluster.replace(stale)


async def test_patch_types(cluster: Cluster, namespace: str) -> None:
    await cluster.apply(deployment("web", namespace))
    merged = await cluster.patch(
        "apps/v1", "Deployment", "web", {"spec": {"replicas": 4}}, namespace=namespace
    )
    assert merged["spec"]["replicas"] == 4
    strategic = await cluster.patch(
        "apps/v1",
        "Deployment",
        "web",
        {"spec": {"template": {"spec": {"containers": [{"name": "side", "image": "busybox"}]}}}},
        namespace=namespace,
        patch_type=PatchType.STRATEGIC,
    )
    containers = strategic["spec"]["template"]["spec"]["containers"]
    assert {c["name"] for c in containers} == {"main", "side"}
    json_patched = await cluster.patch(
        "apps/v1",
        "Deployment",
        "web",
        [{"op": "replace", "path": "/spec/replicas", "value": 1}],
        namespace=namespace,
        patch_type=PatchType.JSON,
    )
    assert json_patched["spec"]["replicas"] == 1


async def test_status_subresource_changes_only_status(cluster: Cluster, namespace: str) -> None:
    applied = await cluster.apply(deployment("web", namespace))
    generation = applied["metadata"]["generation"]
    live = await cluster.get("apps/v1", "Deployment", "web", namespace)
    live["status"] = {**live.get("status", {}), "observedGeneration": 99}
    live["spec"]["replicas"] = 7
    written = await cluster.replace_status(live)
    assert written["status"]["observedGeneration"] == 99
    assert written["spec"]["replicas"] == 1
    assert written["metadata"]["generation"] == generation
    patched = await cluster.patch(
        "apps/v1",
        "Deployment",
        "web",
        {"status": {"observedGeneration": 100}},
        namespace=namespace,
        subresource="status",
    )
    assert patched["status"]["observedGeneration"] == 100


async def owner_with_dependent(cluster: Cluster, namespace: str) -> tuple[dict[str, Any], str]:
    owner = await cluster.create(configmap("owner", namespace))
    reference = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": "owner",
        "uid": owner["metadata"]["uid"],
    }
    await cluster.create(configmap("dependent", namespace, ownerReferences=[reference]))
    return owner, owner["metadata"]["uid"]


async def exists(cluster: Cluster, name: str, namespace: str) -> bool:
    try:
        await cluster.get("v1", "ConfigMap", name, namespace)
    except NotFound:
        return False
    return True


@pytest.mark.parametrize(
    ("propagation", "dependent_survives"),
    [
        pytest.param(Propagation.BACKGROUND, False, id="background-collects-dependents"),
        pytest.param(Propagation.FOREGROUND, False, id="foreground-collects-dependents"),
        pytest.param(Propagation.ORPHAN, True, id="orphan-keeps-dependents"),
    ],
)
async def test_delete_with_each_propagation_policy(
    cluster: Cluster, namespace: str, propagation: Propagation, dependent_survives: bool
) -> None:
    await owner_with_dependent(cluster, namespace)
    await cluster.delete("v1", "ConfigMap", "owner", namespace, propagation=propagation)

    async def owner_gone() -> bool:
        return not await exists(cluster, "owner", namespace)

    await eventually(owner_gone, timeout=5, what="the owner to be deleted")
    if dependent_survives:
        dependent = await cluster.get("v1", "ConfigMap", "dependent", namespace)
        assert not dependent["metadata"].get("ownerReferences")
    else:

        async def dependent_gone() -> bool:
            return not await exists(cluster, "dependent", namespace)

        await eventually(dependent_gone, timeout=5, what="the dependent to be collected")


async def test_delete_preconditions_and_missing_objects(cluster: Cluster, namespace: str) -> None:
    created = await cluster.create(configmap("cfg", namespace))
    with pytest.raises(Conflict):
        await cluster.delete(
            "v1", "ConfigMap", "cfg", namespace, preconditions=Preconditions(uid="not-the-uid")
        )
    await cluster.delete(
        "v1",
        "ConfigMap",
        "cfg",
        namespace,
        preconditions=Preconditions(uid=created["metadata"]["uid"]),
    )
    assert not await exists(cluster, "cfg", namespace)
    with pytest.raises(NotFound):
        await cluster.delete("v1", "ConfigMap", "cfg", namespace)
    assert await cluster.delete("v1", "ConfigMap", "cfg", namespace, missing_ok=True) is None


async def test_dry_run_leaves_nothing(cluster: Cluster, namespace: str) -> None:
    predicted = await cluster.apply(configmap("ssa", namespace, {"a": "1"}), dry_run=True)
    assert predicted["data"] == {"a": "1"}
    await cluster.apply(
        configmap("csa", namespace, {"a": "1"}), mode=ApplyMode.CLIENT_SIDE, dry_run=True
    )
    await cluster.create(configmap("created", namespace), dry_run=True)
    await cluster.replace(configmap("replaced", namespace), dry_run=True)
    for name in ("ssa", "csa", "created", "replaced"):
        assert not await exists(cluster, name, namespace), name

    live = await cluster.create(configmap("live", namespace, {"a": "1"}))
    await cluster.apply(configmap("live", namespace, {"a": "2"}), dry_run=True)
    await cluster.replace(configmap("live", namespace, {"a": "3"}), dry_run=True)
    await cluster.delete("v1", "ConfigMap", "live", namespace, dry_run=True)
    after = await cluster.get("v1", "ConfigMap", "live", namespace)
    assert after["data"] == {"a": "1"}
    assert after["metadata"]["resourceVersion"] == live["metadata"]["resourceVersion"]


Write = Callable[[Cluster, KubeObject, FieldValidation], Awaitable[KubeObject]]
WRITES: dict[str, Write] = {
    "create": lambda c, o, v: c.create(o, field_validation=v),
    "replace": lambda c, o, v: c.replace(o, field_validation=v),
    "client-side-apply": lambda c, o, v: c.apply(o, mode=ApplyMode.CLIENT_SIDE, field_validation=v),
    "server-side-apply": lambda c, o, v: c.apply(o, field_validation=v),
}


@pytest.mark.parametrize(
    ("write", "existing"),
    [
        *((write, False) for write in WRITES),
        *((write, True) for write in WRITES if write != "create"),
    ],
)
async def test_field_validation_goes_with_every_write(
    cluster: Cluster, namespace: str, write: str, existing: bool
) -> None:
    if existing:
        await cluster.create(configmap("cfg", namespace, {"a": "1"}))
    body = {**configmap("cfg", namespace, {"a": "2"}), "colour": "blue"}
    send = WRITES[write]
    with pytest.raises(Invalid, match='unknown field "colour"'):
        await send(cluster, body, FieldValidation.STRICT)
    stored = await send(cluster, body, FieldValidation.IGNORE)
    assert stored["data"] == {"a": "2"} and "colour" not in stored
