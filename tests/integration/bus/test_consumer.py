"""The consumer runner settles every message by how its handler ended, within its limits."""

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from app.bus import subjects, topology
from app.bus.connection import Bus, NatsSettings, connect
from app.bus.consumer import Consumer, ConsumerSettings, Delivery
from app.bus.errors import BusError, Poison, Retry
from app.bus.messages import REFRESH, SYNC, RefreshRequest, SyncStep
from app.bus.publish import publish
from app.bus.topology import TopologySettings
from app.model.identity import AppRef
from app.model.sync import RefreshLevel
from tests.support.waiting import eventually

FAST = ConsumerSettings(fetch_wait=0.2, retry_delay=0.1, retry_delay_max=0.4, drain_timeout=2)
APP = AppRef("sluice", "guestbook")

RefreshHandler = Callable[[Delivery[RefreshRequest]], Awaitable[None]]


def _refresh(app: AppRef = APP, reason: str = "test") -> RefreshRequest:
    return RefreshRequest(app, RefreshLevel.LATEST, reason)


async def _stored(bus: Bus) -> int:
    info = await bus.js.stream_info(subjects.WORK_STREAM)
    return int(info.state.messages)


async def _settled(bus: Bus) -> bool:
    return await _stored(bus) == 0


@pytest.fixture
async def replica(nats_url: str) -> AsyncIterator[Bus]:
    """A second connection: another worker replica on the same durable consumer."""
    other = await connect(NatsSettings(url=nats_url, name="replica-2"))
    yield other
    await other.close()


async def test_success_is_acked_and_leaves_the_queue(ready_bus: Bus) -> None:
    seen: list[Delivery[RefreshRequest]] = []

    async def handle(d: Delivery[RefreshRequest]) -> None:
        seen.append(d)

    async with Consumer(ready_bus, REFRESH, handle, FAST):
        await publish(ready_bus, REFRESH, _refresh())
        await eventually(lambda: _settled(ready_bus), timeout=5, what="the message to be acked")
    assert [d.message for d in seen] == [_refresh()]
    assert seen[0].attempt == 1 and seen[0].scheduled_by == ""


async def test_retry_redelivers_after_the_delay_asked(ready_bus: Bus) -> None:
    attempts: list[tuple[int, float]] = []

    async def handle(d: Delivery[RefreshRequest]) -> None:
        attempts.append((d.attempt, time.monotonic()))
        if d.attempt == 1:
            raise Retry("repository unreachable", delay=0.5)

    async with Consumer(ready_bus, REFRESH, handle, FAST):
        await publish(ready_bus, REFRESH, _refresh())
        await eventually(lambda: _settled(ready_bus), timeout=5, what="the retried message")
    assert [a for a, _ in attempts] == [1, 2]
    assert attempts[1][1] - attempts[0][1] >= 0.45


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param(RuntimeError("bug"), id="unexpected-error-backs-off"),
        pytest.param(TimeoutError("inner timeout"), id="handler-timeout-is-an-error"),
    ],
)
async def test_unexpected_failure_is_redelivered(ready_bus: Bus, failure: Exception) -> None:
    attempts: list[int] = []

    async def handle(d: Delivery[RefreshRequest]) -> None:
        attempts.append(d.attempt)
        if d.attempt == 1:
            raise failure

    async with Consumer(ready_bus, REFRESH, handle, FAST):
        await publish(ready_bus, REFRESH, _refresh())
        await eventually(lambda: _settled(ready_bus), timeout=5, what="the redelivered message")
    assert attempts == [1, 2]


async def test_the_backoff_counts_failures_not_the_retries_before_them(ready_bus: Bus) -> None:
    """A handler that waited (Retry) six times, then failed once, is tried again after the
    first failure's delay: a backoff by deliveries would hold it 0.5 * 2**6 = 32 s."""
    attempts: list[int] = []

    async def handle(d: Delivery[RefreshRequest]) -> None:
        attempts.append(d.attempt)
        if d.attempt <= 6:
            raise Retry("the app registry is being rebuilt", delay=0.01)
        if d.attempt == 7:
            raise ConnectionError("Connection closed by server.")

    settings = ConsumerSettings(fetch_wait=0.2, retry_delay=0.5, retry_delay_max=60)
    async with Consumer(ready_bus, REFRESH, handle, settings):
        await publish(ready_bus, REFRESH, _refresh())
        await eventually(
            lambda: _settled(ready_bus), timeout=10, what="the message after a failure"
        )
    assert attempts == [1, 2, 3, 4, 5, 6, 7, 8]


async def test_deadline_cancels_a_stuck_handler_and_redelivers(ready_bus: Bus) -> None:
    attempts: list[int] = []
    cancelled = asyncio.Event()

    async def handle(d: Delivery[RefreshRequest]) -> None:
        attempts.append(d.attempt)
        if d.attempt == 1:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.set()
                raise

    settings = ConsumerSettings(
        fetch_wait=0.2, handler_deadline=0.3, retry_delay=0.1, drain_timeout=2
    )
    async with Consumer(ready_bus, REFRESH, handle, settings):
        await publish(ready_bus, REFRESH, _refresh())
        await eventually(lambda: _settled(ready_bus), timeout=5, what="the redelivered message")
    assert cancelled.is_set() and attempts == [1, 2]


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"{not json", id="not-json"),
        pytest.param(b'{"v":9,"app":"sluice/guestbook","level":"latest","reason":""}', id="v9"),
        pytest.param(b'{"v":1,"app":"sluice/other","level":"latest","reason":""}', id="wrong-app"),
    ],
)
async def test_malformed_message_is_terminated_and_the_worker_goes_on(
    ready_bus: Bus, raw: bytes
) -> None:
    seen: list[RefreshRequest] = []

    async def handle(d: Delivery[RefreshRequest]) -> None:
        seen.append(d.message)

    async with Consumer(ready_bus, REFRESH, handle, FAST):
        await ready_bus.js.publish(subjects.work(subjects.Work.REFRESH, APP), raw)
        await publish(ready_bus, REFRESH, _refresh(reason="after"))
        await eventually(lambda: _settled(ready_bus), timeout=5, what="both messages settled")
    assert seen == [_refresh(reason="after")]


async def test_poison_is_terminated_not_redelivered(ready_bus: Bus) -> None:
    attempts: list[int] = []

    async def handle(d: Delivery[RefreshRequest]) -> None:
        attempts.append(d.attempt)
        if d.message.reason == "poison":
            raise Poison("the app spec can never render")

    async with Consumer(ready_bus, REFRESH, handle, FAST):
        await publish(ready_bus, REFRESH, _refresh(reason="poison"))
        await eventually(lambda: _settled(ready_bus), timeout=5, what="the poison message gone")
        await publish(ready_bus, REFRESH, _refresh(reason="next"))
        await eventually(lambda: _settled(ready_bus), timeout=5, what="the next message")
    assert attempts == [1, 1]


async def test_concurrency_is_bounded_per_process(ready_bus: Bus) -> None:
    running, peak, release = 0, 0, asyncio.Event()

    async def handle(d: Delivery[RefreshRequest]) -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await release.wait()
        running -= 1

    settings = ConsumerSettings(fetch_wait=0.2, concurrency=3, batch=10, drain_timeout=2)
    async with Consumer(ready_bus, REFRESH, handle, settings):
        for i in range(10):
            await publish(ready_bus, REFRESH, _refresh(AppRef("sluice", f"app-{i}")))

        async def three_running() -> bool:
            return running == 3

        await eventually(three_running, timeout=5, what="three handlers running")
        info = await ready_bus.js.consumer_info(subjects.WORK_STREAM, "sluice-refresh")
        assert info.num_ack_pending == 3, "it fetched more than it had free slots for"
        release.set()
        await eventually(lambda: _settled(ready_bus), timeout=5, what="all ten handled")
    assert peak == 3


async def test_heartbeats_keep_a_long_handler_from_redelivery(ready_bus: Bus, replica: Bus) -> None:
    await topology.ensure(ready_bus, TopologySettings(ack_wait=0.6))
    calls: list[str] = []

    def handler(name: str) -> RefreshHandler:
        async def handle(d: Delivery[RefreshRequest]) -> None:
            calls.append(name)
            await asyncio.sleep(1.5)  # the work itself: longer than ack_wait

        return handle

    async with (
        Consumer(ready_bus, REFRESH, handler("first"), FAST),
        Consumer(replica, REFRESH, handler("second"), FAST),
    ):
        await publish(ready_bus, REFRESH, _refresh())
        await eventually(lambda: _settled(ready_bus), timeout=6, what="the long handler's ack")
    assert len(calls) == 1, f"redelivered under a running handler: {calls}"


async def test_stop_drains_running_handlers(ready_bus: Bus) -> None:
    started, finished = asyncio.Event(), asyncio.Event()
    proceed = asyncio.Event()

    async def handle(d: Delivery[RefreshRequest]) -> None:
        started.set()
        await proceed.wait()
        finished.set()

    consumer = Consumer(ready_bus, REFRESH, handle, FAST)
    await consumer.start()
    await publish(ready_bus, REFRESH, _refresh())
    await asyncio.wait_for(started.wait(), 5)
    stopping = asyncio.create_task(consumer.stop())
    await asyncio.sleep(0)
    proceed.set()
    await asyncio.wait_for(stopping, 5)
    assert finished.is_set()

    async def acknowledged() -> bool:  # an ack is a publish: the server may see it a moment later
        return await _stored(ready_bus) == 0

    await eventually(acknowledged, timeout=5, what="the drained handler's ack")


async def test_stop_hands_an_unfinished_handler_to_another_replica(
    ready_bus: Bus, replica: Bus
) -> None:
    started = asyncio.Event()
    seen_by_replica: list[int] = []

    async def stuck(d: Delivery[RefreshRequest]) -> None:
        started.set()
        await asyncio.Event().wait()

    async def other(d: Delivery[RefreshRequest]) -> None:
        seen_by_replica.append(d.attempt)

    leaving = Consumer(
        ready_bus, REFRESH, stuck, ConsumerSettings(fetch_wait=0.2, drain_timeout=0.2)
    )
    await leaving.start()
    await publish(ready_bus, REFRESH, _refresh())
    await asyncio.wait_for(started.wait(), 5)
    async with Consumer(replica, REFRESH, other, FAST):
        await leaving.stop()
        await eventually(lambda: _settled(ready_bus), timeout=3, what="the replica taking over")
    assert seen_by_replica == [2]


async def test_a_replayed_step_is_stored_once(ready_bus: Bus) -> None:
    step = SyncStep(APP, "op-1", 4, "wave 0 healthy")
    first = await publish(ready_bus, SYNC, step)
    second = await publish(ready_bus, SYNC, step)
    assert first == second
    assert await _stored(ready_bus) == 1


async def test_starting_without_the_topology_is_a_clear_error(bus: Bus) -> None:
    async def handle(d: Delivery[RefreshRequest]) -> None:
        raise AssertionError("never called")

    await bus.js.add_stream(name=subjects.WORK_STREAM, subjects=list(subjects.WORK_SUBJECTS))
    with pytest.raises(BusError, match=r"consumer sluice-refresh does not exist.*ensure"):
        await Consumer(bus, REFRESH, handle, FAST).start()
