"""The resource tree of an app: its managed objects and what they own, as the UI draws it.

Argo CD's `ApplicationTree` nodes, spelled as its API spells them. The compare worker
writes the whole tree after each comparison; readers get the last one written or None.
"""

import json
from typing import TypedDict

from app import log
from app.store import keys
from app.store.connection import Redis
from app.store.keys import AppIdentity
from app.store.values import dumps

logger = log.get("store")

MAX_TREE_BYTES = 16 << 20


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


class TreeStore:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    async def save(self, app: AppIdentity, nodes: list[TreeNode]) -> None:
        what = f"resource tree of {app.namespace}/{app.name}"
        await self._redis.set(
            keys.tree(app), dumps({"nodes": nodes}, what=what, limit=MAX_TREE_BYTES)
        )

    async def load(self, app: AppIdentity) -> list[TreeNode] | None:
        """The last tree saved; None if there is none (or it is unreadable)."""
        data = await self._redis.get(keys.tree(app))
        if data is None:
            return None
        try:
            nodes = json.loads(data)["nodes"]
        except (ValueError, KeyError, TypeError) as e:
            logger.warning(
                "value.unreadable",
                what=f"resource tree of {app.namespace}/{app.name}",
                error=str(e),
                action="treated as absent",
            )
            return None
        if not isinstance(nodes, list):
            return None
        return nodes
