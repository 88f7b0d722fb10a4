"""Leases: one holder at a time; only the holder renews or releases; a dead holder's expires."""

from app.store.connection import Redis
from app.store.leases import Lease
from tests.support.waiting import eventually


async def test_one_holder_at_a_time(redis_client: Redis) -> None:
    first, second = Lease(redis_client, "poller", 5), Lease(redis_client, "poller", 5)
    assert await first.acquire()
    assert not await second.acquire()
    assert await first.release()
    assert await second.acquire()


async def test_only_the_holder_renews_or_releases(redis_client: Redis) -> None:
    holder, other = Lease(redis_client, "poller", 5), Lease(redis_client, "poller", 5)
    await holder.acquire()
    assert not await other.renew()
    assert not await other.release()
    assert await holder.renew()


async def test_an_unrenewed_lease_expires_and_the_old_holder_cannot_touch_the_new(
    redis_client: Redis,
) -> None:
    dead, next_holder = Lease(redis_client, "poller", 0.2), Lease(redis_client, "poller", 5)
    await dead.acquire()
    await eventually(next_holder.acquire, timeout=3, what="the dead holder's lease to expire")
    assert not await dead.renew()
    assert not await dead.release()
    assert await redis_client.get(next_holder.key) == next_holder.token.encode()
