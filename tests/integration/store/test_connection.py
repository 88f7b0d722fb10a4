"""The Redis pool waits for a free connection instead of failing a burst (issue 13, 11)."""

import asyncio

from app.runtime.runtime import Runtime
from app.store.connection import CONNECTIONS_PER_HANDLER, RedisSettings, connect


async def test_a_burst_larger_than_the_pool_waits_for_connections(redis_db_url: str) -> None:
    client = await connect(RedisSettings(url=redis_db_url, max_connections=2))
    try:
        await client.set("burst", "ok")
        answers = await asyncio.gather(*(client.get("burst") for _ in range(200)))
    finally:
        await client.aclose()
    assert answers == [b"ok"] * 200


async def test_the_pool_is_sized_to_the_process_concurrency(runtime: Runtime) -> None:
    pool = runtime.redis.connection_pool
    assert pool.max_connections >= CONNECTIONS_PER_HANDLER * runtime.settings.concurrency
