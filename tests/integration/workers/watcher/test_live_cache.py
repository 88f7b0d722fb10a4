"""Destination objects: mirrored into the live cache of the app tracking them, warm once the
first lists are in, every later change followed (watch drops included), refreshes throttled."""

import asyncio
import time
from dataclasses import replace

from app.localcluster import LocalCluster
from app.model.identity import AppRef
from app.model.resource import ResourceKey
from app.model.sync import RefreshLevel
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from app.store.connection import RedisSettings
from tests.integration.workers.compare.holding_proxy import HoldingProxy
from tests.integration.workers.watcher.conftest import (
    DESTINATION,
    NAMESPACE,
    WEB,
    Published,
    Starter,
    application,
    config_map,
    kubectl_apply,
    tracked,
)
from tests.support.fixtures_cluster import Kubectl
from tests.support.waiting import eventually
from workers.watcher.settings import WatcherSettings
from workers.watcher.worker import Watcher


def key(name: str) -> ResourceKey:
    return ResourceKey("", "ConfigMap", DESTINATION, name)


async def cached(rt: Runtime, ref: AppRef = WEB) -> dict[str, str]:
    """`name -> data.n` of every ConfigMap in the app's live cache, if it is warm."""
    snapshot = await rt.live.read(ref)
    if not snapshot.warm:
        return {}
    return {k.name: (o.get("data") or {}).get("n", "") for k, o in snapshot.objects.items()}


async def test_the_cache_is_warm_after_the_first_list_with_exactly_the_tracked_objects(
    runtime: Runtime, start_watcher: Starter, kubectl: Kubectl, namespaces: None
) -> None:
    cluster = runtime.control_plane
    await kubectl_apply(kubectl, application("web"), application("empty"))
    await cluster.create(tracked(config_map("mine", n="1")))
    await cluster.create(tracked(config_map("theirs", n="1"), app="other"))
    await cluster.create(config_map("untracked", n="1"))
    copied = tracked(config_map("copy", n="1"))
    copied["metadata"]["annotations"]["argocd.argoproj.io/tracking-id"] = (
        f"web:/ConfigMap:{DESTINATION}/mine"
    )
    await cluster.create(copied)
    cold = await runtime.live.read(WEB)
    assert not cold.warm

    await start_watcher()

    async def warm() -> dict[str, str]:
        return await cached(runtime)

    assert await eventually(warm, what="a warm cache") == {"mine": "1"}

    empty = AppRef(NAMESPACE, "empty")

    async def empty_warm() -> bool:
        return (await runtime.live.read(empty)).warm

    await eventually(empty_warm, what="the cache of the app tracking nothing to warm")
    assert (await runtime.live.read(empty)).objects == {}


async def test_adds_changes_and_deletes_are_mirrored(
    runtime: Runtime, watcher: Watcher, kubectl: Kubectl
) -> None:
    cluster = runtime.control_plane
    await kubectl_apply(kubectl, application("web"))
    await eventually(lambda: _warm(runtime), what="the app's cache to warm")
    await cluster.create(tracked(config_map("a", n="1")))
    await cluster.create(tracked(config_map("b", n="1")))
    await cluster.replace(tracked(config_map("a", n="2")))
    await cluster.delete("v1", "ConfigMap", "b", DESTINATION)

    async def mirrored() -> bool:
        return await cached(runtime) == {"a": "2"}

    await eventually(mirrored, what="the cache to follow the cluster")


async def test_the_cache_holds_each_object_as_the_cluster_stores_it_managed_fields_too(
    runtime: Runtime, watcher: Watcher, kubectl: Kubectl
) -> None:
    cluster = runtime.control_plane
    await kubectl_apply(kubectl, application("web"))
    await eventually(lambda: _warm(runtime), what="the app's cache to warm")
    await cluster.create(tracked(config_map("a", n="1")))
    await cluster.replace(tracked(config_map("a", n="2")))
    stored = await cluster.get("v1", "ConfigMap", "a", DESTINATION)
    assert stored["metadata"]["managedFields"], "the local cluster records managed fields"

    async def same() -> bool:
        snapshot = await runtime.live.read(WEB)
        return snapshot.objects.get(key("a")) == stored

    await eventually(same, what="the cached object to equal the stored one")


async def _warm(rt: Runtime) -> bool:
    return (await rt.live.read(WEB)).warm


async def test_an_edited_managed_object_asks_for_one_recent_refresh_per_window(
    runtime: Runtime,
    watcher: Watcher,
    published: Published,
    kubectl: Kubectl,
    watcher_settings: WatcherSettings,
) -> None:
    cluster = runtime.control_plane
    await kubectl_apply(kubectl, application("web"))
    await published.refresh("web")
    await eventually(lambda: _warm(runtime), what="the app's cache to warm")
    await cluster.create(tracked(config_map("cfg", n="0")))
    first = await published.refresh("web")
    assert (first.level, first.reason) == (RefreshLevel.RECENT, "ConfigMap/cfg changed")

    started = time.monotonic()
    edits = 40
    for n in range(1, edits + 1):
        await cluster.replace(tracked(config_map("cfg", n=str(n))))
    elapsed = time.monotonic() - started

    async def last_edit_cached() -> bool:
        return (await cached(runtime)).get("cfg") == str(edits)

    await eventually(last_edit_cached, what="the last edit in the cache")
    await published.refresh("web")
    windows = elapsed / watcher_settings.refresh_window
    burst = published.refreshes_of("web")
    assert len(burst) <= windows + 2, f"{len(burst) + 1} refreshes for {edits} edits"
    assert all(r.level is RefreshLevel.RECENT for r in burst)


async def test_a_dropped_watch_resumes_without_losing_a_change(
    runtime: Runtime, watcher: Watcher, kubectl: Kubectl, local_cluster: LocalCluster
) -> None:
    cluster = runtime.control_plane
    await kubectl_apply(kubectl, application("web"))
    await eventually(lambda: _warm(runtime), what="the app's cache to warm")
    for round_ in range(5):
        assert local_cluster.drop_watches() > 0
        await cluster.apply(tracked(config_map(f"cfg{round_}", n=str(round_))))
        await cluster.apply(tracked(config_map("cfg", n=str(round_))))

        async def caught_up(n: int = round_) -> bool:
            found = await cached(runtime)
            return found.get("cfg") == str(n) and f"cfg{n}" in found

        await eventually(caught_up, what=f"the changes made while watches were down ({round_})")


async def test_an_app_registered_later_is_warmed_when_it_appears(
    runtime: Runtime, watcher: Watcher, kubectl: Kubectl
) -> None:
    await runtime.control_plane.create(tracked(config_map("early", n="1")))
    await kubectl_apply(kubectl, application("web"))

    async def warm() -> dict[str, str]:
        return await cached(runtime)

    assert await eventually(warm, what="the new app's cache") == {"early": "1"}


async def test_a_change_made_while_a_batch_is_written_is_refreshed_after_its_own_write(
    settings: Settings,
    runtime: Runtime,
    start_watcher: Starter,
    published: Published,
    kubectl: Kubectl,
) -> None:
    proxy = await HoldingProxy(settings.redis.url, b"first-edit").start()
    try:
        held = replace(settings, redis=RedisSettings(url=proxy.url))
        async with Runtime.open(held) as rt:
            replica = await start_watcher(rt=rt)
            await kubectl_apply(kubectl, application("web"))
            await published.refresh("web")
            await eventually(lambda: _warm(runtime), what="the app's cache to warm")
            await runtime.control_plane.create(tracked(config_map("cfg", n="first-edit")))
            await asyncio.wait_for(proxy.held.wait(), 5)
            await runtime.control_plane.replace(tracked(config_map("cfg", n="second")))
            app = await runtime.apps.get(WEB)
            assert app is not None
            watch = replica.watch_of(app)
            assert watch is not None

            async def seen_by_the_watcher() -> bool:
                objects = watch.tracked(WEB) or []
                return any(o["data"]["n"] == "second" for o in objects)

            await eventually(seen_by_the_watcher, what="the second edit in the watcher's index")
            proxy.release()

            async def second_cached() -> bool:
                return (await cached(runtime)).get("cfg") == "second"

            await eventually(second_cached, what="the second edit in the live cache")
            await published.refresh("web")
            await published.refresh("web")
    finally:
        await proxy.close()
