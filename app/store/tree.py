"""The resource tree of an app: its managed objects and what they own, as the UI draws it.

Argo CD's `ApplicationTree` nodes (built by `app.engine.resource_tree`), and its
`orphanedNodes` when the app's project monitors orphans. The cluster watcher writes an
app's whole tree whenever its objects changed, at most every short interval, many apps
per round trip (`save_many`); readers get the last one written or None.
"""

import json
from collections.abc import Mapping

from app import log
from app.engine.resource_tree import InfoItem, NodeHealth, ResourceRef, TreeNode
from app.model.identity import AppRef
from app.store import keys
from app.store.connection import Redis
from app.store.errors import StoreError
from app.store.values import dumps

logger = log.get("store")

MAX_TREE_BYTES = 16 << 20

__all__ = ["MAX_TREE_BYTES", "InfoItem", "NodeHealth", "ResourceRef", "TreeNode", "TreeStore"]


def _encode(app: AppRef, nodes: list[TreeNode], orphaned: list[TreeNode] | None = None) -> bytes:
    what = f"resource tree of {app.namespace}/{app.name}"
    doc: dict[str, list[TreeNode]] = {"nodes": nodes}
    if orphaned:
        doc["orphanedNodes"] = orphaned
    return dumps(doc, what=what, limit=MAX_TREE_BYTES)


class TreeStore:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    async def save(self, app: AppRef, nodes: list[TreeNode]) -> None:
        await self._redis.set(keys.tree(app), _encode(app, nodes))

    async def save_many(
        self,
        trees: Mapping[AppRef, list[TreeNode]],
        orphaned: Mapping[AppRef, list[TreeNode]] | None = None,
    ) -> list[str]:
        """Save several apps' trees (and orphans) in one round trip. A tree over the size
        limit is not written (the previous one stays); the reason for each is returned."""
        refused: list[str] = []
        encoded: list[tuple[str, bytes]] = []
        for app, nodes in trees.items():
            try:
                encoded.append((keys.tree(app), _encode(app, nodes, (orphaned or {}).get(app))))
            except StoreError as e:
                refused.append(str(e))
        if encoded:
            async with self._redis.pipeline(transaction=False) as pipe:
                for key, data in encoded:
                    pipe.set(key, data)
                await pipe.execute()
        return refused

    async def delete(self, app: AppRef) -> None:
        """Forget the app's tree (the app is gone)."""
        await self._redis.delete(keys.tree(app))

    async def load(self, app: AppRef) -> list[TreeNode] | None:
        """The last tree saved; None if there is none (or it is unreadable)."""
        return await self._load(app, "nodes")

    async def load_orphaned(self, app: AppRef) -> list[TreeNode]:
        """The orphans listed with the last tree saved (none if none were looked for)."""
        return await self._load(app, "orphanedNodes") or []

    async def _load(self, app: AppRef, part: str) -> list[TreeNode] | None:
        data = await self._redis.get(keys.tree(app))
        if data is None:
            return None
        try:
            nodes = json.loads(data).get(part, [])
        except (ValueError, AttributeError, TypeError) as e:
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
