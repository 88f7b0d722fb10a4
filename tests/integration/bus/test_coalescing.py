"""One handler per (stage, app) at a time across replicas, with coalescing, nothing lost.

Replicas are separate NATS and Redis connections on the same durable consumer (and, for
the crash, a separate process). Every handler run records its span; the invariants are
checked on the spans.
"""

import asyncio
import itertools
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from app.bus import subjects, topology
from app.bus.connection import Bus, NatsSettings, connect
from app.bus.consumer import Consumer, ConsumerSettings, Delivery
from app.bus.errors import Poison
from app.bus.messages import REFRESH, RefreshRequest, encode
from app.bus.subjects import Work
from app.bus.topology import TopologySettings
from app.model.identity import AppRef
from app.model.sync import RefreshLevel
from app.store.coalescing import Coalescer, CoalesceSettings, Pending
from app.store.connection import Redis, RedisSettings
from app.store.connection import connect as connect_redis
from app.store.errors import LeaseLost
from tests.integration.bus.holder_replica import STARTED_KEY
from tests.support.waiting import eventually

APP = AppRef("sluice", "guestbook")
REPO = Path(__file__).resolve().parents[3]
FETCH = ConsumerSettings(fetch_wait=0.2, batch=64, concurrency=16, retry_delay=0.1)


@dataclass
class Span:
    replica: int
    app: AppRef
    level: int
    count: int
    start: float
    end: float = 0.0


@dataclass
class Recorder:
    spans: list[Span] = field(default_factory=list)

    def requests(self, app: AppRef = APP) -> int:
        return sum(s.count for s in self.spans if s.app == app and s.end)

    def overlaps(self, app: AppRef = APP) -> list[tuple[Span, Span]]:
        ordered = sorted((s for s in self.spans if s.app == app), key=lambda s: s.start)
        return [(a, b) for a, b in itertools.pairwise(ordered) if b.start < a.end]


@dataclass
class Replica:
    bus: Bus
    redis: Redis
    coalescer: Coalescer


@pytest.fixture
async def replicas(nats_url: str, redis_db_url: str) -> AsyncIterator[list[Replica]]:
    made: list[Replica] = []
    for i in range(3):
        bus = await connect(NatsSettings(url=nats_url, name=f"replica-{i}"))
        redis = await connect_redis(RedisSettings(url=redis_db_url))
        made.append(Replica(bus, redis, Coalescer(redis, "compare", CoalesceSettings(lease_ttl=1))))
    yield made
    for replica in made:
        await replica.bus.close()
        await replica.redis.aclose()


def _consumer(
    index: int,
    replica: Replica,
    recorder: Recorder,
    work_s: float,
    *,
    gate: asyncio.Event | None = None,
    settings: ConsumerSettings = FETCH,
) -> Consumer[RefreshRequest]:
    """A replica's refresh consumer whose "comparison" takes `work_s` (first run: until `gate`)."""

    async def compare(d: Delivery[RefreshRequest], work: Pending) -> None:
        span = Span(index, d.message.app, work.level, work.count, time.monotonic())
        recorder.spans.append(span)
        if gate is not None and len(recorder.spans) == 1:
            await gate.wait()
        await asyncio.sleep(work_s)  # the comparison itself
        span.end = time.monotonic()

    async def handle(d: Delivery[RefreshRequest]) -> None:
        await replica.coalescer.run(
            d.message.app, d.message.level, encode(d.message), lambda w: compare(d, w)
        )

    return Consumer(replica.bus, REFRESH, handle, settings)


async def _storm(bus: Bus, app: AppRef, levels: list[RefreshLevel]) -> None:
    """Publish fast (core publishes, one flush): the storm, not the publisher, is under test."""
    subject = subjects.work(Work.REFRESH, app)
    for i, level in enumerate(levels):
        await bus.client.publish(subject, encode(RefreshRequest(app, level, f"storm {i}")))
    await bus.client.flush()


async def _settled(bus: Bus) -> bool:
    info = await bus.js.stream_info(subjects.WORK_STREAM)
    return int(info.state.messages) == 0


async def _absorbed(bus: Bus, published: int) -> bool:
    """Every one of `published` messages reached the stream and all but one were acked.

    A core publish is stored by the server after the flush returns, so "one message left"
    alone can be read before the storm has even arrived."""
    state = (await bus.js.stream_info(subjects.WORK_STREAM)).state
    return int(state.last_seq) >= published and int(state.messages) == 1


async def test_storm_during_a_run_becomes_one_follow_up_run_at_the_highest_level(
    ready_bus: Bus, replicas: list[Replica]
) -> None:
    recorder, gate = Recorder(), asyncio.Event()
    storm = [RefreshLevel.RECENT] * 1999
    storm[1000] = RefreshLevel.FORCE
    # Absorbing 2,000 deliveries keeps three replicas' shared event loop busy; a lease that
    # a loaded machine could fail to renew in time would turn this test into one about
    # lease loss (covered below), so the holder's lease here outlives any such stall.
    patient = [
        Replica(r.bus, r.redis, Coalescer(r.redis, "compare", CoalesceSettings(lease_ttl=15)))
        for r in replicas
    ]
    consumers = [_consumer(i, r, recorder, 0.0, gate=gate) for i, r in enumerate(patient)]
    for consumer in consumers:
        await consumer.start()
    try:
        await _storm(ready_bus, APP, [RefreshLevel.RECENT])
        await eventually(lambda: _true(bool(recorder.spans)), timeout=30, what="the first run")
        await _storm(ready_bus, APP, storm)

        await eventually(
            lambda: _absorbed(ready_bus, 1 + len(storm)),
            timeout=60,
            what="every replica to absorb the storm",
        )
        gate.set()

        async def all_answered() -> bool:
            return recorder.requests() == 2000 and await _settled(ready_bus)

        await eventually(all_answered, timeout=30, what="every request answered by a run")
    finally:
        for consumer in consumers:
            await consumer.stop()
    runs = [(s.level, s.count) for s in recorder.spans]
    assert runs == [(RefreshLevel.RECENT, 1), (RefreshLevel.FORCE, 1999)]


async def test_runs_for_one_app_never_overlap_across_replicas(
    ready_bus: Bus, replicas: list[Replica]
) -> None:
    recorder = Recorder()
    one_at_a_time = ConsumerSettings(fetch_wait=0.2, batch=1, concurrency=4)
    consumers = [
        _consumer(i, r, recorder, 0.01, settings=one_at_a_time) for i, r in enumerate(replicas)
    ]
    for consumer in consumers:
        await consumer.start()
    try:
        for burst in range(30):  # each burst after the last one's holder let go of the lease
            await _storm(ready_bus, APP, [RefreshLevel(burst % 4)] * 20)
            await eventually(lambda: _settled(ready_bus), timeout=5, what=f"burst {burst} done")

        async def all_answered() -> bool:
            return recorder.requests() == 600 and await _settled(ready_bus)

        await eventually(all_answered, timeout=20, what="every request answered by a run")
    finally:
        for consumer in consumers:
            await consumer.stop()
    print(
        f"600 refreshes -> {len(recorder.spans)} runs, "
        f"holders: {sorted({s.replica for s in recorder.spans})}"
    )
    assert not recorder.overlaps(), "two runs for one app overlapped"
    assert len({s.replica for s in recorder.spans}) > 1, "one replica did all runs: no contention"


async def test_different_apps_run_at_the_same_time(ready_bus: Bus, replicas: list[Replica]) -> None:
    other = AppRef("sluice", "other")
    b_started = asyncio.Event()
    ran: list[AppRef] = []

    async def handle(d: Delivery[RefreshRequest]) -> None:
        async def compare(work: Pending) -> None:
            ran.append(d.message.app)
            if d.message.app == APP:
                await asyncio.wait_for(b_started.wait(), 5)
            else:
                b_started.set()

        await replicas[0].coalescer.run(d.message.app, d.message.level, encode(d.message), compare)

    async with Consumer(replicas[0].bus, REFRESH, handle, FETCH):
        await _storm(ready_bus, APP, [RefreshLevel.LATEST])
        await _storm(ready_bus, other, [RefreshLevel.LATEST])
        await eventually(lambda: _settled(ready_bus), timeout=8, what="both apps compared")
    assert sorted(ran) == sorted([APP, other])


async def test_a_killed_holders_work_is_finished_by_another_replica(
    ready_bus: Bus, replicas: list[Replica], nats_url: str, redis_db_url: str
) -> None:
    await topology.ensure(ready_bus, TopologySettings(ack_wait=2.0))
    survivor = replicas[0]
    holder = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.integration.bus.holder_replica",
        nats_url,
        redis_db_url,
        "0.8",
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        await _storm(ready_bus, APP, [RefreshLevel.LATEST])

        async def holder_started() -> bool:
            return await survivor.redis.get(STARTED_KEY) == str(holder.pid).encode()

        await eventually(holder_started, timeout=20, what="the other process to take the lease")
        recorder = Recorder()
        async with _consumer(0, survivor, recorder, work_s=0.0):
            await _storm(ready_bus, APP, [RefreshLevel.FORCE])
            holder.kill()  # SIGKILL: no drain, no hand-back, heartbeats just stop
            await asyncio.wait_for(holder.wait(), 5)

            async def taken_over() -> bool:
                return any(s.end for s in recorder.spans) and await _settled(ready_bus)

            await eventually(taken_over, timeout=10, what="a surviving replica to finish the work")
    finally:
        if holder.returncode is None:
            holder.kill()
            await holder.wait()
    (run,) = recorder.spans
    assert run.level == RefreshLevel.FORCE, "the work coalesced while the holder hung was lost"
    assert run.count == 3, "the dead holder's taken work and its own message come back once"


async def test_payload_is_the_highest_levels_newest(redis_client: Redis) -> None:
    coalescer = Coalescer(redis_client, "compare")
    release, got = asyncio.Event(), list[Pending]()

    async def work(p: Pending) -> None:
        got.append(p)
        if len(got) == 1:
            await release.wait()

    first = asyncio.create_task(coalescer.run(APP, 1, b"a", work))
    await eventually(lambda: _true(bool(got)), timeout=5, what="the first run")
    for level, payload in ((2, b"b"), (3, b"c"), (3, b"d"), (1, b"e")):
        assert await coalescer.run(APP, level, payload, work) == 0
    release.set()
    assert await first == 2
    assert got[1] == Pending(level=3, count=4, payload=b"d")


async def test_a_failed_run_hands_its_work_back(redis_client: Redis) -> None:
    coalescer = Coalescer(redis_client, "compare")
    levels: list[int] = []

    async def failing(p: Pending) -> None:
        levels.append(p.level)
        raise RuntimeError("render failed")

    with pytest.raises(RuntimeError):
        await coalescer.run(APP, 3, b"force", failing)

    async def ok(p: Pending) -> None:
        levels.append(p.level)

    assert await coalescer.run(APP, 1, b"recent", ok) == 1
    assert levels == [3, 3], "the failed run's level must come back with the next request"


async def test_a_run_failing_as_redis_restarts_still_hands_its_work_back(
    redis_client: Redis, redis_db_url: str
) -> None:
    """Redis restarting closes every pooled connection: the hand-back's first try meets a
    closed one and is tried again, so the lease is released and the next request runs at
    once (not after lease_ttl, when no request may come for a long while)."""
    coalescer = Coalescer(redis_client, "compare")
    levels: list[int] = []
    other = await connect_redis(RedisSettings(url=redis_db_url))

    async def failing(p: Pending) -> None:
        levels.append(p.level)
        await other.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
        raise RuntimeError("the comparison failed: Redis went away")

    try:
        with pytest.raises(RuntimeError):
            await coalescer.run(APP, 3, b"force", failing)
    finally:
        await other.aclose()

    async def ok(p: Pending) -> None:
        levels.append(p.level)

    assert await coalescer.run(APP, 1, b"recent", ok) == 1
    assert levels == [3, 3], "the failed run's work must come back with the next request"


async def test_a_poison_run_is_dropped_not_handed_back(redis_client: Redis) -> None:
    coalescer = Coalescer(redis_client, "compare")
    seen: list[bytes] = []

    async def work(p: Pending) -> None:
        seen.append(p.payload)
        if p.payload == b"poison":
            raise Poison("source can never render")

    with pytest.raises(Poison):
        await coalescer.run(APP, 3, b"poison", work, discard=(Poison,))
    assert await coalescer.run(APP, 1, b"next", work, discard=(Poison,)) == 1
    assert seen == [b"poison", b"next"]


async def test_a_holder_that_loses_its_lease_is_cancelled(redis_client: Redis) -> None:
    coalescer = Coalescer(redis_client, "compare", CoalesceSettings(lease_ttl=0.3))
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def long_run(p: Pending) -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    running = asyncio.create_task(coalescer.run(APP, 2, b"x", long_run))
    await asyncio.wait_for(started.wait(), 5)
    await redis_client.delete("sluice:lease:{compare:sluice/guestbook}")  # taken over / expired
    with pytest.raises(LeaseLost, match="lost while its handler ran"):
        await asyncio.wait_for(running, 5)
    assert cancelled.is_set()


async def _true(value: bool) -> bool:
    return value
