"""The resource tree: the last one saved, or None; an unreadable one reads as absent."""

import pytest

from app.model.identity import AppRef
from app.store import tree
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


async def test_save_many_writes_every_tree_that_fits_and_names_the_others(
    redis_client: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = TreeStore(redis_client)
    small: list[TreeNode] = [{"version": "v1", "kind": "ConfigMap", "name": "c"}]
    big: list[TreeNode] = [{"version": "v1", "kind": "ConfigMap", "name": "x" * 200}]
    other = AppRef("sluice", "other")
    monkeypatch.setattr(tree, "MAX_TREE_BYTES", 150)
    refused = await store.save_many({APP: small, other: big})
    assert await store.load(APP) == small
    assert await store.load(other) is None
    assert len(refused) == 1 and "sluice/other" in refused[0] and "150" in refused[0]


async def test_delete_forgets_the_tree(redis_client: Redis) -> None:
    store = TreeStore(redis_client)
    await store.save(APP, [{"version": "v1", "kind": "ConfigMap", "name": "c"}])
    await store.delete(APP)
    assert await store.load(APP) is None
