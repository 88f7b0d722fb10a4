"""Reading the event stream for the API: an app's recent events, and a live feed.

`recent` finds the newest stream sequence among the app's event subjects, replays the
app's events up to it and keeps the last `limit`. `Relay` moves a feed into a bounded
queue from a task of its own, so that a reader can wait with a timeout (for heartbeats)
without ever cancelling a read in the middle and losing the event it was taking.
"""

import asyncio
import collections
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import nats.errors
import nats.js.errors

from app.bus import events, subjects
from app.bus.connection import Bus
from app.bus.errors import BusError
from app.bus.events import EventFeed, StoredEvent
from app.model.identity import AppRef


async def last_sequence(bus: Bus, app: AppRef) -> int:
    """The stream sequence of the app's newest kept event; 0 if it has none."""
    try:
        info = await bus.js.stream_info(
            subjects.EVENTS_STREAM, subjects_filter=subjects.events_filter(app)
        )
        newest = 0
        for subject in info.state.subjects or {}:
            try:
                message = await bus.js.get_last_msg(subjects.EVENTS_STREAM, subject)
            except nats.js.errors.NotFoundError:
                continue
            newest = max(newest, message.seq or 0)
        return newest
    except (nats.errors.Error, TimeoutError) as e:
        raise BusError(f"could not read the events of {app}: {type(e).__name__}: {e}") from None


async def recent(bus: Bus, app: AppRef, limit: int, *, idle: float = 2.0) -> list[StoredEvent]:
    """The app's newest `limit` events, oldest first (a replay quiet for `idle` s ends early)."""
    newest = await last_sequence(bus, app)
    if newest == 0:
        return []
    kept: collections.deque[StoredEvent] = collections.deque(maxlen=limit)
    async with relay(bus, after=0, app=app) as feed:
        while True:
            try:
                event = await asyncio.wait_for(feed.queue.get(), idle)
            except TimeoutError:
                break
            kept.append(event)
            if event.seq >= newest:
                break
    return list(kept)


@dataclass
class Relay:
    """A feed drained into a bounded queue by its own task."""

    queue: "asyncio.Queue[StoredEvent]"
    task: "asyncio.Task[None]"


@contextlib.asynccontextmanager
async def relay(
    bus: Bus, *, after: int | None, app: AppRef | None, size: int = 1000
) -> AsyncIterator[Relay]:
    """Follow events (see `app.bus.events.follow`) into a queue of at most `size` events."""
    queue: asyncio.Queue[StoredEvent] = asyncio.Queue(maxsize=size)

    async def pump(feed: EventFeed) -> None:
        async for event in feed:
            await queue.put(event)

    async with events.follow(bus, after=after, app=app) as feed:
        task = asyncio.create_task(pump(feed), name="api-event-relay")
        try:
            yield Relay(queue, task)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, nats.errors.Error):
                await task
