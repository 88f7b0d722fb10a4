"""Connecting to Redis: deadlines on every command and a first PING that proves it is there."""

import asyncio
from dataclasses import dataclass

import redis.asyncio
import redis.exceptions

from app import log
from app.engine.redact import redact_text
from app.store.errors import StoreError

logger = log.get("store")

Redis = redis.asyncio.Redis


@dataclass(frozen=True, slots=True)
class RedisSettings:
    """Where Redis is and how long any command may take."""

    url: str = "redis://127.0.0.1:6379/0"
    """Server URL (`REDIS_URL`); the password in it is never logged."""
    timeout: float = 5.0
    """Seconds to connect, and the deadline of every command."""
    max_connections: int = 64
    """Connections this process keeps open at most."""


async def connect(settings: RedisSettings) -> Redis:
    """A client whose first PING answered within `timeout`; StoreError otherwise."""
    where = redact_text(settings.url)
    try:
        client = redis.asyncio.Redis.from_url(
            settings.url,
            socket_timeout=settings.timeout,
            socket_connect_timeout=settings.timeout,
            health_check_interval=30,
            max_connections=settings.max_connections,
        )
    except ValueError as e:
        raise StoreError(f"invalid Redis URL {where}: {e}") from None
    try:
        await asyncio.wait_for(client.ping(), settings.timeout)
    except (redis.exceptions.RedisError, OSError, TimeoutError) as e:
        await client.aclose()
        raise StoreError(
            f"cannot reach Redis at {where} within {settings.timeout:g} s "
            f"({type(e).__name__}: {redact_text(str(e))}); "
            f"start it (`sluice up` embeds one) or set REDIS_URL"
        ) from None
    logger.info("redis.connected", url=where)
    return client
