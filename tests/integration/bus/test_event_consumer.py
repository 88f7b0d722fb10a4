"""The event stream's durable consumer stops when asked, whatever its pull was doing."""

import asyncio

from nats.aio.msg import Msg

from app.bus import subjects
from app.bus.connection import Bus
from app.bus.event_consumer import EventConsumer, EventConsumerSettings
from app.bus.events import StoredEvent


async def _ignore(_event: StoredEvent, _sequence: int) -> None:
    return None


async def test_stop_returns_when_the_pull_loses_its_cancellation(ready_bus: Bus) -> None:
    """nats-py's fetch waits with asyncio.wait_for, which on Python 3.11 swallows a
    cancellation that arrives as its timeout expires (seen under load: a worker's stop
    hung for the test's whole timeout). The fetch here loses the first cancellation the
    same way, every time."""
    consumer = EventConsumer(
        ready_bus,
        subjects.KUBE_EVENTS_CONSUMER,
        _ignore,
        EventConsumerSettings(fetch_wait=0.2),
    )
    await consumer.start()
    sub = consumer._sub
    assert sub is not None
    real_fetch = sub.fetch
    lost: list[bool] = []

    async def fetch_losing_a_cancel(
        batch: int = 1, timeout: float | None = 5, heartbeat: float | None = None
    ) -> list[Msg]:
        try:
            return await real_fetch(batch, timeout=timeout, heartbeat=heartbeat)
        except asyncio.CancelledError:
            if lost:
                raise
            lost.append(True)
            raise TimeoutError from None

    sub.fetch = fetch_losing_a_cancel  # type: ignore[method-assign]

    stopping = asyncio.ensure_future(consumer.stop())
    done, _ = await asyncio.wait([stopping], timeout=30)

    assert stopping in done, "stop() did not return after the pull lost its cancellation"
    assert lost == [True]
