"""A worker replica in a process of its own, for the crash test: it takes the lease and hangs.

    python -m tests.integration.bus.holder_replica <nats_url> <redis_url> <lease_ttl>

Its handler records that it started (`test:holder-started` in Redis) and then never
returns, holding the (stage, app) lease with heartbeats, until the test kills it (-9).
"""

import asyncio
import os
import sys

from app.bus.connection import NatsSettings, connect
from app.bus.consumer import Consumer, ConsumerSettings, Delivery
from app.bus.messages import REFRESH, RefreshRequest, encode
from app.store.coalescing import Coalescer, CoalesceSettings, Pending
from app.store.connection import RedisSettings
from app.store.connection import connect as connect_redis

STARTED_KEY = "test:holder-started"


async def main(nats_url: str, redis_url: str, lease_ttl: float) -> None:
    bus = await connect(NatsSettings(url=nats_url, name="holder-replica"))
    redis = await connect_redis(RedisSettings(url=redis_url))
    coalescer = Coalescer(redis, "compare", CoalesceSettings(lease_ttl=lease_ttl))

    async def hang(work: Pending) -> None:
        await redis.set(STARTED_KEY, os.getpid())
        await asyncio.Event().wait()

    async def handle(d: Delivery[RefreshRequest]) -> None:
        await coalescer.run(d.message.app, d.message.level, encode(d.message), hang)

    # One slot: once its handler hangs it pulls nothing more, so later work goes elsewhere.
    async with Consumer(bus, REFRESH, handle, ConsumerSettings(fetch_wait=0.2, concurrency=1)):
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3])))
