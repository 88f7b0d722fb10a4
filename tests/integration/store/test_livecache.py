"""The live cache tells cold (unknown) from warm and empty; an incomplete cache stays cold."""

import pytest

from app.model.identity import AppRef
from app.model.resource import ResourceKey
from app.store.connection import Redis
from app.store.errors import StoreError
from app.store.livecache import CacheState, LiveCache

APP = AppRef("sluice", "guestbook")


def _deploy(name: str, image: str = "nginx:1") -> dict[str, object]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"template": {"spec": {"containers": [{"image": image}]}}},
    }


async def test_never_listed_is_cold_not_empty(redis_client: Redis) -> None:
    snapshot = await LiveCache(redis_client).read(APP)
    assert snapshot.state is CacheState.COLD and not snapshot.objects
    assert "not finished listing" in snapshot.reason


async def test_listed_empty_is_warm_and_empty(redis_client: Redis) -> None:
    cache = LiveCache(redis_client)
    await cache.replace(APP, [])
    snapshot = await cache.read(APP)
    assert snapshot.warm and snapshot.objects == {}


async def test_objects_before_the_list_completes_stay_cold(redis_client: Redis) -> None:
    cache = LiveCache(redis_client)
    await cache.put(APP, _deploy("web"))
    snapshot = await cache.read(APP)
    assert not snapshot.warm
    assert ResourceKey("apps", "Deployment", "default", "web") in snapshot.objects


async def test_watch_events_follow_a_warm_list(redis_client: Redis) -> None:
    cache = LiveCache(redis_client)
    await cache.replace(APP, [_deploy("web"), _deploy("api")])
    await cache.put(APP, _deploy("web", "nginx:2"))
    await cache.delete(APP, ResourceKey("apps", "Deployment", "default", "api"))
    snapshot = await cache.read(APP)
    assert snapshot.warm
    web = snapshot.objects[ResourceKey("apps", "Deployment", "default", "web")]
    assert web["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:2"
    assert len(snapshot.objects) == 1


async def test_replace_drops_what_the_new_list_lacks(redis_client: Redis) -> None:
    cache = LiveCache(redis_client)
    await cache.replace(APP, [_deploy("old")])
    await cache.replace(APP, [_deploy("new")])
    assert [k.name for k in (await cache.read(APP)).objects] == ["new"]


async def test_invalidate_makes_it_cold(redis_client: Redis) -> None:
    cache = LiveCache(redis_client)
    await cache.replace(APP, [_deploy("web")])
    await cache.invalidate(APP, reason="watch expired")
    assert (await cache.read(APP)).state is CacheState.COLD


async def test_an_object_too_large_to_cache_makes_the_app_cold(redis_client: Redis) -> None:
    cache = LiveCache(redis_client)
    await cache.replace(APP, [_deploy("web")])
    huge = _deploy("huge")
    huge["data"] = "x" * (3 << 20)
    with pytest.raises(StoreError, match="over the"):
        await cache.put(APP, huge)
    assert (await cache.read(APP)).state is CacheState.COLD


async def test_an_unreadable_object_makes_the_snapshot_cold(redis_client: Redis) -> None:
    cache = LiveCache(redis_client)
    await cache.replace(APP, [_deploy("web")])
    await redis_client.hset("sluice:live:{sluice/guestbook}", "apps/Deployment:default/x", "{")
    snapshot = await cache.read(APP)
    assert snapshot.state is CacheState.COLD and "unreadable" in snapshot.reason


async def test_a_keeper_cools_only_the_cache_it_warmed(redis_client: Redis) -> None:
    cache = LiveCache(redis_client)
    await cache.replace(APP, [_deploy("web")], keeper="old-leader")
    await cache.replace(APP, [_deploy("web")], keeper="new-leader")
    await cache.invalidate(APP, reason="old leader stepped down", keeper="old-leader")
    assert (await cache.read(APP)).warm
    await cache.invalidate(APP, reason="new leader stepped down", keeper="new-leader")
    assert not (await cache.read(APP)).warm
