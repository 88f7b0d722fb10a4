"""Connecting to Redis: deadlines on every command and a first PING that proves it is there.

The pool blocks: a burst of commands larger than `max_connections` (a webhook flood, a
fleet resync) waits for a free connection up to the command deadline, instead of failing
with MaxConnectionsError.

Every command and every pipeline is counted in `argocd_redis_request_total` (initiator:
the process, `RedisSettings.client_name`; failed: whether it raised), as Argo CD's
components count theirs.
"""

import asyncio
from dataclasses import dataclass
from typing import Any

import redis.asyncio
import redis.asyncio.client
import redis.exceptions

from app import log
from app.engine.redact import redact_text
from app.metrics.argocd import count_redis_request
from app.store.errors import StoreError

logger = log.get("store")

CONNECTIONS_PER_HANDLER = 4
"""Redis connections one concurrent handler may need at once (a read, a pipeline, a lease
renewal, a publish's dedupe), for sizing the pool to the process's concurrency."""

Redis = redis.asyncio.Redis


class _CountedPipeline(redis.asyncio.client.Pipeline):
    initiator = "sluice"

    async def execute(self, raise_on_error: bool = True) -> list[Any]:
        try:
            result = await super().execute(raise_on_error)
        except BaseException:
            count_redis_request(self.initiator, failed=True)
            raise
        count_redis_request(self.initiator, failed=False)
        return result


class _CountedRedis(redis.asyncio.Redis):
    """A client counting its requests; everything else is redis-py's."""

    initiator = "sluice"

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        try:
            result = await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
        except BaseException:
            count_redis_request(self.initiator, failed=True)
            raise
        count_redis_request(self.initiator, failed=False)
        return result

    def pipeline(
        self, transaction: bool = True, shard_hint: str | None = None
    ) -> redis.asyncio.client.Pipeline:
        pipe = _CountedPipeline(
            self.connection_pool, self.response_callbacks, transaction, shard_hint
        )
        pipe.initiator = self.initiator
        return pipe


@dataclass(frozen=True, slots=True)
class RedisSettings:
    """Where Redis is and how long any command may take."""

    url: str = "redis://127.0.0.1:6379/0"
    """Server URL (`REDIS_URL`); the password in it is never logged."""
    timeout: float = 5.0
    """Seconds to connect, and the deadline of every command."""
    max_connections: int = 64
    """Connections this process keeps open at most; `Runtime.open` raises it to
    `CONNECTIONS_PER_HANDLER` per concurrent handler. A command finding every connection
    busy waits for one (up to `timeout`) instead of failing."""
    client_name: str = "sluice"
    """The process, as the `initiator` label of `argocd_redis_request_total` names it."""


LOADING_POLL_SECONDS = 0.05
"""How often `connect` asks again while the server loads its dataset."""


async def _first_ping(client: Redis, loading: list[bool]) -> None:
    """PING until the server answers; `loading` records that it was seen loading."""
    while True:
        try:
            await client.ping()
            return
        except redis.exceptions.BusyLoadingError:
            loading[:] = [True]
            await asyncio.sleep(LOADING_POLL_SECONDS)


async def connect(settings: RedisSettings) -> Redis:
    """A client whose first PING answered within `timeout`; StoreError otherwise.

    A server still loading its dataset (it refuses commands with LOADING after a
    restart) is waited for within the same `timeout`.
    """
    where = redact_text(settings.url)
    try:
        pool = redis.asyncio.BlockingConnectionPool.from_url(
            settings.url,
            socket_timeout=settings.timeout,
            socket_connect_timeout=settings.timeout,
            health_check_interval=30,
            max_connections=settings.max_connections,
            timeout=settings.timeout,
        )
    except ValueError as e:
        raise StoreError(f"invalid Redis URL {where}: {e}") from None
    client = _CountedRedis(connection_pool=pool)
    client.auto_close_connection_pool = True
    client.initiator = settings.client_name
    loading: list[bool] = []
    try:
        await asyncio.wait_for(_first_ping(client, loading), settings.timeout)
    except TimeoutError:
        await client.aclose()
        if loading:
            raise StoreError(
                f"Redis at {where} was still loading its dataset after "
                f"{settings.timeout:g} s; wait for its log to say it is ready, or start "
                f"it without persistence (Sluice keeps nothing there it cannot rebuild)"
            ) from None
        raise StoreError(
            f"cannot reach Redis at {where} within {settings.timeout:g} s; "
            f"start it (`sluice up` embeds one) or set REDIS_URL"
        ) from None
    except (redis.exceptions.RedisError, OSError) as e:
        await client.aclose()
        raise StoreError(
            f"cannot reach Redis at {where} within {settings.timeout:g} s "
            f"({type(e).__name__}: {redact_text(str(e))}); "
            f"start it (`sluice up` embeds one) or set REDIS_URL"
        ) from None
    logger.info("redis.connected", url=where)
    return client
