"""Status never goes backwards: a comparison that began first and finishes last is dropped,
with everything that would follow from it (events, the Application's status, auto-sync)."""

import asyncio
from dataclasses import replace

from app.model.sync import SyncStatusCode
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from app.store.connection import RedisSettings
from tests.integration.workers.compare.conftest import (
    apply_live,
    compare_now,
    config_map,
    event_types,
    events_of,
    ref,
    register,
    resource_status,
    seed_manifests,
    stored,
)
from tests.integration.workers.compare.holding_proxy import HoldingProxy
from tests.support.waiting import eventually
from workers.compare.worker import CompareWorker


async def test_an_older_comparison_finishing_late_never_overwrites_a_newer_one(
    settings: Settings, runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime, automated={"prune": True})
    await seed_manifests(runtime, app, [config_map("web", colour="green")])
    await apply_live(runtime, app, [config_map("web", colour="blue")])
    proxy = await HoldingProxy(settings.redis.url, marker=b"OutOfSync").start()
    slow_settings = replace(settings, redis=RedisSettings(url=proxy.url))
    try:
        async with Runtime.open(slow_settings) as slow_runtime:
            slow = CompareWorker(slow_runtime)
            older = asyncio.create_task(compare_now(slow, app))

            async def held() -> bool:
                return proxy.held.is_set()

            await eventually(held, what="the older comparison's status write to be held")

            await apply_live(runtime, app, [config_map("web", colour="green")])
            await compare_now(worker, app)
            newer = await stored(runtime, app)

            proxy.release()
            await older
    finally:
        await proxy.close()

    final = await stored(runtime, app)
    assert final.seq == newer.seq
    assert final.status.sync.status is SyncStatusCode.SYNCED
    assert (await resource_status(runtime, app))["sync"]["status"] == "Synced"
    assert event_types(await events_of(runtime.bus, app)) == ["synced", "health-changed"]
    assert await runtime.operations.load(ref(app)) is None
