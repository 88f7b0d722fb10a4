"""Consuming work: pull in batches, run handlers with bounded concurrency, settle each message.

One `Consumer` runs one kind of work in one process; every replica runs one on the same
durable consumer, and JetStream hands each message to one of them. The loop fetches at
most as many messages as there are free handler slots, so a busy replica leaves work to
the others. When idle it waits for a single message; after a delivery it takes what is
already queued in batches with a short wait (`collect_wait`). Waiting for a whole batch
would hold a message that arrives alone until the pull expires (up to `fetch_wait`): a
multi-message fetch returns only once its batch is full, the server says "no more", or
its time is up. Each message is settled exactly once by the runner, from how its handler
ended:

    returned           -> ack
    raised Retry       -> nak with the delay it asked for
    raised Poison      -> term (never redelivered), logged as an error
    malformed message  -> term, logged; the handler never sees it
    deadline exceeded  -> nak with backoff (handler_deadline bounds every handler)
    any other error    -> nak with backoff, logged with its traceback
    stopped (drain)    -> nak without delay, so another replica takes it now

The backoff doubles with each failure of the message, not with each delivery: a message
whose handler asked for Retry many times (waiting for a cache to be rebuilt) and then
failed once (Redis restarting under it) is redelivered after `retry_delay`, not after
the delay its number of deliveries would give. Failures are counted in this process.

While a handler runs, the message gets an in-progress heartbeat every third of the
consumer's ack_wait, so a long handler is not redelivered to another replica under it;
if this process dies, the heartbeats stop and JetStream redelivers after ack_wait.
"""

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic

import nats.errors
import nats.js.errors
from nats.aio.msg import Msg
from nats.js import JetStreamContext

from app import log
from app.bus import subjects
from app.bus.connection import Bus
from app.bus.errors import BusError, MessageError, Poison, Retry
from app.bus.messages import Channel, M, decode
from app.bus.schedules import SCHEDULER

logger = log.get("bus")

TRACKED_FAILURES = 10_000
"""Failing messages whose failures a consumer counts at most (the oldest are forgotten)."""


@dataclass(frozen=True, slots=True)
class ConsumerSettings:
    """How one process consumes one kind of work."""

    concurrency: int = 8
    """Handlers running at once in this process; fetches never exceed the free slots."""
    batch: int = 16
    """Most messages asked for in one pull."""
    fetch_wait: float = 2.0
    """Seconds an idle pull waits for a message; also the longest a stop waits for the pull."""
    collect_wait: float = 0.02
    """Seconds a pull that follows a delivery waits to fill its batch (default 0.02)."""
    handler_deadline: float = 600.0
    """Seconds a handler may run before it is cancelled and its message redelivered."""
    retry_delay: float = 1.0
    """Redelivery delay after the first unexpected failure; doubles per further failure."""
    retry_delay_max: float = 60.0
    """Cap of that delay."""
    drain_timeout: float = 10.0
    """Seconds `stop` lets running handlers finish before cancelling (and nak-ing) them."""
    error_pause: float = 1.0
    """Seconds to wait before pulling again after the pull itself failed (server away)."""


@dataclass(frozen=True, slots=True)
class Delivery(Generic[M]):
    """One delivered message, decoded."""

    message: M
    subject: str
    attempt: int
    """1 on first delivery, higher on redeliveries."""
    scheduled_by: str
    """The schedule subject if a timer produced this message, else ''."""
    stream_seq: int = 0
    """The message's sequence in the work stream."""
    pending_after: int = 0
    """Messages of this consumer still to deliver when this one was: every message with a
    sequence up to `stream_seq + pending_after` was stored before this delivery."""
    epoch: str = ""
    """The work stream's creation time: sequences compare only within one epoch."""


Handler = Callable[[Delivery[M]], Awaitable[None]]


class Consumer(Generic[M]):
    """Runs `handler` for every message of `channel` until stopped."""

    def __init__(
        self,
        bus: Bus,
        channel: Channel[M],
        handler: Handler[M],
        settings: ConsumerSettings | None = None,
    ) -> None:
        self._bus = bus
        self._channel = channel
        self._handler = handler
        self._settings = settings or ConsumerSettings()
        self._durable = subjects.consumer(channel.work)
        self._log = logger.bind(consumer=self._durable, client=bus.settings.name)
        self._stopping = asyncio.Event()
        self._slot_freed = asyncio.Event()
        self._running: set[asyncio.Task[None]] = set()
        self._loop: asyncio.Task[None] | None = None
        self._sub: JetStreamContext.PullSubscription | None = None
        self._heartbeat_every = 10.0
        self._epoch = ""
        self._failures: dict[int, int] = {}
        """Unexpected failures so far, by stream sequence, of messages not settled since."""

    async def start(self) -> None:
        """Bind to the durable consumer (created by `topology.ensure`) and start pulling."""
        self._sub = await self._bus.js.pull_subscribe_bind(
            durable=self._durable, stream=subjects.WORK_STREAM
        )
        try:
            info = await self._sub.consumer_info()
        except nats.js.errors.NotFoundError:
            await self._sub.unsubscribe()
            raise BusError(
                f"consumer {self._durable} does not exist on stream {subjects.WORK_STREAM}; "
                "create the topology first (`app.bus.topology.ensure`, which every worker "
                "runs at start)"
            ) from None
        stream = await self._bus.js.stream_info(subjects.WORK_STREAM)
        if stream.created is not None:
            self._epoch = f"{subjects.WORK_STREAM}@{stream.created.isoformat()}"
        ack_wait = info.config.ack_wait or 30.0
        self._heartbeat_every = max(0.1, ack_wait / 3)
        self._loop = asyncio.create_task(self._pull(), name=f"consumer:{self._durable}")
        self._log.info("consumer.started", ack_wait=ack_wait)

    async def stop(self) -> None:
        """Stop pulling, let handlers finish for `drain_timeout`, then cancel the rest."""
        self._stopping.set()
        self._slot_freed.set()
        if self._loop is not None:
            # A pull waiting for messages ends now rather than after fetch_wait; a message
            # the server sent in the same instant is redelivered after ack_wait.
            self._loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop
        if self._running:
            _, late = await asyncio.wait(self._running, timeout=self._settings.drain_timeout)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
            if late:
                self._log.warning("consumer.drain_cancelled", handlers=len(late))
        if self._sub is not None:
            with contextlib.suppress(nats.errors.Error):
                await self._sub.unsubscribe()
        self._log.info("consumer.stopped")

    async def __aenter__(self) -> "Consumer[M]":
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _pull(self) -> None:
        assert self._sub is not None
        settings = self._settings
        idle = True
        while not self._stopping.is_set():
            free = settings.concurrency - len(self._running)
            if free <= 0:
                self._slot_freed.clear()
                await self._slot_freed.wait()
                continue
            try:
                if idle:
                    msgs = await self._sub.fetch(1, timeout=settings.fetch_wait)
                else:
                    batch = min(settings.batch, free)
                    msgs = await self._sub.fetch(batch, timeout=settings.collect_wait)
            except TimeoutError:
                idle = True
                continue
            except nats.errors.Error as e:
                self._log.warning("consumer.pull_failed", error=f"{type(e).__name__}: {e}")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), settings.error_pause)
                continue
            idle = False
            for msg in msgs:
                if self._stopping.is_set():
                    await self._settle(msg.nak(), "nak")
                    continue
                task = asyncio.create_task(self._handle(msg), name=f"{self._durable}:{msg.subject}")
                self._running.add(task)
                task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        self._slot_freed.set()
        if not task.cancelled() and task.exception() is not None:
            self._log.error(
                "consumer.handler_task_failed",
                task=task.get_name(),
                error=repr(task.exception()),
                consequence="the message is redelivered after ack_wait",
            )

    async def _handle(self, msg: Msg) -> None:
        meta = msg.metadata
        attempt = meta.num_delivered or 1
        log_ = self._log.bind(subject=msg.subject, seq=meta.sequence.stream, attempt=attempt)
        try:
            message = decode(self._channel, msg.data)
            kind, app = subjects.parse_work(msg.subject)
            if kind is not self._channel.work or app != message.app:
                raise MessageError(f"subject {msg.subject} does not match its payload's app")
        except (MessageError, ValueError) as e:
            log_.error("work.malformed", error=str(e), action="terminated")
            await self._settle(msg.term(), "term")
            return
        delivery = Delivery(
            message=message,
            subject=msg.subject,
            attempt=attempt,
            scheduled_by=(msg.headers or {}).get(SCHEDULER, ""),
            stream_seq=meta.sequence.stream,
            pending_after=meta.num_pending,
            epoch=self._epoch,
        )
        heartbeat = asyncio.create_task(self._heartbeat(msg), name=f"heartbeat:{msg.subject}")
        deadline = asyncio.timeout(self._settings.handler_deadline)
        seq = meta.sequence.stream
        try:
            async with deadline:
                await self._handler(delivery)
        except Retry as r:
            self._failures.pop(seq, None)
            log_.info("work.retry", reason=r.reason, delay_s=r.delay)
            await self._settle(msg.nak(delay=r.delay), "nak")
        except Poison as p:
            self._failures.pop(seq, None)
            log_.error("work.poison", reason=p.reason, action="terminated")
            await self._settle(msg.term(), "term")
        except asyncio.CancelledError:
            log_.info("work.interrupted", action="redeliver now")
            await self._settle(msg.nak(), "nak")
            raise
        except Exception as e:  # any other failure is redelivered with backoff
            delay = self._backoff(self._failed(seq))
            if isinstance(e, TimeoutError) and deadline.expired():
                log_.error(
                    "work.deadline_exceeded",
                    deadline_s=self._settings.handler_deadline,
                    delay_s=delay,
                )
            else:
                log_.exception("work.failed", delay_s=delay)
            await self._settle(msg.nak(delay=delay), "nak")
        else:
            self._failures.pop(seq, None)
            await self._settle(msg.ack(), "ack")
        finally:
            heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await heartbeat

    async def _heartbeat(self, msg: Msg) -> None:
        while True:
            await asyncio.sleep(self._heartbeat_every)
            try:
                await msg.in_progress()
            except nats.errors.Error as e:
                self._log.warning("work.heartbeat_failed", subject=msg.subject, error=str(e))

    def _failed(self, seq: int) -> int:
        """Count one more failure of the message at `seq`; its failures so far."""
        failures = self._failures.pop(seq, 0) + 1
        self._failures[seq] = failures
        if len(self._failures) > TRACKED_FAILURES:
            del self._failures[next(iter(self._failures))]
        return failures

    def _backoff(self, failures: int) -> float:
        s = self._settings
        return float(min(s.retry_delay * 2 ** min(failures - 1, 30), s.retry_delay_max))

    async def _settle(self, action: Awaitable[None], verb: str) -> None:
        """Send ack/nak/term; if the connection is gone, JetStream redelivers after ack_wait."""
        try:
            await action
        except nats.errors.Error as e:
            self._log.warning("work.settle_failed", verb=verb, error=str(e))
