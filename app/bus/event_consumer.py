"""Consuming the event stream with a durable consumer: every event at least once.

`app.bus.events.follow` is for readers that may miss nothing while connected (the API's
stream); a component that must see every event across restarts (the notifications
worker) pulls a durable consumer of SLUICE_EVENTS instead, shared by its replicas, and
settles each event from how its handler ended:

    returned           -> ack
    raised Retry       -> nak with the delay it asked for
    raised Poison      -> term (never redelivered), logged as an error
    unreadable event   -> term, logged; the handler never sees it
    any other error    -> nak with backoff (1 s doubling to 60 s), logged with its traceback
    over the deadline  -> nak with backoff (handlers are short: a lookup and a publish)
    stopped            -> nak without delay, so another replica takes it now
"""

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import nats.errors
from nats.aio.msg import Msg
from nats.js import JetStreamContext

from app import log
from app.bus import subjects
from app.bus.connection import Bus
from app.bus.errors import MessageError, Poison, Retry
from app.bus.events import StoredEvent, stored_event

logger = log.get("bus")

Handler = Callable[[StoredEvent, int], Awaitable[None]]
"""Handles one event; the second argument is its delivery attempt (1 on first delivery)."""


@dataclass(frozen=True, slots=True)
class EventConsumerSettings:
    concurrency: int = 16
    """Events handled at once in this process."""
    fetch_wait: float = 2.0
    """Seconds an idle pull waits for an event (also the longest a stop waits)."""
    handler_deadline: float = 20.0
    """Seconds a handler may take before it is cancelled and its event redelivered."""
    retry_delay: float = 1.0
    retry_delay_max: float = 60.0
    drain_timeout: float = 10.0


class EventConsumer:
    """Runs `handler` for every event the durable consumer `durable` delivers."""

    def __init__(
        self,
        bus: Bus,
        durable: str,
        handler: Handler,
        settings: EventConsumerSettings | None = None,
    ) -> None:
        self._bus = bus
        self._durable = durable
        self._handler = handler
        self._settings = settings or EventConsumerSettings()
        self._log = logger.bind(consumer=durable, client=bus.settings.name)
        self._sub: JetStreamContext.PullSubscription | None = None
        self._loop: asyncio.Task[None] | None = None
        self._slots = asyncio.Semaphore(self._settings.concurrency)
        self._running: set[asyncio.Task[None]] = set()
        self._stopping = False
        """Set by `stop`: the pull loop ends even if its cancellation is lost. nats-py's fetch
        waits with `asyncio.wait_for`, which on Python 3.11 swallows a cancellation that
        arrives as its timeout expires, and the loop then fetched again for good."""

    async def start(self) -> None:
        self._sub = await self._bus.js.pull_subscribe_bind(
            durable=self._durable, stream=subjects.EVENTS_STREAM
        )
        self._loop = asyncio.create_task(self._pull(), name=f"events:{self._durable}")
        self._log.info("consumer.started")

    async def stop(self) -> None:
        self._stopping = True
        if self._loop is not None:
            self._loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop
        if self._running:
            _, late = await asyncio.wait(self._running, timeout=self._settings.drain_timeout)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
        if self._sub is not None:
            with contextlib.suppress(nats.errors.Error):
                await self._sub.unsubscribe()
        self._log.info("consumer.stopped")

    async def _pull(self) -> None:
        assert self._sub is not None
        while not self._stopping:
            await self._slots.acquire()
            try:
                msgs = await self._sub.fetch(1, timeout=self._settings.fetch_wait)
            except TimeoutError:
                self._slots.release()
                continue
            except nats.errors.Error as e:
                self._slots.release()
                self._log.warning("consumer.pull_failed", error=f"{type(e).__name__}: {e}")
                await asyncio.sleep(1.0)
                continue
            for i, msg in enumerate(msgs):
                if i:
                    await self._slots.acquire()
                task = asyncio.create_task(self._handle(msg), name=f"event:{msg.subject}")
                self._running.add(task)
                task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        self._slots.release()

    async def _handle(self, msg: Msg) -> None:
        meta = msg.metadata
        attempt = meta.num_delivered or 1
        log_ = self._log.bind(subject=msg.subject, seq=meta.sequence.stream, attempt=attempt)
        try:
            event = stored_event(msg.subject, meta.sequence.stream, msg.data)
        except (MessageError, ValueError) as e:
            log_.error("event.unreadable", error=str(e), action="terminated")
            await self._settle(msg.term(), "term")
            return
        try:
            async with asyncio.timeout(self._settings.handler_deadline):
                await self._handler(event, attempt)
        except Retry as r:
            log_.info("event.retry", reason=r.reason, delay_s=r.delay)
            await self._settle(msg.nak(delay=r.delay), "nak")
        except Poison as p:
            log_.error("event.poison", reason=p.reason, action="terminated")
            await self._settle(msg.term(), "term")
        except asyncio.CancelledError:
            await self._settle(msg.nak(), "nak")
            raise
        except Exception:  # any other failure is redelivered with backoff
            s = self._settings
            delay = float(min(s.retry_delay * 2 ** min(attempt - 1, 30), s.retry_delay_max))
            log_.exception("event.failed", delay_s=delay)
            await self._settle(msg.nak(delay=delay), "nak")
        else:
            await self._settle(msg.ack(), "ack")

    async def _settle(self, action: Awaitable[None], verb: str) -> None:
        try:
            await action
        except nats.errors.Error as e:
            self._log.warning("event.settle_failed", verb=verb, error=str(e))
