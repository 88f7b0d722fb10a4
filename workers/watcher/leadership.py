"""One leader per lease: wait for it, do the job while holding it, stop the job when it is lost.

`lead(lease, job)` runs forever: it tries to take the lease (every third of its ttl),
runs `job()` while it holds it, renews it every third of its ttl, and cancels the job as
soon as the lease cannot be shown to be ours: renewal refused (someone else holds it), or
no successful renewal for two thirds of the ttl (Redis unreachable: the lease may lapse
before we could know). Cancelling `lead` cancels the job and releases the lease, so a
standby takes over at its next attempt instead of waiting for the lease to expire.

A job that ends by itself (an error) gives the lease up and is started again after a
pause, by whichever replica takes the lease next.
"""

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import redis.exceptions

from app import log
from app.store.leases import Lease
from workers.watcher.cancellation import stop_if_cancelled

logger = log.get("watcher.leadership", stage="watcher")

REDIS_ERRORS = (redis.exceptions.RedisError, OSError, TimeoutError)


async def _attempt(call: Callable[[], Awaitable[bool]], lease: Lease) -> bool:
    try:
        return await call()
    except REDIS_ERRORS as e:
        logger.warning("lease.unreachable", lease=lease.name, error=str(e) or type(e).__name__)
        return False


def _describe(error: BaseException) -> str:
    """An error as a user reads it; a task group's errors one by one."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in error.exceptions)
    return f"{type(error).__name__}: {error}"


async def _hold(lease: Lease, job: asyncio.Task[None]) -> str:
    """Renew until the job ends or the lease is lost; the reason leadership ended."""
    every = lease.ttl / 3
    renewed = time.monotonic()
    while True:
        stop_if_cancelled()
        done, _ = await asyncio.wait([job], timeout=every)
        if done:
            error = job.exception()
            return f"the job failed: {_describe(error)}" if error else "the job ended"
        try:
            if not await lease.renew():
                return "another replica holds the lease"
            renewed = time.monotonic()
        except REDIS_ERRORS as e:
            logger.warning("lease.unreachable", lease=lease.name, error=str(e) or type(e).__name__)
            if time.monotonic() - renewed >= 2 * every:
                return "the lease could not be renewed in time"


async def lead(lease: Lease, job: Callable[[], Coroutine[Any, Any, None]], *, what: str) -> None:
    """Forever: hold `lease` and run `job` while it is held (see the module docstring)."""
    log_ = logger.bind(lease=lease.name, job=what)
    while True:
        stop_if_cancelled()
        if not await _attempt(lease.acquire, lease):
            await asyncio.sleep(lease.ttl / 3)
            continue
        log_.info("leader.elected")
        task = asyncio.create_task(job(), name=f"{what} (leader)")
        reason = "stopped"
        try:
            reason = await _hold(lease, task)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
            released = await _attempt(lease.release, lease)
            log_.info("leader.stepped_down", reason=reason, released=released)
        await asyncio.sleep(lease.ttl / 3)
