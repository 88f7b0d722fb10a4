"""How manifests-ready messages for one app coalesce while a comparison is running."""

import asyncio

from app.bus.messages import COMPARE, ManifestsReady, decode, encode
from app.model.identity import AppRef
from app.model.sync import RefreshLevel
from app.store.coalescing import Coalescer, Pending
from app.store.connection import Redis
from workers.compare.worker import _precedence

APP = AppRef("sluice", "web")
A = "a" * 40
B = "b" * 40


async def test_the_newest_render_outcome_wins_over_a_higher_level_and_over_recent(
    redis_client: Redis,
) -> None:
    coalescer = Coalescer(redis_client, "compare")
    seen: list[ManifestsReady] = []
    running = asyncio.Event()
    release = asyncio.Event()

    async def handle(pending: Pending) -> None:
        seen.append(decode(COMPARE, pending.payload))
        if len(seen) == 1:
            running.set()
            await release.wait()

    async def offer(message: ManifestsReady) -> int:
        return await coalescer.run(APP, _precedence(message), encode(message), handle)

    holder = asyncio.create_task(offer(ManifestsReady(APP, RefreshLevel.RECENT, ())))
    await asyncio.wait_for(running.wait(), 5)
    for later in (
        ManifestsReady(APP, RefreshLevel.FORCE, (A,)),
        ManifestsReady(APP, RefreshLevel.LATEST, (B,)),
        ManifestsReady(APP, RefreshLevel.RECENT, ()),
    ):
        assert await offer(later) == 0
    release.set()
    assert await asyncio.wait_for(holder, 5) == 2

    assert [m.revisions for m in seen] == [(), (B,)]
