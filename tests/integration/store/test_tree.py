"""The resource tree: the last one saved, or None; an unreadable one reads as absent."""

from app.bus.subjects import AppRef
from app.store.connection import Redis
from app.store.tree import TreeNode, TreeStore

APP = AppRef("sluice", "guestbook")


async def test_save_then_load(redis_client: Redis) -> None:
    store = TreeStore(redis_client)
    assert await store.load(APP) is None
    nodes: list[TreeNode] = [
        {"group": "apps", "version": "v1", "kind": "Deployment", "namespace": "default",
         "name": "web", "uid": "u1", "health": {"status": "Healthy"}},
        {"group": "apps", "version": "v1", "kind": "ReplicaSet", "namespace": "default",
         "name": "web-5d", "uid": "u2",
         "parentRefs": [{"group": "apps", "kind": "Deployment", "name": "web", "uid": "u1"}]},
    ]  # fmt: skip
    await store.save(APP, nodes)
    assert await store.load(APP) == nodes
    await store.save(APP, nodes[:1])
    assert await store.load(APP) == nodes[:1]


async def test_unreadable_tree_is_absent(redis_client: Redis) -> None:
    await redis_client.set("sluice:tree:{sluice/guestbook}", b"[1, 2")
    assert await TreeStore(redis_client).load(APP) is None
