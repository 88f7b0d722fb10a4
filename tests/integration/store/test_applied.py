"""Applied objects reach the live cache, but never over a newer copy the watcher wrote."""

import pytest

from app.model.identity import AppRef
from app.model.resource import KubeObject, ResourceKey
from app.store.applied import AppliedObjects
from app.store.connection import Redis
from app.store.errors import StoreError
from app.store.livecache import MAX_OBJECT_BYTES, LiveCache

APP = AppRef("sluice", "guestbook")


def deployment(version: str, replicas: int) -> KubeObject:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "resourceVersion": version},
        "spec": {"replicas": replicas},
    }


KEY = ResourceKey("apps", "Deployment", "shop", "web")


@pytest.mark.parametrize(
    ("cached", "written"),
    [
        pytest.param(None, True, id="absent-is-written"),
        pytest.param("41", True, id="older-is-replaced"),
        pytest.param("42", False, id="same-version-is-kept"),
        pytest.param("43", False, id="newer-is-kept"),
        pytest.param("not-a-number", False, id="unorderable-copy-is-kept"),
    ],
)
async def test_an_applied_object_replaces_only_an_older_copy(
    redis_client: Redis, cached: str | None, written: bool
) -> None:
    live = LiveCache(redis_client)
    if cached is not None:
        await live.put(APP, deployment(cached, 1))
    count = await AppliedObjects(redis_client).put_newer(APP, [deployment("42", 3)])
    assert count == int(written)
    snapshot = await live.read(APP)
    expected = "42" if written else cached
    assert snapshot.objects[KEY]["metadata"]["resourceVersion"] == expected


async def test_an_oversized_object_is_refused_and_nothing_is_written(redis_client: Redis) -> None:
    big = deployment("7", 1)
    big["data"] = "x" * MAX_OBJECT_BYTES
    with pytest.raises(StoreError, match="over the"):
        await AppliedObjects(redis_client).put_newer(APP, [deployment("6", 1), big])
    assert (await LiveCache(redis_client).read(APP)).objects == {}
