"""One leader at a time: a standby takes over when the leader stops, or when it died."""

from dataclasses import replace

from app.model.identity import AppRef
from app.model.sync import RefreshLevel
from app.runtime.runtime import Runtime
from app.store import keys
from app.store.leases import Lease
from tests.integration.workers.watcher.conftest import (
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
from workers.watcher.worker import Watcher, lease_name


async def synced(replica: Watcher) -> bool:
    return replica.synced


async def registered(rt: Runtime, name: str) -> bool:
    return await rt.apps.get(AppRef(NAMESPACE, name)) is not None


async def test_a_standby_takes_over_when_the_leader_stops(
    runtime: Runtime, start_watcher: Starter, published: Published, kubectl: Kubectl
) -> None:
    leader = await start_watcher()
    standby = await start_watcher(synced=False)
    await kubectl_apply(kubectl, application("first"))
    assert (await published.refresh("first")).level is RefreshLevel.FORCE
    assert not standby.synced, "two replicas lead at once"

    await leader.stop()
    await eventually(lambda: synced(standby), timeout=5, what="the standby to take over")
    await kubectl_apply(kubectl, application("second"))
    assert (await published.refresh("second")).reason == "Application created"
    assert await registered(runtime, "second")
    assert published.refreshes_of("first") == [], "the new leader re-announced an old app"


async def test_a_standby_takes_over_when_the_leaders_lease_expires(
    runtime: Runtime,
    start_watcher: Starter,
    kubectl: Kubectl,
    watcher_settings: WatcherSettings,
) -> None:
    dead = Lease(runtime.redis, lease_name(runtime.control_plane), watcher_settings.lease_ttl)
    assert await dead.acquire()
    standby = await start_watcher(synced=False)
    await kubectl_apply(kubectl, application("web"))
    assert not await registered(runtime, "web")
    await eventually(
        lambda: synced(standby),
        timeout=watcher_settings.lease_ttl * 3,
        what="the standby to take the expired lease",
    )
    await eventually(
        lambda: registered(runtime, "web"), what="the app registered by the new leader"
    )


async def cached(rt: Runtime) -> list[str]:
    """The names in the live cache of `web`, if it is warm."""
    snapshot = await rt.live.read(WEB)
    return [k.name for k in snapshot.objects] if snapshot.warm else []


async def test_a_new_leader_rebuilds_every_live_cache_from_its_own_lists(
    runtime: Runtime, start_watcher: Starter, kubectl: Kubectl
) -> None:
    await kubectl_apply(kubectl, application("web"))
    await runtime.control_plane.create(tracked(config_map("cfg")))
    first = await start_watcher()
    assert await eventually(lambda: cached(runtime), what="the first leader's cache") == ["cfg"]
    await first.stop()
    assert not (await runtime.live.read(WEB)).warm, "a cache nobody keeps stayed warm"
    await start_watcher()
    assert await eventually(lambda: cached(runtime), what="the second leader's cache") == ["cfg"]


async def test_a_leader_that_lost_its_lease_leaves_the_new_leaders_caches_warm(
    runtime: Runtime, start_watcher: Starter, kubectl: Kubectl, watcher_settings: WatcherSettings
) -> None:
    """Redis lost the lease (a flush, an empty restart) and a standby took it; the old
    leader, learning it only at its next renewal, stops after the new leader warmed the
    caches: they stay warm (the new leader would never warm them again)."""
    await kubectl_apply(kubectl, application("web"))
    await runtime.control_plane.create(tracked(config_map("cfg")))
    slow_to_notice = Watcher(runtime, replace(watcher_settings, lease_ttl=60.0))
    await slow_to_notice.start()
    try:
        await eventually(lambda: synced(slow_to_notice), what="the first leader to sync")
        assert await eventually(lambda: cached(runtime), what="its cache") == ["cfg"]
        await runtime.redis.delete(keys.lease(lease_name(runtime.control_plane)))
        await start_watcher()
        assert await eventually(lambda: cached(runtime), what="the new leader's cache") == ["cfg"]
    finally:
        await slow_to_notice.stop()
    assert (await runtime.live.read(WEB)).warm, "the old leader cooled the new leader's cache"
