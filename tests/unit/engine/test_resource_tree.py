"""The resource tree: tracked objects and what they own, with health, in a stable order."""

from collections import defaultdict
from typing import Any

from app.engine import resource_tree
from app.engine.health import assess
from app.engine.resource_tree import resource_tree as build
from app.model.health import HealthStatus, HealthStatusCode


def obj(kind: str, name: str, uid: str, api_version: str = "v1", owners: tuple[str, ...] = (),
        **fields: Any) -> dict[str, Any]:  # fmt: skip
    meta: dict[str, Any] = {"name": name, "namespace": "d", "uid": uid, "resourceVersion": "7"}
    if owners:
        meta["ownerReferences"] = [
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": o, "uid": o} for o in owners
        ]
    return {"apiVersion": api_version, "kind": kind, "metadata": meta, **fields}


def index(objects: list[dict[str, Any]]) -> Any:
    children: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for o in objects:
        for ref in o["metadata"].get("ownerReferences", []):
            children[ref["uid"]].append(o)
    return lambda uid: children.get(uid, [])


READY_POD: dict[str, Any] = {
    "spec": {"containers": [{"name": "m", "image": "nginx:1.27"}], "restartPolicy": "Always"},
    "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
}


def test_deployment_replicaset_pods_chain_with_health_and_images() -> None:
    deploy = obj("Deployment", "web", "d1", "apps/v1")
    rs = obj("ReplicaSet", "web-1", "r1", "apps/v1")
    rs["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d1"}
    ]
    pods = [obj("Pod", f"web-1-{i}", f"p{i}", owners=("r1",), **READY_POD) for i in (2, 1)]
    tree = build([deploy], index([rs, *pods]), assess)
    assert [(n["kind"], n["name"]) for n in tree.nodes] == [
        ("Deployment", "web"), ("ReplicaSet", "web-1"), ("Pod", "web-1-1"), ("Pod", "web-1-2"),
    ]  # fmt: skip
    pod = tree.nodes[2]
    assert pod["parentRefs"] == [
        {"group": "apps", "kind": "ReplicaSet", "namespace": "d", "name": "r1", "uid": "r1"}
    ]
    assert pod["health"] == {"status": "Healthy"} and pod["images"] == ["nginx:1.27"]
    assert "group" not in pod and tree.nodes[0]["group"] == "apps"
    assert tree.omitted == 0


def test_kinds_without_health_have_no_health_field() -> None:
    tree = build([obj("ConfigMap", "c", "c1")], index([]), assess)
    assert "health" not in tree.nodes[0]


def test_each_object_appears_once_and_cycles_end() -> None:
    a = obj("ReplicaSet", "a", "a", "apps/v1", owners=("b",))
    b = obj("ReplicaSet", "b", "b", "apps/v1", owners=("a",))
    tree = build([a, b], index([a, b]), assess)
    assert [n["name"] for n in tree.nodes] == ["a", "b"]


def test_trees_are_bounded(monkeypatch: Any) -> None:
    monkeypatch.setattr(resource_tree, "MAX_NODES", 3)
    pods = [obj("Pod", f"p{i}", f"p{i}", owners=("r",)) for i in range(5)]
    tree = build([obj("ReplicaSet", "r", "r", "apps/v1")], index(pods), assess)
    assert (len(tree.nodes), tree.omitted) == (3, 3)


def test_health_comes_from_the_function_given() -> None:
    verdict = HealthStatus(HealthStatusCode.DEGRADED, "broken")
    tree = build([obj("ConfigMap", "c", "c1")], index([]), lambda _o: verdict)
    assert tree.nodes[0]["health"] == {"status": "Degraded", "message": "broken"}
