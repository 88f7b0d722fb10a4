"""The resource tree of an app: what it manages and everything those objects own.

Argo CD's `ApplicationTree`, spelled as its API spells it: one node per object, starting
from the objects the app tracks and following ownerReferences down (a Deployment owns
ReplicaSets, which own Pods), each node with its parents, its health (the health engine's
verdict, absent for kinds without health), resourceVersion, creation time and, for Pods,
the images they run. Nodes come in a stable order: the tracked objects sorted by key,
then their descendants level by level (breadth-first, each object's children sorted by
key); an object reachable twice (two owners, or tracked and owned) appears once, and
ownership cycles end. A tree is bounded (`MAX_NODES`): objects reached beyond it are
counted, not shown.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypedDict

from app.model.health import HealthStatus
from app.model.resource import KubeObject, ResourceKey, metadata, split_api_version

MAX_NODES = 10_000
"""Nodes kept in one app's tree; a larger tree is cut and the rest counted."""


class ResourceRef(TypedDict, total=False):
    group: str
    version: str
    kind: str
    namespace: str
    name: str
    uid: str


class NodeHealth(TypedDict, total=False):
    status: str
    message: str


class InfoItem(TypedDict):
    name: str
    value: str


class TreeNode(TypedDict, total=False):
    """One node: a managed object or something it owns (ReplicaSet, Pod, ...)."""

    group: str
    version: str
    kind: str
    namespace: str
    name: str
    uid: str
    parentRefs: list[ResourceRef]
    health: NodeHealth
    info: list[InfoItem]
    resourceVersion: str
    createdAt: str
    images: list[str]


HealthOf = Callable[[KubeObject], HealthStatus | None]
"""The health of one live object (`app.engine.health.assess`, or a cached form of it)."""
ChildrenOf = Callable[[str], Iterable[KubeObject]]
"""The live objects whose ownerReferences name a uid."""


@dataclass(frozen=True, slots=True)
class ResourceTree:
    nodes: list[TreeNode]
    omitted: int
    """Objects left out because the tree reached MAX_NODES."""
    orphaned: list[TreeNode] = field(default_factory=list)
    """Argo CD's `orphanedNodes`: what the app's namespace holds that no app manages, when
    its project monitors orphans (`app.engine.orphans`)."""


def _uid(obj: KubeObject) -> str:
    return str(metadata(obj).get("uid") or "")


def _parents(obj: KubeObject, namespace: str) -> list[ResourceRef]:
    refs: list[ResourceRef] = []
    owners = metadata(obj).get("ownerReferences")
    for owner in owners if isinstance(owners, list) else ():
        if not isinstance(owner, dict):
            continue
        group, _ = split_api_version(str(owner.get("apiVersion") or ""))
        ref: ResourceRef = {"kind": str(owner.get("kind") or ""), "name": str(owner.get("name"))}
        if group:
            ref["group"] = group
        if namespace:
            ref["namespace"] = namespace
        if owner.get("uid"):
            ref["uid"] = str(owner["uid"])
        refs.append(ref)
    return refs


def _images(obj: KubeObject) -> list[str]:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return []
    images: list[str] = []
    for list_name in ("initContainers", "containers"):
        containers = spec.get(list_name)
        for container in containers if isinstance(containers, list) else ():
            image = container.get("image") if isinstance(container, dict) else None
            if isinstance(image, str) and image and image not in images:
                images.append(image)
    return images


def tree_node(obj: KubeObject, health: HealthOf) -> TreeNode:
    """The node of one live object."""
    meta = metadata(obj)
    group, version = split_api_version(str(obj.get("apiVersion") or ""))
    namespace = str(meta.get("namespace") or "")
    node: TreeNode = {
        "version": version,
        "kind": str(obj.get("kind") or ""),
        "name": str(meta.get("name") or ""),
    }
    if group:
        node["group"] = group
    if namespace:
        node["namespace"] = namespace
    if uid := _uid(obj):
        node["uid"] = uid
    if resource_version := meta.get("resourceVersion"):
        node["resourceVersion"] = str(resource_version)
    if created := meta.get("creationTimestamp"):
        node["createdAt"] = str(created)
    parents = _parents(obj, namespace)
    if parents:
        node["parentRefs"] = parents
    verdict = health(obj)
    if verdict is not None:
        node["health"] = {"status": verdict.status.value}
        if verdict.message:
            node["health"]["message"] = verdict.message
    if node["kind"] == "Pod" and not group:
        images = _images(obj)
        if images:
            node["images"] = images
    return node


def resource_tree(
    tracked: Iterable[KubeObject], children_of: ChildrenOf, health: HealthOf
) -> ResourceTree:
    """The tree under an app's tracked objects (see the module docstring for the order)."""
    nodes: list[TreeNode] = []
    seen: set[str] = set()
    omitted = 0
    queue: list[KubeObject] = sorted(tracked, key=ResourceKey.of)
    position = 0
    while position < len(queue):
        obj = queue[position]
        position += 1
        uid = _uid(obj)
        if uid and uid in seen:
            continue
        seen.add(uid)
        if len(nodes) >= MAX_NODES:
            omitted += 1
            continue
        nodes.append(tree_node(obj, health))
        if uid:
            queue.extend(sorted(children_of(uid), key=ResourceKey.of))
    return ResourceTree(nodes, omitted)
