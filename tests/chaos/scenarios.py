"""The faults of the chaos suite, one scenario each.

A scenario's `inject(stack, rng, scale)` runs while the fleet syncs a new commit: it
waits a random moment (from the trial's seeded `rng`), breaks something, and heals it
before it returns; `scale` shortens its outages for the reduced run in `just test`.
Sleeping is the point here (the fault's timing), never a wait for a result.
"""

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from app.bus import subjects
from app.bus.connection import NatsSettings, connect
from app.store.connection import RedisSettings
from app.store.connection import connect as connect_redis
from tests.chaos import gitserver
from tests.chaos.stack import KINDS, Stack

Inject = Callable[[Stack, random.Random, float], Awaitable[None]]


@dataclass(frozen=True)
class Scenario:
    name: str
    inject: Inject


async def _pause(rng: random.Random, low: float, high: float) -> None:
    await asyncio.sleep(rng.uniform(low, high))


async def kill_every_kind(stack: Stack, rng: random.Random, scale: float) -> None:
    """kill -9 of every replica of each worker kind, each kind at its own moment."""

    async def one(name: str) -> None:
        await _pause(rng, 0.2, 6.0 * scale + 0.5)
        for replica in range(stack.replicas):
            await stack.workers.kill(name, replica)
        await _pause(rng, 0.2, 2.0)
        await asyncio.gather(*(stack.workers.start(name, r) for r in range(stack.replicas)))

    await asyncio.gather(*(one(name) for name in KINDS))


async def kill_one_replica(stack: Stack, rng: random.Random, scale: float) -> None:
    """Of each kind, one replica killed -9 mid-sync while the other carries on."""

    async def one(name: str) -> None:
        replica = rng.randrange(stack.replicas)
        await _pause(rng, 0.2, 6.0 * scale + 0.5)
        await stack.workers.kill(name, replica)
        await _pause(rng, 2.0, 8.0 * scale + 2.0)
        await stack.workers.start(name, replica)

    await asyncio.gather(*(one(name) for name in KINDS))


async def kill_nats(stack: Stack, rng: random.Random, scale: float) -> None:
    """kill -9 of every NATS member, restarted on its store."""
    await _pause(rng, 0.5, 5.0 * scale + 0.5)
    for index in range(len(stack.nats.options)):
        stack.nats.kill(index)
    await _pause(rng, 0.5, 3.0)
    for index in range(len(stack.nats.options)):
        stack.nats.restart(index)


async def kill_stream_leader(stack: Stack, rng: random.Random, scale: float) -> None:
    """kill -9 of the work stream's leader mid-sync, restarted on its store later."""
    await _pause(rng, 0.5, 5.0 * scale + 0.5)
    bus = await connect(NatsSettings(url=stack.nats.urls, name="chaos"))
    try:
        info = await bus.js.stream_info(subjects.WORK_STREAM)
    finally:
        await bus.close()
    leader = str(info.cluster.leader if info.cluster else "")
    index = stack.nats.index_of(leader)
    stack.nats.kill(index)
    await _pause(rng, 2.0, 10.0 * scale + 2.0)
    stack.nats.restart(index)


async def kill_redis(stack: Stack, rng: random.Random, scale: float) -> None:
    """kill -9 of Redis, restarted empty (it is a cache)."""
    await _pause(rng, 0.5, 6.0 * scale + 0.5)
    stack.kill_redis()
    await _pause(rng, 0.5, 3.0)
    stack.start_redis()


async def flush_redis(stack: Stack, rng: random.Random, scale: float) -> None:
    """Redis FLUSHALL mid-sync."""
    await _pause(rng, 0.5, 6.0 * scale + 0.5)
    client = await connect_redis(RedisSettings(url=stack.redis_url))
    try:
        await client.flushall()
    finally:
        await client.aclose()


async def api_errors(stack: Stack, rng: random.Random, scale: float) -> None:
    """5 % of API requests 500, 5 % 429, and every watch dropped twice."""
    stack.cluster.faults.configure(error_rate=0.05, throttle_rate=0.05)
    try:
        for _ in range(2):
            await _pause(rng, 1.0, 8.0 * scale + 1.0)
            stack.cluster.drop_watches()
    finally:
        stack.cluster.faults.clear()


async def api_slow(stack: Stack, rng: random.Random, scale: float) -> None:
    """20 % of API requests held a second, 2 % timing out after 3 s, watches dropped."""
    stack.cluster.faults.configure(
        slow_rate=0.2, slow_seconds=1.0, timeout_rate=0.02, timeout_seconds=3.0
    )
    try:
        await _pause(rng, 1.0, 8.0 * scale + 1.0)
        stack.cluster.drop_watches()
        await _pause(rng, 1.0, 8.0 * scale + 1.0)
    finally:
        stack.cluster.faults.clear()


def _git_fault(mode: str, seconds: float) -> Inject:
    async def inject(stack: Stack, rng: random.Random, scale: float) -> None:
        await _pause(rng, 0.0, 2.0)
        stack.git.mode = mode
        try:
            await asyncio.sleep(seconds * scale)
        finally:
            stack.git.mode = gitserver.OK

    return inject


async def partition(stack: Stack, rng: random.Random, scale: float) -> None:
    """One worker kind's replica 0 cut off from NATS for 20 s."""
    name = rng.choice(KINDS)
    await _pause(rng, 0.5, 4.0 * scale + 0.5)
    proxy = stack.proxies[name]
    proxy.cut()
    try:
        await asyncio.sleep(20.0 * scale)
    finally:
        proxy.heal()


SCENARIOS = (
    Scenario("kill-every-kind", kill_every_kind),
    Scenario("kill-one-replica", kill_one_replica),
    Scenario("kill-nats", kill_nats),
    Scenario("kill-stream-leader", kill_stream_leader),
    Scenario("kill-redis", kill_redis),
    Scenario("redis-flushall", flush_redis),
    Scenario("api-errors", api_errors),
    Scenario("api-slow", api_slow),
    Scenario("git-unreachable", _git_fault(gitserver.UNREACHABLE, 30.0)),
    Scenario("git-garbage", _git_fault(gitserver.GARBAGE, 20.0)),
    Scenario("nats-partition", partition),
)
"""Every scenario, in the order `just chaos` runs them."""
